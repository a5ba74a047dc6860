import CGSL
import CSampling
import Foundation

/// A GSL generator chosen by name.
public enum GeneratorKind: String, CaseIterable, Sendable {
    /// Tausworthe `taus2`: 24 bytes of state, fast, period 2^88. The default: a
    /// simulation keeps many streams alive per person, and small state stays in cache.
    case taus2
    /// Mersenne Twister `mt19937`: about 5 KB of state, period 2^19937 − 1.
    case mt19937
    /// Lüscher's `ranlxd2`: slow, of the highest statistical quality.
    case ranlxd2
    /// Four-tap shift register `gfsr4`.
    case gfsr4

    /// The generator scenarios use unless they name another.
    public static let `default` = GeneratorKind.taus2

    var gslType: UnsafePointer<gsl_rng_type> {
        switch self {
        case .taus2: widgetsim_rng_taus2()
        case .mt19937: widgetsim_rng_mt19937()
        case .ranlxd2: widgetsim_rng_ranlxd2()
        case .gfsr4: widgetsim_rng_gfsr4()
        }
    }
}

/// One independent stream of random numbers: owns one `gsl_rng`, freed when the
/// stream is released (deterministically, at its last reference).
///
/// Every stochastic process of the simulation draws from its own stream, seeded by
/// `StreamSeed` from (scenario seed, replication, person, process).
public final class RandomStream {
    @usableFromInline let rng: UnsafeMutablePointer<gsl_rng>
    /// The generator behind this stream.
    public let kind: GeneratorKind
    /// The state of a `taus2` stream, drawn from directly (`widgetsim_taus_uniform`, the
    /// same doubles as `gsl_rng_uniform` without its two indirect calls); nil for the
    /// other generators, which every draw reaches through GSL.
    @usableFromInline let taus: UnsafeMutableRawPointer?

    /// Creates a stream of `kind` seeded with `seed` (see `StreamSeed.gslSeed`).
    public init(kind: GeneratorKind = .default, seed: UInt) {
        widgetsim_gsl_disable_abort()
        guard let rng = gsl_rng_alloc(kind.gslType) else {
            fatalError("gsl_rng_alloc failed: out of memory")
        }
        self.rng = rng
        self.kind = kind
        taus = kind == .taus2 && gsl_rng_size(rng) == MemoryLayout<widgetsim_taus_state>.size ? rng.pointee.state : nil
        gsl_rng_set(rng, seed)
    }

    /// Creates the stream of `key`, seeded by the documented derivation.
    public convenience init(kind: GeneratorKind = .default, key: StreamKey) {
        self.init(kind: kind, seed: key.gslSeed)
    }

    /// Reseeds the stream in place (no allocation): a worker reuses one stream object
    /// per process across the people it simulates.
    @inlinable
    public func reseed(_ key: StreamKey) {
        reseed(gslSeed: key.gslSeed)
    }

    /// Reseeds the stream in place with `seed` (a key's `StreamKey.gslSeed`).
    @inlinable
    public func reseed(gslSeed seed: UInt) {
        gsl_rng_set(rng, seed)
    }

    deinit { gsl_rng_free(rng) }

    // MARK: - Draws

    /// Uniform on [0, 1).
    @inlinable public func uniform() -> Double {
        if let taus { return widgetsim_taus_uniform(taus) }
        return gsl_rng_uniform(rng)
    }

    /// Runs `body` with the state of a `taus2` stream copied into a `TausUniforms`,
    /// which a loop in `body` can keep in registers (a draw of the stream itself loads
    /// and stores the state in its `gsl_rng`, as any store in the loop might change it),
    /// and copies it back when `body` returns: the stream goes on as if `body` had drawn
    /// from it, the same doubles in the same order. Returns nil, without running `body`,
    /// for the other generators. Inside `body`, draw from the stream only through the
    /// value; a loop that calls no function keeps the most in registers.
    @inlinable @inline(__always)
    public func withTausUniforms<R>(_ body: (inout TausUniforms) throws -> R) rethrows -> R? {
        guard let taus else { return nil }
        var uniforms = TausUniforms(taus)
        defer { uniforms.store(taus) }
        return try body(&uniforms)
    }

    /// Uniform on (0, 1): as `gsl_rng_uniform_pos`, the next uniform that is not 0.
    @inlinable public func uniformPositive() -> Double {
        guard let taus else { return gsl_rng_uniform_pos(rng) }
        var u = widgetsim_taus_uniform(taus)
        while u == 0 { u = widgetsim_taus_uniform(taus) }
        return u
    }

    /// Uniform integer in `0 ..< n` (n ≥ 1).
    @inlinable public func uniformInt(_ n: Int) -> Int {
        precondition(n >= 1)
        return Int(gsl_rng_uniform_int(rng, UInt(n)))
    }

    /// 1 with probability `p`, else 0: as `gsl_ran_bernoulli`, one uniform u, and u < p.
    @inlinable public func bernoulli(_ p: Double) -> Bool { uniform() < p }

    /// Exponential with the given mean: as `gsl_ran_exponential`, −mean · log1p(−u) of
    /// one uniform u.
    @inlinable public func exponential(mean: Double) -> Double { -mean * Foundation.log1p(-uniform()) }

    /// Poisson with mean `mu`.
    @inlinable public func poisson(mean mu: Double) -> Int { Int(gsl_ran_poisson(rng, mu)) }

    /// Gamma with `shape` k and `scale` θ: mean kθ, variance kθ².
    @inlinable public func gamma(shape: Double, scale: Double) -> Double {
        gsl_ran_gamma(rng, shape, scale)
    }

    /// Gamma with the given mean and coefficient of variation (cv = sd / mean); the
    /// mean itself when cv is 0.
    @inlinable public func gamma(mean: Double, cv: Double) -> Double {
        guard cv > 0 else { return mean }
        let shape = 1 / (cv * cv)
        return gamma(shape: shape, scale: mean / shape)
    }

    /// Log-normal: exp(N(log median, sigma²)).
    @inlinable public func logNormal(median: Double, sigma: Double) -> Double {
        gsl_ran_lognormal(rng, Foundation.log(median), sigma)
    }

    /// Beta(a, b).
    @inlinable public func beta(_ a: Double, _ b: Double) -> Double { gsl_ran_beta(rng, a, b) }

    /// An index drawn with probability proportional to `weights[i]` (non-negative, not
    /// all zero), by inversion with one uniform: for weights that change between
    /// draws. For fixed weights drawn many times, use `DiscreteDistribution`.
    @inlinable public func choose(weights: UnsafeBufferPointer<Double>, total: Double) -> Int {
        Self.inverse(uniform() * total, weights: weights)
    }

    /// The first index at which the running sum of `weights` exceeds `target` (a point
    /// in [0, Σ weights)): inversion of the discrete distribution. Should rounding leave
    /// `target` past the sum, the last index with a positive weight. Inlined where it is
    /// called (once per view and per session): the call would cost about as much as
    /// the handful of weights it walks.
    @inlinable @inline(__always) public static func inverse(_ target: Double, weights: UnsafeBufferPointer<Double>) -> Int {
        var u = target
        for i in 0 ..< weights.count {
            u -= weights[i]
            if u < 0 { return i }
        }
        var i = weights.count - 1
        while i > 0 && weights[i] <= 0 { i -= 1 }
        return i
    }
}

/// Something to draw uniforms on [0, 1) from: a stream, or a copy of a `taus2` stream's
/// state (`TausUniforms`). A loop written over it serves both, and gets a copy of its
/// own for each.
public protocol UniformSource {
    mutating func uniform() -> Double

    /// A unit-mean exponential of the next uniform u: −log1p(−u), as
    /// `exponential(mean: 1)` draws it.
    mutating func unitExponential() -> Double
}

extension UniformSource {
    @inlinable @inline(__always)
    public mutating func unitExponential() -> Double { -1 * Foundation.log1p(-uniform()) }
}

extension RandomStream: UniformSource {}

/// The uniforms of a `taus2` stream from a copy of its state (see
/// `RandomStream.withTausUniforms`): CSampling's steps (`widgetsim_taus_next`, those of
/// `widgetsim_taus_uniform`) on the three 32-bit components held as values.
public struct TausUniforms: UniformSource {
    @usableFromInline var words: widgetsim_taus_words

    /// The state at `state`, where GSL keeps it: three unsigned longs (values below 2^32).
    @inlinable @inline(__always)
    init(_ state: UnsafeMutableRawPointer) {
        let stored = state.assumingMemoryBound(to: UInt.self)
        words = widgetsim_taus_words(
            c0: UInt32(truncatingIfNeeded: stored[0]), c1: UInt32(truncatingIfNeeded: stored[1]),
            c2: UInt32(truncatingIfNeeded: stored[2]))
    }

    /// Writes the state back to `state`.
    @inlinable @inline(__always)
    func store(_ state: UnsafeMutableRawPointer) {
        let stored = state.assumingMemoryBound(to: UInt.self)
        stored[0] = UInt(words.c0)
        stored[1] = UInt(words.c1)
        stored[2] = UInt(words.c2)
    }

    /// Uniform on [0, 1), as `RandomStream.uniform()`.
    @inlinable @inline(__always)
    public mutating func uniform() -> Double { widgetsim_taus_next(&words) }

    /// The next 32-bit word of the stream: `uniform()` is this word's
    /// `uniform(ofWord:)`.
    @inlinable @inline(__always)
    public mutating func uniformWord() -> UInt32 { widgetsim_taus_next_word(&words) }

    /// The uniform a draw whose word is `word` gives: the word / 2^32 (exact).
    @inlinable @inline(__always)
    public static func uniform(ofWord word: UInt32) -> Double { widgetsim_taus_uniform_of_word(word) }
}

/// The uniforms of a `taus2` stream as `TausUniforms` draws them, whose unit
/// exponentials come from CSampling's `widgetsim_exponential_of_word`: the bits of
/// −log1p(−u) from glibc's own log1p, in one direct call specialised for u = word / 2^32.
/// Use it only where `fusedLog1p` says so (the processor runs glibc's log1p with fused
/// multiply-adds, which that function reproduces); `scripts/check-exponential` compares
/// the two on every word.
public struct TausExponentials: UniformSource {
    public var uniforms: TausUniforms

    /// Whether glibc's log1p, here, is the fused one `widgetsim_exponential_of_word`
    /// reproduces (decided once, by the processor and by glibc's answers on words where
    /// the fused and unfused arithmetic differ).
    public static let fusedLog1p = widgetsim_exponential_usable() != 0

    @inlinable @inline(__always)
    public init(_ uniforms: TausUniforms) { self.uniforms = uniforms }

    @inlinable @inline(__always)
    public mutating func uniform() -> Double { uniforms.uniform() }

    @inlinable @inline(__always)
    public mutating func unitExponential() -> Double { widgetsim_exponential_of_word(uniforms.uniformWord()) }
}
