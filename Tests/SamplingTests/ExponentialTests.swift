import CSampling
import Foundation
import Testing
@testable import WidgetSimSampling

/// The arrivals' unit exponentials (`TausExponentials`, CSampling's
/// `widgetsim_exponential_of_word`) against glibc's log1p, which they stand in for.
/// `scripts/check-exponential` compares all 2^32 words; these compare a sample of a
/// few million on every test run.
@Suite struct ExponentialTests {
    static func glibc(_ word: UInt32) -> Double { -1 * Foundation.log1p(-(Double(word) * 0x1p-32)) }

    /// The words where fdlibm's steps change: the ends, the words below 8 (left to
    /// glibc), the bound of the reduced branch, the reduced argument's ends (within 2^−20
    /// of 1, left to glibc) and √2 boundary, and the middle.
    static var edges: [UInt32] {
        var words: [UInt32] = [0, 1, 2, 7, 8, 9, 1 << 31, (1 << 31) - 1, (1 << 31) + 1, .max, .max - 1]
        words += (0 ..< 4_096).map { UInt32($0) }
        words += (0 ..< 4_096).map { UInt32.max - UInt32($0) }
        words += (0 ..< 4_096).map { WIDGETSIM_EXPONENTIAL_REDUCED - 2_048 + UInt32($0) }
        // 1 + x = (2^32 − word) / 2^32 at a power of two, where fdlibm's hu is 0, and
        // near (1 − 2^−21)·2^e, its last values below the next power.
        for e in 1 ... 31 {
            let power = UInt64(1) << (32 - e)
            for d in -300 ... 300 {
                let word = Int64(1 << 32) - Int64(power) + Int64(d)
                if word >= 0 && word <= Int64(UInt32.max) { words.append(UInt32(word)) }
            }
        }
        return words
    }

    /// The same bits as glibc on the edges and on 4 million words spread over the whole
    /// range (more than a million in each branch). Steps out of order or a misplaced
    /// bound show here: taking f − hfsq + t for f − (hfsq − t) changes 284,097 of the
    /// sampled words, the polynomial's first multiply-add unfused 1,818, the reduced
    /// branch's bound 1,024 words later 103 words, all in the edges' window around it. The innermost multiply-adds
    /// unfused change about one word in four million, which only the exhaustive
    /// `scripts/check-exponential` is sure to see.
    @Test(.enabled(if: TausExponentials.fusedLog1p, "glibc's log1p here is not the fused one"))
    func theSameBitsAsGlibc() {
        var differing: [UInt32] = []
        var reduced = 0
        var words = Self.edges
        words += (0 ..< 4_000_000).map { UInt32(truncatingIfNeeded: UInt64($0) &* 1_073 &+ 12_345) }
        for word in words {
            if word >= WIDGETSIM_EXPONENTIAL_REDUCED { reduced += 1 }
            if widgetsim_exponential_of_word(word).bitPattern != Self.glibc(word).bitPattern { differing.append(word) }
        }
        #expect(differing.isEmpty, "\(differing.count) words differ, the first \(differing.prefix(5))")
        #expect(reduced > 1_000_000 && words.count - reduced > 1_000_000)
    }

    /// The probes that decide `fusedLog1p`: distinct words of both branches, on which
    /// the fused function agrees with glibc here (`scripts/check-exponential` checks that
    /// glibc without FMA gives other bits on each).
    @Test func probesAreDistinctWordsOfBothBranches() {
        let probes = withUnsafeBytes(of: widgetsim_exponential_probes) { Array($0.bindMemory(to: UInt32.self)) }
        #expect(probes.count == Int(WIDGETSIM_EXPONENTIAL_PROBES))
        #expect(probes.contains { $0 < WIDGETSIM_EXPONENTIAL_REDUCED } && probes.contains { $0 >= WIDGETSIM_EXPONENTIAL_REDUCED })
        #expect(Set(probes).count == probes.count)
        if TausExponentials.fusedLog1p {
            for word in probes { #expect(widgetsim_exponential_of_word(word).bitPattern == Self.glibc(word).bitPattern) }
        }
    }

    /// `TausExponentials` draws the stream's own uniforms, and its exponentials are
    /// those of the general path (−log1p(−u) of `RandomStream.uniform()`), the stream
    /// going on as if it had drawn them itself.
    @Test(.enabled(if: TausExponentials.fusedLog1p, "glibc's log1p here is not the fused one"))
    func tausExponentialsAreTheStreamsDraws() {
        for seed: UInt in [1, 7, 4_294_967_295] {
            let stream = RandomStream(kind: .taus2, seed: seed), reference = RandomStream(kind: .taus2, seed: seed)
            let drawn: [Double] = stream.withTausUniforms { uniforms in
                var exponentials = TausExponentials(uniforms)
                let draws = (0 ..< 20_000).map { (i: Int) -> Double in
                    i % 3 == 0 ? exponentials.uniform() : exponentials.unitExponential()
                }
                uniforms = exponentials.uniforms
                return draws
            } ?? []
            let expected = (0 ..< 20_000).map { (i: Int) -> Double in
                i % 3 == 0 ? reference.uniform() : reference.exponential(mean: 1)
            }
            #expect(drawn.map(\.bitPattern) == expected.map(\.bitPattern))
            #expect(stream.uniform() == reference.uniform())
        }
    }
}
