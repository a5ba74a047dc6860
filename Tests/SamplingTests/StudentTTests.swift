import Testing
import WidgetSimSampling

/// `StudentT.quantile` against published table values (two-sided 95%: p = 0.975), to
/// 1e-6. The values are those of standard t tables to nine decimals (e.g. R's
/// `qt(0.975, df)`).
@Suite struct StudentTTests {
    @Test(arguments: [
        (1.0, 12.706204736),
        (2.0, 4.302652730),
        (4.0, 2.776445105),
        (9.0, 2.262157163),
        (29.0, 2.045229642),
    ])
    func upperQuantile(df: Double, expected: Double) {
        let t = StudentT.quantile(0.975, degreesOfFreedom: df)
        #expect(abs(t - expected) < 1e-6, "t_{0.975, \(df)} = \(t), table \(expected)")
    }

    /// As ν → ∞ the t distribution tends to the standard normal: z_{0.975} = 1.959963985.
    /// At ν = 10⁸ the gap is about (z³ + z) / (4ν) ≈ 2e-8.
    @Test func largeDegreesOfFreedomTendToNormal() {
        let t = StudentT.quantile(0.975, degreesOfFreedom: 1e8)
        #expect(abs(t - 1.959963985) < 1e-6, "t_{0.975, 1e8} = \(t)")
    }

    /// The distribution is symmetric: t_{1−p} = −t_p, and the median is 0.
    @Test func symmetry() {
        for df in [1.0, 3.0, 12.5] {
            let hi = StudentT.quantile(0.975, degreesOfFreedom: df)
            let lo = StudentT.quantile(0.025, degreesOfFreedom: df)
            #expect(abs(hi + lo) < 1e-9, "df \(df): \(lo) vs \(hi)")
            #expect(abs(StudentT.quantile(0.5, degreesOfFreedom: df)) < 1e-12)
        }
    }

    /// Quantiles shrink towards the normal's as degrees of freedom grow.
    @Test func decreasingInDegreesOfFreedom() {
        let ts = [1.0, 2, 3, 5, 10, 30, 100, 1000].map { StudentT.quantile(0.975, degreesOfFreedom: $0) }
        #expect(zip(ts, ts.dropFirst()).allSatisfy { $0 > $1 }, "\(ts)")
    }
}
