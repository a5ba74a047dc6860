import CGSL

/// Student's t distribution, for confidence intervals over replications.
public enum StudentT {
    /// The quantile t_{p, ν}: the x with P(T ≤ x) = p for T ~ t with ν =
    /// `degreesOfFreedom` (`gsl_cdf_tdist_Pinv`). ν need not be whole; as ν grows the
    /// quantile tends to the standard normal's (t_{0.975, ∞} = 1.959963985).
    ///
    /// - Precondition: 0 < p < 1 and ν > 0 (GSL would return NaN or ±∞).
    public static func quantile(_ p: Double, degreesOfFreedom: Double) -> Double {
        precondition(p > 0 && p < 1, "a t quantile needs 0 < p < 1, got \(p)")
        precondition(degreesOfFreedom > 0, "a t quantile needs positive degrees of freedom, got \(degreesOfFreedom)")
        widgetsim_gsl_disable_abort()
        return gsl_cdf_tdist_Pinv(p, degreesOfFreedom)
    }
}
