import Testing
import WidgetSimSampling

/// The seed derivation of `StreamKey`, reproduced here from its doc comment, and the
/// independence of the streams it produces.
@Suite struct StreamKeyTests {
    /// SplitMix64 (Steele, Lea & Flood 2014; Vigna's `splitmix64.c`), written out
    /// independently of the source: the state advances by the golden-ratio constant and
    /// each output is the finaliser of the new state.
    struct SplitMix64 {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &+ 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// `mix(x)` of the doc comment is the first output of a SplitMix64 seeded with x.
    static func mix(_ x: UInt64) -> UInt64 {
        var g = SplitMix64(state: x)
        return g.next()
    }

    /// The documented derivation, step by step.
    static func derivedSeed(seed: UInt64, replication: UInt64, person: UInt64, process: UInt64) -> UInt {
        var h = mix(seed)
        h = mix(h ^ replication)
        h = mix(h ^ person)
        h = mix(h ^ process)
        let folded = (h >> 32) ^ (h & 0xFFFF_FFFF)
        return UInt(folded == 0 ? 1 : folded)
    }

    @Test func splitMixReferenceVectors() {
        // Published outputs of splitmix64.c: seed 0 → 0xE220A8397B1DCDAF; seed 1234567 →
        // 6457827717110365317, 3203168211198807973.
        var g = SplitMix64(state: 1_234_567)
        #expect(g.next() == 6_457_827_717_110_365_317)
        #expect(g.next() == 3_203_168_211_198_807_973)
        #expect(Self.mix(0) == 0xE220_A839_7B1D_CDAF)
        #expect(StreamKey.mix(0) == 0xE220_A839_7B1D_CDAF)
        #expect(StreamKey.mix(1_234_567) == 6_457_827_717_110_365_317)
    }

    /// Keys with seeds worked out by hand (an independent implementation of the
    /// derivation, outside Swift) pin the derivation down across releases.
    @Test(arguments: [
        (UInt64(0), 0, 0, UInt64(0), UInt64(2_391_539_541_053_276_776), UInt(2_348_316_386)),
        (42, 3, 17, 5, 696_327_067_717_355_040, 1_466_015_719),
        (20_240_601, 0, 123_456, 2, 9_102_245_575_706_230_079, 1_745_260_831),
    ])
    func documentedDerivation(
        seed: UInt64, replication: Int, person: Int, process: UInt64, hash: UInt64, gslSeed: UInt
    ) {
        let key = StreamKey(seed: seed, replication: replication, person: person, process: process)
        #expect(key.hash64 == hash)
        #expect(key.gslSeed == gslSeed)
        #expect(key.gslSeed == Self.derivedSeed(
            seed: seed, replication: UInt64(replication), person: UInt64(person), process: process))
    }

    @Test func derivationMatchesOnManyKeys() {
        var g = SplitMix64(state: 99)
        for _ in 0 ..< 2000 {
            let seed = g.next(), replication = Int(g.next() % 1000), person = Int(g.next() % 1_000_000)
            let process = g.next() % 64
            let key = StreamKey(seed: seed, replication: replication, person: person, process: process)
            let expected = Self.derivedSeed(
                seed: seed, replication: UInt64(replication), person: UInt64(person), process: process)
            #expect(key.gslSeed == expected)
            #expect(key.gslSeed != 0 && key.gslSeed <= UInt(UInt32.max))
        }
    }

    @Test func streamOfKeyIsSeededWithGslSeed() {
        let key = StreamKey(seed: 7, replication: 2, person: 31, process: 4)
        let a = RandomStream(key: key)
        let b = RandomStream(seed: Self.derivedSeed(seed: 7, replication: 2, person: 31, process: 4))
        for _ in 0 ..< 100 { #expect(a.uniform() == b.uniform()) }
    }

    @Test(arguments: GeneratorKind.allCases)
    func sameKeySameStream(kind: GeneratorKind) {
        let k1 = StreamKey(seed: 123, replication: 4, person: 56, process: 7)
        let k2 = StreamKey(seed: 123, replication: 4, person: 56, process: 7)
        #expect(k1 == k2)
        #expect(k1.gslSeed == k2.gslSeed)
        let a = RandomStream(kind: kind, key: k1), b = RandomStream(kind: kind, key: k2)
        #expect(a.kind == kind)
        let xs = (0 ..< 100).map { _ in a.uniform() }
        let ys = (0 ..< 100).map { _ in b.uniform() }
        #expect(xs == ys)
        // Not a constant sequence.
        #expect(Set(xs).count == 100)
    }

    @Test func oneFieldApartGivesDifferentSeeds() {
        let base = StreamKey(seed: 1000, replication: 3, person: 42, process: 2)
        var variants = [base]
        for delta in [1, 2, 1 << 20] {
            var k = base; k.seed += UInt64(delta); variants.append(k)
            k = base; k.replication += UInt64(delta); variants.append(k)
            k = base; k.person += UInt64(delta); variants.append(k)
            k = base; k.process += UInt64(delta); variants.append(k)
        }
        // Each pair of these keys differs in at least one field, and all seeds differ.
        #expect(Set(variants).count == variants.count)
        #expect(Set(variants.map(\.gslSeed)).count == variants.count)
        #expect(Set(variants.map(\.hash64)).count == variants.count)
        // Swapping values between fields changes the seed too: the fields are not
        // mixed symmetrically.
        let swapped = StreamKey(seed: 1000, replication: 42, person: 3, process: 2)
        #expect(swapped.gslSeed != base.gslSeed)
    }

    @Test func noSeedCollisionsAcrossAPopulation() {
        // 20 processes × 5000 people: 100,000 32-bit seeds. By the birthday bound about
        // n²/2³³ ≈ 1.2 collisions are expected from an ideal hash, so allow a handful.
        var seeds = Set<UInt>()
        var total = 0
        for person in 0 ..< 5000 {
            for process in 0 ..< 20 as Range<UInt64> {
                seeds.insert(StreamKey(seed: 1, replication: 0, person: person, process: process).gslSeed)
                total += 1
            }
        }
        #expect(total - seeds.count <= 6)
    }

    func uniforms(_ key: StreamKey, _ n: Int, kind: GeneratorKind = .default) -> [Double] {
        let s = RandomStream(kind: kind, key: key)
        return (0 ..< n).map { _ in s.uniform() }
    }

    /// Under independence r has standard deviation ≈ 1/√n.
    static let pairs = 20_000
    static var correlationBound: Double { z / Double(pairs).squareRoot() }

    @Test func differentPersonAndProcessAreUncorrelated() {
        let a = uniforms(StreamKey(seed: 77, replication: 0, person: 10, process: 1), Self.pairs)
        let b = uniforms(StreamKey(seed: 77, replication: 0, person: 11, process: 2), Self.pairs)
        let r = pearson(a, b)
        #expect(abs(r) < Self.correlationBound, "r = \(r)")
        // The check can fail: a stream is perfectly correlated with itself.
        #expect(pearson(a, a) > 0.999_999)
    }

    @Test(arguments: [UInt64(0), 1, 5])
    func consecutivePeopleAreUncorrelated(seed: UInt64) {
        var previous = uniforms(StreamKey(seed: seed, replication: 0, person: 0, process: 0), Self.pairs)
        for person in 1 ..< 6 {
            let next = uniforms(StreamKey(seed: seed, replication: 0, person: person, process: 0), Self.pairs)
            let r = pearson(previous, next)
            #expect(abs(r) < Self.correlationBound, "persons \(person - 1), \(person): r = \(r)")
            previous = next
        }
    }

    @Test func consecutiveProcessesAndReplicationsAreUncorrelated() {
        let base = StreamKey(seed: 31, replication: 0, person: 9, process: 0)
        let a = uniforms(base, Self.pairs)
        var p = base; p.process = 1
        var r = base; r.replication = 1
        var s = base; s.seed = 32
        for other in [p, r, s] {
            let rho = pearson(a, uniforms(other, Self.pairs))
            #expect(abs(rho) < Self.correlationBound, "\(other): r = \(rho)")
        }
    }

    @Test(arguments: GeneratorKind.allCases)
    func reseedRestartsTheSequence(kind: GeneratorKind) {
        let k1 = StreamKey(seed: 5, replication: 1, person: 100, process: 3)
        let k2 = StreamKey(seed: 5, replication: 1, person: 101, process: 3)
        let reused = RandomStream(kind: kind, key: k1)
        let first = (0 ..< 50).map { _ in reused.uniform() }
        reused.reseed(k2)
        let fresh2 = RandomStream(kind: kind, key: k2)
        let second = (0 ..< 50).map { _ in reused.uniform() }
        #expect(second == (0 ..< 50).map { _ in fresh2.uniform() })
        #expect(second != first)
        reused.reseed(k1)
        #expect((0 ..< 50).map { _ in reused.uniform() } == first)
    }

    @Test(arguments: GeneratorKind.allCases)
    func everyGeneratorIsUniform(kind: GeneratorKind) {
        let n = 50_000
        let xs = uniforms(StreamKey(seed: 11, replication: 0, person: 0, process: 0), n, kind: kind)
        #expect(xs.allSatisfy { $0 >= 0 && $0 < 1 })
        expectMoments(xs, Analytic(mean: 0.5, variance: 1.0 / 12, mu4: 1.0 / 80), "\(kind) uniform")
        // Ten equal bins, each with a binomial standard error.
        var bins = Array(repeating: 0, count: 10)
        for x in xs { bins[Int(x * 10)] += 1 }
        expectFrequencies(bins, Array(repeating: 0.1, count: 10), "\(kind) bins")
    }

    @Test func generatorKindsDiffer() {
        let key = StreamKey(seed: 11, replication: 0, person: 0, process: 0)
        let firsts = GeneratorKind.allCases.map { uniforms(key, 5, kind: $0) }
        #expect(Set(firsts.map { $0.description }).count == GeneratorKind.allCases.count)
        #expect(GeneratorKind.default == .taus2)
    }
}
