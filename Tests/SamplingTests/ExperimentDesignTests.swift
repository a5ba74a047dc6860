import Foundation
import Testing
import WidgetSimSampling

/// The sample designs: Latin hypercubes stratify every axis and repeat from their seed;
/// GSL's Sobol and Halton sequences give their published first points.
@Suite struct ExperimentDesignTests {
    /// Every one of the n strata of every axis holds exactly one row.
    @Test func latinHypercubeStratifiesEveryAxis() throws {
        let n = 37, d = 5
        let rows = try ExperimentDesign.rows(.lhs, samples: n, dimensions: d, seed: 42)
        #expect(rows.count == n && rows.allSatisfy { $0.count == d })
        for j in 0 ..< d {
            let strata = rows.map { Int(($0[j] * Double(n)).rounded(.down)) }.sorted()
            #expect(strata == Array(0 ..< n), "axis \(j)")
        }
    }

    @Test func latinHypercubeRepeatsFromItsSeed() throws {
        let a = try ExperimentDesign.rows(.lhs, samples: 16, dimensions: 3, seed: 7)
        let b = try ExperimentDesign.rows(.lhs, samples: 16, dimensions: 3, seed: 7)
        let c = try ExperimentDesign.rows(.lhs, samples: 16, dimensions: 3, seed: 8)
        #expect(a == b)
        #expect(a != c)
    }

    /// Sobol' in two dimensions (Bratley & Fox): 1/2; then 3/4, 1/4; then 1/4, 3/4; then 3/8, 3/8.
    @Test func sobolFirstPoints() throws {
        let rows = try ExperimentDesign.rows(.sobol, samples: 4, dimensions: 2, seed: 0)
        #expect(rows == [[0.5, 0.5], [0.75, 0.25], [0.25, 0.75], [0.375, 0.375]])
    }

    /// Halton: the radical inverses of 1, 2, 3 in bases 2 and 3.
    @Test func haltonFirstPoints() throws {
        let rows = try ExperimentDesign.rows(.halton, samples: 3, dimensions: 2, seed: 0)
        let expected = [[0.5, 1.0 / 3], [0.25, 2.0 / 3], [0.75, 1.0 / 9]]
        for (r, e) in zip(rows, expected) {
            for (x, y) in zip(r, e) { #expect(abs(x - y) < 1e-12, "\(r) against \(e)") }
        }
    }

    @Test func sobolHasAtMostFortyDimensions() {
        #expect(ExperimentDesign.maximumDimensions(.sobol) == 40)
        #expect(throws: ExperimentDesign.Failure.tooManyDimensions(.sobol, 41, maximum: 40)) {
            try ExperimentDesign.rows(.sobol, samples: 2, dimensions: 41, seed: 0)
        }
    }
}

/// Clopper–Pearson intervals against their closed forms and a table value.
@Suite struct BinomialIntervalTests {
    @Test func allSuccessesAndNone() throws {
        let all = try #require(BinomialInterval.clopperPearson(successes: 20, trials: 20))
        #expect(all.upperBound == 1 && abs(all.lowerBound - pow(0.025, 1.0 / 20)) < 1e-9)
        let none = try #require(BinomialInterval.clopperPearson(successes: 0, trials: 20))
        #expect(none.lowerBound == 0 && abs(none.upperBound - (1 - pow(0.025, 1.0 / 20))) < 1e-9)
    }

    /// 5 of 10: 0.187086 … 0.812914 (the exact interval's table value).
    @Test func halfOfTen() throws {
        let i = try #require(BinomialInterval.clopperPearson(successes: 5, trials: 10))
        #expect(abs(i.lowerBound - 0.187086) < 1e-6 && abs(i.upperBound - 0.812914) < 1e-6)
    }
}
