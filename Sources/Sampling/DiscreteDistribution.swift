import CGSL

/// A fixed discrete distribution over `0 ..< weights.count`, preprocessed once with
/// Walker's alias method (`gsl_ran_discrete_preproc`) so that each draw is O(1).
public final class DiscreteDistribution {
    let table: UnsafeMutablePointer<gsl_ran_discrete_t>
    public let count: Int

    /// Fails when `weights` is empty, has a negative or non-finite entry, or sums to 0.
    public init?(weights: [Double]) {
        guard !weights.isEmpty, weights.allSatisfy({ $0 >= 0 && $0.isFinite }),
              weights.reduce(0, +) > 0
        else { return nil }
        widgetsim_gsl_disable_abort()
        guard let table = weights.withUnsafeBufferPointer({
            gsl_ran_discrete_preproc($0.count, $0.baseAddress)
        }) else { return nil }
        self.table = table
        self.count = weights.count
    }

    deinit { gsl_ran_discrete_free(table) }

    /// One draw from `stream`.
    public func sample(_ stream: RandomStream) -> Int {
        Int(gsl_ran_discrete(stream.rng, table))
    }

    /// The probability of index `i` as the table holds it.
    public func probability(_ i: Int) -> Double {
        gsl_ran_discrete_pdf(i, table)
    }
}
