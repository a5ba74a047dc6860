import Foundation

/// Variance-based sensitivity indices (Sobol' indices) of a model's output to each of its
/// d inputs, from Saltelli's design, with bootstrap intervals.
///
/// **Design** (Saltelli et al., "Variance based sensitivity analysis of model output.
/// Design and estimator for the total sensitivity index", Computer Physics
/// Communications 181 (2010) 259–270): two independent N × d sample matrices A and B
/// (the first and the last d columns of N rows of a 2d-dimensional sequence), and for
/// each input i the matrix AB_i: A with its column i taken from B. The model runs at
/// N (d + 2) rows, laid out by base sample j as A_j, AB_1j, …, AB_dj, B_j (`layout`).
///
/// **Estimators**, with f the outputs and V the variance of f over the 2N rows of A and B:
///
///     first order  S_i  = (1/N) Σ_j (f(B)_j − f̄) (f(AB_i)_j − f(A)_j) / V   (Saltelli 2010, table 2 (b))
///     total        ST_i = (1/2N) Σ_j (f(A)_j − f(AB_i)_j)² / V          (Jansen 1999; Saltelli 2010, table 2 (f))
///
/// with f̄ the mean over the 2N rows of A and B: subtracting it leaves the estimator's
/// expectation as it is (E[f(AB_i) − f(A)] = 0) and removes the part of its variance that
/// grows with the output's mean (Sobol' 2001, "Global sensitivity indices for nonlinear
/// mathematical models and their Monte Carlo estimates", Math. Comput. Simul. 55, §5).
///
/// An input the model never reads gives f(AB_i) = f(A) in every row, hence S_i = ST_i = 0
/// exactly. **Intervals**: the percentile bootstrap over base samples (Efron & Tibshirani,
/// "An Introduction to the Bootstrap", 1993): `resamples` draws of N base samples with
/// replacement (a Mersenne Twister seeded with `seed`), both indices recomputed on each,
/// the 2.5% and 97.5% quantiles of the draws (linear interpolation between order
/// statistics). Base samples where any of the d + 2 outputs is missing are left out.
public enum SobolIndices {
    /// Rows of the model per base sample: A, the d matrices AB_i, and B.
    public static func rowsPerSample(dimensions d: Int) -> Int { d + 2 }

    /// Which matrix row k of the design belongs to.
    public enum Role: Equatable, Sendable {
        case a, b
        /// AB_i: A with column i from B.
        case ab(Int)
    }

    /// Row k of the design: its base sample j and matrix.
    public static func layout(row k: Int, dimensions d: Int) -> (sample: Int, role: Role) {
        let j = k / (d + 2), r = k % (d + 2)
        return (j, r == 0 ? .a : r == d + 1 ? .b : .ab(r - 1))
    }

    /// N base rows of 2d coordinates from GSL's Sobol sequence, after its first M
    /// points, M the smallest power of 2 at least N (and 4): the N rows are then one
    /// balanced block of the sequence (Owen, "On dropping the first Sobol' point", 2020;
    /// SALib's advice for Saltelli's design). The first points would otherwise give
    /// equal A and B rows: GSL's sequence starts (1/2, …), then (3/4, 1/4, 3/4, 1/4, …).
    public static func sobolBase(samples n: Int, dimensions d: Int) throws(ExperimentDesign.Failure) -> [[Double]] {
        var skip = 4
        while skip < n { skip *= 2 }
        return Array(try ExperimentDesign.rows(.sobol, samples: skip + n, dimensions: 2 * d, seed: 0).suffix(n))
    }

    /// The design's N (d + 2) rows in [0, 1)^d from `base`, N rows of 2d coordinates
    /// (A from the first d, B from the last d), in `layout` order.
    public static func design(base: [[Double]], dimensions d: Int) -> [[Double]] {
        var rows: [[Double]] = []
        rows.reserveCapacity(base.count * (d + 2))
        for row in base {
            let a = Array(row[0 ..< d]), b = Array(row[d ..< 2 * d])
            rows.append(a)
            for i in 0 ..< d {
                var ab = a
                ab[i] = b[i]
                rows.append(ab)
            }
            rows.append(b)
        }
        return rows
    }

    /// An index with its 95% bootstrap interval.
    public struct Estimate: Sendable, Equatable {
        public var value: Double
        public var low: Double
        public var high: Double
        public init(value: Double, low: Double, high: Double) {
            self.value = value
            self.low = low
            self.high = high
        }
    }

    public struct Result: Sendable {
        /// Base samples used (those with every output defined).
        public var samples: Int
        /// Per input: first-order and total indices; nil when the output does not vary.
        public var first: [Estimate?]
        public var total: [Estimate?]
    }

    /// The indices from `outputs`, the model's values at the design's rows in `layout`
    /// order (nil where undefined).
    public static func analyze(_ outputs: [Double?], dimensions d: Int, resamples: Int = 1000, seed: UInt64 = 1) -> Result {
        let per = d + 2
        var fA: [Double] = [], fB: [Double] = [], fAB: [[Double]] = Array(repeating: [], count: d)
        for j in 0 ..< outputs.count / per {
            let block = outputs[j * per ..< (j + 1) * per]
            guard block.allSatisfy({ $0 != nil }) else { continue }
            let v = block.map { $0! }
            fA.append(v[0])
            fB.append(v[d + 1])
            for i in 0 ..< d { fAB[i].append(v[1 + i]) }
        }
        let n = fA.count
        let all = Array(0 ..< n)
        func indices(_ rows: [Int]) -> (first: [Double], total: [Double])? {
            let m = Double(rows.count)
            var sum = 0.0, sum2 = 0.0
            for j in rows { sum += fA[j] + fB[j] }
            let mean = sum / (2 * m)
            for j in rows { sum2 += (fA[j] - mean) * (fA[j] - mean) + (fB[j] - mean) * (fB[j] - mean) }
            let v = sum2 / (2 * m)
            guard v > 0, v.isFinite else { return nil }
            var first: [Double] = [], total: [Double] = []
            for i in 0 ..< d {
                var s = 0.0, t = 0.0
                for j in rows {
                    let diff = fAB[i][j] - fA[j]
                    s += (fB[j] - mean) * diff
                    t += diff * diff
                }
                first.append(s / m / v)
                total.append(t / (2 * m) / v)
            }
            return (first, total)
        }
        guard n >= 2, let point = indices(all) else {
            return Result(samples: n, first: Array(repeating: nil, count: d), total: Array(repeating: nil, count: d))
        }
        let stream = RandomStream(kind: .mt19937, seed: UInt(truncatingIfNeeded: seed))
        var drawsFirst = Array(repeating: [Double](), count: d), drawsTotal = Array(repeating: [Double](), count: d)
        for _ in 0 ..< resamples {
            let rows = (0 ..< n).map { _ in stream.uniformInt(n) }
            guard let r = indices(rows) else { continue }
            for i in 0 ..< d {
                drawsFirst[i].append(r.first[i])
                drawsTotal[i].append(r.total[i])
            }
        }
        func estimate(_ value: Double, _ draws: [Double]) -> Estimate {
            let sorted = draws.sorted()
            guard !sorted.isEmpty else { return Estimate(value: value, low: value, high: value) }
            return Estimate(value: value, low: quantile(sorted, 0.025), high: quantile(sorted, 0.975))
        }
        return Result(samples: n,
                      first: (0 ..< d).map { estimate(point.first[$0], drawsFirst[$0]) },
                      total: (0 ..< d).map { estimate(point.total[$0], drawsTotal[$0]) })
    }

    /// The p-quantile of sorted values, interpolating linearly between order statistics
    /// (Hyndman & Fan's type 7, as `gsl_stats_quantile_from_sorted_data`).
    public static func quantile(_ sorted: [Double], _ p: Double) -> Double {
        let h = (Double(sorted.count) - 1) * p
        let lo = Int(h.rounded(.down)), hi = min(lo + 1, sorted.count - 1)
        return sorted[lo] + (h - Double(lo)) * (sorted[hi] - sorted[lo])
    }
}
