import Foundation
import Testing
import WidgetSimSampling

/// Sample mean and variance of every draw of `RandomStream` and of `DiscreteDistribution`
/// against their analytic values. Seeds are fixed, so each check is deterministic; the
/// tolerances are z standard errors (see `Statistics.swift`).
@Suite struct DistributionTests {
    static let n = 100_000

    /// A stream of its own for each check, so that checks do not share draws.
    func stream(_ process: UInt64, kind: GeneratorKind = .default) -> RandomStream {
        RandomStream(kind: kind, key: StreamKey(seed: 20_240_611, replication: 0, person: 0, process: process))
    }

    func draws(_ n: Int = n, _ draw: () -> Double) -> [Double] {
        var xs = [Double]()
        xs.reserveCapacity(n)
        for _ in 0 ..< n { xs.append(draw()) }
        return xs
    }

    @Test func uniform() {
        let s = stream(1)
        let xs = draws { s.uniform() }
        #expect(xs.allSatisfy { $0 >= 0 && $0 < 1 })
        expectMoments(xs, Analytic(mean: 0.5, variance: 1.0 / 12, mu4: 1.0 / 80), "uniform")
    }

    @Test func uniformPositive() {
        let s = stream(2)
        let xs = draws { s.uniformPositive() }
        #expect(xs.allSatisfy { $0 > 0 && $0 < 1 })
        expectMoments(xs, Analytic(mean: 0.5, variance: 1.0 / 12, mu4: 1.0 / 80), "uniformPositive")
    }

    @Test(arguments: [0.3, 0.02])
    func bernoulli(p: Double) {
        let s = stream(3)
        let xs = draws { s.bernoulli(p) ? 1 : 0 }
        let q = 1 - p
        // Fourth central moment of a Bernoulli: p·q⁴ + q·p⁴ = pq(1 − 3pq).
        expectMoments(xs, Analytic(mean: p, variance: p * q, mu4: p * q * (1 - 3 * p * q)), "bernoulli(\(p))")
    }

    @Test(arguments: [1.0, 2.5, 90_000.0])
    func exponential(mean m: Double) {
        let s = stream(4)
        let xs = draws { s.exponential(mean: m) }
        #expect(xs.allSatisfy { $0 >= 0 })
        // Rate λ = 1/m: variance 1/λ², μ4 = 9/λ⁴.
        expectMoments(xs, Analytic(mean: m, variance: m * m, mu4: 9 * m * m * m * m), "exponential(\(m))")
    }

    /// GSL switches algorithm for large means, so both regimes are checked.
    @Test(arguments: [0.7, 3.5, 250.0])
    func poisson(mean lambda: Double) {
        let s = stream(5)
        let xs = draws { Double(s.poisson(mean: lambda)) }
        #expect(xs.allSatisfy { $0 >= 0 && $0 == $0.rounded() })
        expectMoments(xs, Analytic(mean: lambda, variance: lambda, mu4: lambda * (1 + 3 * lambda)),
                      "poisson(\(lambda))")
    }

    /// Gamma(k, θ): mean kθ, variance kθ², μ4 = 3k(k + 2)θ⁴ (excess kurtosis 6/k).
    static func gammaMoments(shape k: Double, scale theta: Double) -> Analytic {
        let t2 = theta * theta
        return Analytic(mean: k * theta, variance: k * t2, mu4: 3 * k * (k + 2) * t2 * t2)
    }

    /// Shapes below and above 1 take different GSL code paths.
    @Test(arguments: [(0.5, 2.0), (4.0, 1.5), (11.0, 7.7)])
    func gammaShapeScale(shape: Double, scale: Double) {
        let s = stream(6)
        let xs = draws { s.gamma(shape: shape, scale: scale) }
        #expect(xs.allSatisfy { $0 >= 0 })
        expectMoments(xs, Self.gammaMoments(shape: shape, scale: scale), "gamma(shape \(shape), scale \(scale))")
    }

    /// Gamma by mean and coefficient of variation: mean m, standard deviation cv·m.
    @Test(arguments: [(85.0, 0.3), (2.0, 1.5)])
    func gammaMeanCV(mean m: Double, cv: Double) {
        let s = stream(7)
        let xs = draws { s.gamma(mean: m, cv: cv) }
        // Written from the definition, independently of how the source converts it.
        let sd = cv * m
        let shape = (m / sd) * (m / sd)
        let expected = Self.gammaMoments(shape: shape, scale: m / shape)
        #expect(abs(expected.variance - sd * sd) <= 1e-9 * sd * sd)
        expectMoments(xs, expected, "gamma(mean \(m), cv \(cv))")
    }

    @Test func gammaMeanCVZeroIsTheMean() {
        let s = stream(8)
        let before = RandomStream(key: StreamKey(seed: 20_240_611, replication: 0, person: 0, process: 8))
        for _ in 0 ..< 10 { #expect(s.gamma(mean: 42.5, cv: 0) == 42.5) }
        // cv = 0 takes no draw: the stream is where a fresh one is.
        #expect(s.uniform() == before.uniform())
    }

    /// Log-normal exp(N(μ, σ²)) with μ = log(median): raw moments E[Xᵏ] = exp(kμ + k²σ²/2).
    @Test(arguments: [(90_000.0, 0.5), (1.0, 0.25), (60.0, 0.8)])
    func logNormal(median: Double, sigma: Double) {
        let s = stream(9)
        let xs = draws { s.logNormal(median: median, sigma: sigma) }
        #expect(xs.allSatisfy { $0 > 0 })
        let mu = log(median)
        func raw(_ k: Double) -> Double { exp(k * mu + k * k * sigma * sigma / 2) }
        let expected = Analytic(raw: raw(1), raw(2), raw(3), raw(4))
        expectMoments(xs, expected, "logNormal(median \(median), sigma \(sigma))")
        // The median itself: P(X ≤ median) = 1/2, checked with a binomial standard error.
        let below = xs.reduce(0) { $0 + ($1 <= median ? 1 : 0) }
        expectFrequencies([below, xs.count - below], [0.5, 0.5], "logNormal median")
    }

    /// Beta(a, b): raw moments E[Xᵏ] = Π_{r<k} (a + r)/(a + b + r).
    @Test(arguments: [(2.0, 5.0), (0.5, 0.5), (30.0, 3.0)])
    func beta(a: Double, b: Double) {
        let s = stream(10)
        let xs = draws { s.beta(a, b) }
        #expect(xs.allSatisfy { $0 >= 0 && $0 <= 1 })
        func raw(_ k: Int) -> Double {
            (0 ..< k).reduce(1.0) { $0 * (a + Double($1)) / (a + b + Double($1)) }
        }
        let expected = Analytic(raw: raw(1), raw(2), raw(3), raw(4))
        #expect(abs(expected.mean - a / (a + b)) < 1e-12)
        #expect(abs(expected.variance - a * b / ((a + b) * (a + b) * (a + b + 1))) < 1e-12)
        expectMoments(xs, expected, "beta(\(a), \(b))")
    }

    static let weights: [Double] = [3, 0, 1.5, 5, 0.5, 0, 0.01]
    static var probabilities: [Double] {
        let total = weights.reduce(0, +)
        return weights.map { $0 / total }
    }

    @Test func chooseWeights() {
        let s = stream(11)
        let w = Self.weights
        let total = w.reduce(0, +)
        var counts = Array(repeating: 0, count: w.count)
        let xs = w.withUnsafeBufferPointer { buffer in
            draws {
                let i = s.choose(weights: buffer, total: total)
                counts[i] += 1
                return Double(i)
            }
        }
        expectFrequencies(counts, Self.probabilities, "choose")
        expectMoments(xs, Analytic(categorical: Self.probabilities), "choose index")
    }

    /// One uniform per draw, by inversion: the index is the first i whose cumulative
    /// weight exceeds u·total.
    @Test func chooseIsInversionOfOneUniform() {
        let key = StreamKey(seed: 5, replication: 1, person: 2, process: 3)
        let s = RandomStream(key: key), shadow = RandomStream(key: key)
        let w = Self.weights
        let total = w.reduce(0, +)
        for _ in 0 ..< 1000 {
            let i = w.withUnsafeBufferPointer { s.choose(weights: $0, total: total) }
            let u = shadow.uniform() * total
            var cumulative = 0.0
            var expected = w.count - 1
            for j in w.indices {
                cumulative += w[j]
                if u < cumulative { expected = j; break }
            }
            #expect(i == expected)
        }
    }

    /// Rounding can leave the inversion a hair past the last weight; the fallback must
    /// still pick an index of positive weight. An overstated total forces that path.
    @Test func chooseFallbackSkipsTrailingZeros() {
        let s = stream(12)
        let w: [Double] = [1, 0, 2, 0, 0]
        var counts = Array(repeating: 0, count: w.count)
        w.withUnsafeBufferPointer { buffer in
            for _ in 0 ..< 10_000 { counts[s.choose(weights: buffer, total: 6)] += 1 }
        }
        // u·6 is uniform on [0, 6): index 0 on [0, 1), index 2 on [1, 6).
        expectFrequencies(counts, [1.0 / 6, 0, 5.0 / 6, 0, 0], "choose fallback")
    }

    @Test func discreteDistribution() throws {
        let d = try #require(DiscreteDistribution(weights: Self.weights))
        #expect(d.count == Self.weights.count)
        for (i, p) in Self.probabilities.enumerated() {
            #expect(abs(d.probability(i) - p) <= 1e-12, "probability(\(i))")
        }
        let s = stream(13)
        var counts = Array(repeating: 0, count: d.count)
        let xs = draws {
            let i = d.sample(s)
            counts[i] += 1
            return Double(i)
        }
        expectFrequencies(counts, Self.probabilities, "DiscreteDistribution")
        expectMoments(xs, Analytic(categorical: Self.probabilities), "DiscreteDistribution index")
    }

    @Test func discreteDistributionSingleCategory() throws {
        let d = try #require(DiscreteDistribution(weights: [0, 0, 7, 0]))
        let s = stream(14)
        for _ in 0 ..< 1000 { #expect(d.sample(s) == 2) }
    }

    @Test(arguments: [
        [Double](), [0, 0, 0], [1, -0.5, 2], [1, .nan], [1, .infinity], [-1],
    ])
    func discreteDistributionRejectsBadWeights(weights: [Double]) {
        #expect(DiscreteDistribution(weights: weights) == nil)
    }

    @Test(arguments: [1, 7, 1000])
    func uniformInt(n: Int) {
        let s = stream(15)
        var counts = Array(repeating: 0, count: n)
        let xs = draws {
            let i = s.uniformInt(n)
            counts[i] += 1
            return Double(i)
        }
        if n <= 10 { expectFrequencies(counts, Array(repeating: 1 / Double(n), count: n), "uniformInt(\(n))") }
        // Discrete uniform on 0 ..< n: variance (n² − 1)/12; μ4 from the raw moments.
        let p = Array(repeating: 1 / Double(n), count: n)
        let expected = Analytic(categorical: p)
        #expect(abs(expected.variance - (Double(n * n) - 1) / 12) <= 1e-9 * Double(n * n))
        if n > 1 { expectMoments(xs, expected, "uniformInt(\(n))") } else { #expect(counts == [Self.n]) }
    }
}
