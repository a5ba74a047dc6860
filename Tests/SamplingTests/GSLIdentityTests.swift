import CGSL
import Testing
import WidgetSimSampling

/// `RandomStream` draws a `taus2` stream's uniforms itself (no calls into GSL); every
/// draw must still be the double GSL's own functions return, whatever the mix of draws,
/// so that outputs do not depend on which path drew them.
@Suite struct GSLIdentityTests {
    /// A GSL generator of `kind` seeded as `RandomStream(kind:seed:)` seeds it.
    static func gsl(_ kind: GeneratorKind, seed: UInt) -> UnsafeMutablePointer<gsl_rng> {
        let type: UnsafePointer<gsl_rng_type> = switch kind {
        case .taus2: widgetsim_rng_taus2()
        case .mt19937: widgetsim_rng_mt19937()
        case .ranlxd2: widgetsim_rng_ranlxd2()
        case .gfsr4: widgetsim_rng_gfsr4()
        }
        let r = gsl_rng_alloc(type)!
        gsl_rng_set(r, seed)
        return r
    }

    @Test(arguments: GeneratorKind.allCases)
    func drawsAreGSLs(kind: GeneratorKind) {
        for seed: UInt in [1, 2, 4_294_967_295, 123_456_789] {
            let stream = RandomStream(kind: kind, seed: seed)
            let reference = Self.gsl(kind, seed: seed)
            defer { gsl_rng_free(reference) }
            var mismatches = 0
            for i in 0 ..< 20_000 {
                // Each kind of draw in turn, a gamma (drawn inside GSL) among them.
                switch i % 6 {
                case 0, 1:
                    if stream.uniform().bitPattern != gsl_rng_uniform(reference).bitPattern { mismatches += 1 }
                case 2:
                    if stream.exponential(mean: 2.5).bitPattern != gsl_ran_exponential(reference, 2.5).bitPattern {
                        mismatches += 1
                    }
                case 3:
                    let p = Double(i % 97) / 96
                    if stream.bernoulli(p) != (gsl_ran_bernoulli(reference, p) == 1) { mismatches += 1 }
                case 4:
                    if stream.uniformPositive().bitPattern != gsl_rng_uniform_pos(reference).bitPattern { mismatches += 1 }
                default:
                    if stream.gamma(shape: 3, scale: 2).bitPattern != gsl_ran_gamma(reference, 3, 2).bitPattern {
                        mismatches += 1
                    }
                }
            }
            #expect(mismatches == 0, "\(kind), seed \(seed): \(mismatches) of 20,000 draws differ from GSL's")
        }
    }

    /// A reseeded stream starts again where GSL's generator does after `gsl_rng_set`.
    @Test func reseedMatchesGSL() {
        let stream = RandomStream(kind: .taus2, seed: 7)
        for _ in 0 ..< 10 { _ = stream.uniform() }
        let key = StreamKey(seed: 5, replication: 1, person: 2, process: 3)
        stream.reseed(key)
        let reference = Self.gsl(.taus2, seed: key.gslSeed)
        defer { gsl_rng_free(reference) }
        let differing = (0 ..< 1_000).filter { _ in stream.uniform().bitPattern != gsl_rng_uniform(reference).bitPattern }
        #expect(differing.isEmpty, "\(differing.count) of 1,000 draws after a reseed differ from GSL's")
    }

    /// Uniforms drawn from a copy of a `taus2` stream's state are the stream's own, and
    /// the stream goes on after them as if it had drawn them itself; other generators
    /// give no copy.
    @Test func tausUniformsAreTheStreamsDraws() {
        for seed: UInt in [1, 2, 4_294_967_295, 123_456_789] {
            let stream = RandomStream(kind: .taus2, seed: seed), reference = RandomStream(kind: .taus2, seed: seed)
            var mismatches = 0
            for round in 0 ..< 50 {
                // Draws through the copy, then through the stream, in turns of varying length.
                let copied = stream.withTausUniforms { draws in
                    (0 ..< round * 7 + 1).map { _ in draws.uniform() }
                }
                for u in copied ?? [] where u.bitPattern != reference.uniform().bitPattern { mismatches += 1 }
                #expect(copied?.count == round * 7 + 1)
                for _ in 0 ..< round % 5 where stream.uniform().bitPattern != reference.uniform().bitPattern { mismatches += 1 }
            }
            #expect(mismatches == 0, "seed \(seed): \(mismatches) draws differ")
        }
        for kind in GeneratorKind.allCases where kind != .taus2 {
            #expect(RandomStream(kind: kind, seed: 1).withTausUniforms { $0.uniform() } == nil)
        }
    }
}
