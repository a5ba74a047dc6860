import CGSL

/// The exact (Clopper–Pearson) confidence interval of a binomial proportion: k successes
/// in n trials (Clopper & Pearson, "The use of confidence or fiducial limits illustrated
/// in the case of the binomial", Biometrika 26 (1934) 404–413), from the beta quantiles
/// of GSL (`gsl_cdf_beta_Pinv`):
///
///     low  = B⁻¹(α/2; k, n − k + 1)       (0 when k = 0)
///     high = B⁻¹(1 − α/2; k + 1, n − k)   (1 when k = n)
///
/// It never holds less than its level, and stays inside [0, 1]: with every trial a
/// success, it is [(α/2)^(1/n), 1].
public enum BinomialInterval {
    public static func clopperPearson(successes k: Int, trials n: Int, level: Double = 0.95) -> ClosedRange<Double>? {
        guard n > 0, k >= 0, k <= n else { return nil }
        let alpha = 1 - level
        let low = k == 0 ? 0 : gsl_cdf_beta_Pinv(alpha / 2, Double(k), Double(n - k + 1))
        let high = k == n ? 1 : gsl_cdf_beta_Pinv(1 - alpha / 2, Double(k + 1), Double(n - k))
        return low ... high
    }
}
