import Foundation
import Testing
import WidgetSimSampling

/// Sobol' indices of the Ishigami function, whose indices are known in closed form
/// (Ishigami & Homma 1990; Saltelli et al., "Global Sensitivity Analysis. The Primer",
/// 2008, §4.7): f = sin x₁ + a sin² x₂ + b x₃⁴ sin x₁ on [−π, π]³, a = 7, b = 0.1, with
///
///     V₁ = (1 + b π⁴/5)² / 2,  V₂ = a²/8,  V₃ = 0,  V₁₃ = b² π⁸ (1/18 − 1/50),
///     V = V₁ + V₂ + V₁₃,  S_i = V_i / V,  ST₁ = (V₁ + V₁₃)/V,  ST₂ = S₂,  ST₃ = V₁₃/V.
///
/// A fourth input that f never reads must get S₄ = ST₄ = 0 exactly (f(AB₄) = f(A)).
@Suite struct SobolIndicesTests {
    static let a = 7.0, b = 0.1
    static func ishigami(_ x: [Double]) -> Double {
        sin(x[0]) + a * sin(x[1]) * sin(x[1]) + b * pow(x[2], 4) * sin(x[0])
    }

    static var truth: (first: [Double], total: [Double]) {
        let v1 = pow(1 + b * pow(Double.pi, 4) / 5, 2) / 2, v2 = a * a / 8
        let v13 = b * b * pow(Double.pi, 8) * (1.0 / 18 - 1.0 / 50)
        let v = v1 + v2 + v13
        return ([v1 / v, v2 / v, 0, 0], [(v1 + v13) / v, v2 / v, v13 / v, 0])
    }

    static func analyze(samples n: Int) throws -> SobolIndices.Result {
        let d = 4
        let base = try SobolIndices.sobolBase(samples: n, dimensions: d)
        let later = try ExperimentDesign.rows(.sobol, samples: 2 * n, dimensions: 2 * d, seed: 0).suffix(n)
        #expect(base.count == n && base == Array(later))
        let rows = SobolIndices.design(base: base, dimensions: d)
        #expect(rows.count == n * SobolIndices.rowsPerSample(dimensions: d))
        let outputs: [Double?] = rows.map { u in ishigami(u.map { -Double.pi + 2 * Double.pi * $0 }) }
        return SobolIndices.analyze(outputs, dimensions: d, resamples: 400, seed: 20260323)
    }

    /// With 2048 base samples (12 288 runs) every known index lies in its 95% bootstrap
    /// interval, and the intervals are narrow enough for that to mean something (below
    /// 0.15 wide; the bootstrap's sd of S₁ at this N is about 0.02).
    @Test func ishigamiIndicesLieInTheirIntervals() throws {
        let r = try Self.analyze(samples: 2048)
        #expect(r.samples == 2048)
        let truth = Self.truth
        for i in 0 ..< 3 {
            let s = try #require(r.first[i]), t = try #require(r.total[i])
            #expect(s.low <= truth.first[i] && truth.first[i] <= s.high, "S\(i + 1) = \(truth.first[i]) outside \(s)")
            #expect(t.low <= truth.total[i] && truth.total[i] <= t.high, "ST\(i + 1) = \(truth.total[i]) outside \(t)")
            #expect(s.high - s.low < 0.15 && t.high - t.low < 0.15, "input \(i + 1): \(s), \(t)")
            #expect(abs(s.value - truth.first[i]) < 0.05 && abs(t.value - truth.total[i]) < 0.05)
        }
    }

    @Test func anInertInputHasIndicesOfExactlyZero() throws {
        let r = try Self.analyze(samples: 256)
        #expect(r.first[3] == SobolIndices.Estimate(value: 0, low: 0, high: 0))
        #expect(r.total[3] == SobolIndices.Estimate(value: 0, low: 0, high: 0))
        // The others are far from 0 even at this N.
        #expect(try #require(r.total[0]).low > 0.3 && (try #require(r.total[1])).low > 0.3)
    }

    @Test func aConstantOutputHasNoIndices() {
        let r = SobolIndices.analyze(Array(repeating: 1.0, count: 40), dimensions: 2)
        #expect(r.first == [nil, nil] && r.total == [nil, nil])
    }

    @Test func layoutNamesEveryRow() {
        let roles = (0 ..< 5).map { SobolIndices.layout(row: $0, dimensions: 3).role }
        #expect(roles == [.a, .ab(0), .ab(1), .ab(2), .b])
        #expect(SobolIndices.layout(row: 7, dimensions: 3) == (1, .ab(1)))
    }
}

/// PRIM finds a box planted in uniform data.
@Suite struct PRIMTests {
    /// 400 rows of a 3-dimensional Latin hypercube; flagged where x₀ < 0.3 and x₁ > 0.5
    /// (15% of the rows); x₂ plays no part. The first box bounds x₀ above near 0.3 and x₁
    /// below near 0.5, and holds mostly flagged rows.
    @Test func findsAPlantedBox() throws {
        let x = try ExperimentDesign.rows(.lhs, samples: 400, dimensions: 3, seed: 11)
        let flags = x.map { $0[0] < 0.3 && $0[1] > 0.5 }
        let boxes = PRIM.boxes(x, flags: flags)
        let box = try #require(boxes.first)
        let b0 = try #require(box.bounds[0]), b1 = try #require(box.bounds[1])
        #expect(b0.upperBound < 0.3 && b0.upperBound > 0.25, "\(b0)")
        #expect(b1.lowerBound > 0.5 && b1.lowerBound < 0.55, "\(b1)")
        #expect(box.density > 0.9 && box.coverage > 0.8, "\(box)")
        #expect(box.flagged == Int((box.density * Double(box.rows)).rounded()))
    }

    @Test func nothingFlaggedNoBox() {
        #expect(PRIM.boxes([[0.1], [0.2]], flags: [false, false]).isEmpty)
    }

    /// When every row is flagged the first box is the whole space: no input restricted.
    @Test func everythingFlaggedIsEverywhere() throws {
        let boxes = PRIM.boxes([[0.1], [0.5], [0.9]], flags: [true, true, true])
        #expect(boxes.count == 1 && boxes[0].bounds == [nil] && boxes[0].coverage == 1 && boxes[0].density == 1)
    }
}
