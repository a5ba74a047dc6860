import Foundation
import WidgetSimModel
import WidgetSimSampling

/// `comparison.csv`: for every policy pair and metric of a run (over the measured
/// days), the mean over replications with a 95% confidence interval, and the paired
/// difference to the scenario's baseline pair with its own interval (MODEL §6).
///
/// With x_r a metric's value in replication r (replications where it is undefined are
/// left out) and n the replications that remain:
///
///     mean = Σ x_r / n
///     sd   = √( Σ (x_r − mean)² / (n − 1) )
///     half-width = t_{0.975, n−1} · sd / √n           (Student t, GSL; empty when n < 2)
///
/// The paired difference applies the same formulas to d_r = x_{r, pair} − x_{r, baseline},
/// over the replications where both are defined. The baseline compared with itself
/// has d_r = 0 exactly, so its difference is 0 ± 0.
///
/// Why paired intervals are narrower: replication r of every pair simulates the same
/// people — the same views, sessions, content changes and pushes, drawn from the
/// same streams (common random numbers). Most of the spread between replications
/// comes from those people (a replication with busier people has more views, more
/// changes, more staleness under every policy), and it moves x_{r, pair} and
/// x_{r, baseline} together, so it cancels in d_r. What is left is the part of the
/// noise that the two policies react to differently: Var(d) = Var(x) + Var(y) −
/// 2 Cov(x, y), small when the covariance is large. An unpaired interval, built from
/// the two means' separate intervals, keeps all of the shared noise.
public enum Comparison {
    public static let header = [
        "scenario", "budget", "ranking", "baseline_budget", "baseline_ranking", "metric",
        "replications", "mean", "sd", "ci95_half_width", "diff_mean", "diff_sd", "diff_ci95_half_width",
    ]

    /// The mean, standard deviation and 95% half-width of a sample.
    public struct Estimate: Sendable, Equatable {
        /// Values in the sample.
        public var n: Int
        /// nil when n = 0.
        public var mean: Double?
        /// The sample standard deviation (divisor n − 1); nil when n < 2.
        public var sd: Double?
        /// t_{0.975, n−1} · sd / √n; nil when n < 2.
        public var halfWidth: Double?

        public init(_ values: [Double]) {
            n = values.count
            guard n > 0 else { return }
            let m = values.reduce(0, +) / Double(n)
            mean = m
            guard n > 1 else { return }
            let s = (values.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(n - 1)).squareRoot()
            sd = s
            halfWidth = StudentT.quantile(0.975, degreesOfFreedom: Double(n - 1)) * s / Double(n).squareRoot()
        }
    }

    /// One pair's figures for one metric: its own, and its paired difference to the
    /// baseline (n = 0 when the run has no baseline pair).
    public struct Entry: Sendable, Equatable {
        public var value: Estimate
        public var difference: Estimate
    }

    /// The baseline's index in `r.pairs`, or nil when the run does not hold it.
    public static func baselineIndex(_ r: RunResult) -> Int? {
        r.pairs.firstIndex(of: r.scenario.baseline)
    }

    /// The metric's value in each replication of pair `p` (nil where undefined).
    public static func values(_ r: RunResult, pair p: Int, _ metric: Metric) -> [Double?] {
        (0 ..< r.replications).map { rep in
            let t = r.totals[rep][p]
            return metric.compute(t, t.measuredDays)
        }
    }

    public static func entry(_ r: RunResult, pair p: Int, _ metric: Metric) -> Entry {
        let xs = values(r, pair: p, metric)
        var diffs: [Double] = []
        if let b = baselineIndex(r) {
            let ys = b == p ? xs : values(r, pair: b, metric)
            diffs = zip(xs, ys).compactMap { x, y in
                guard let x, let y else { return nil }
                return x - y
            }
        }
        return Entry(value: Estimate(xs.compactMap { $0 }), difference: Estimate(diffs))
    }

    /// The header of a study's `comparison.csv`: the study columns follow the pairs'.
    public static func header(_ study: Study) -> [String] {
        let at = header.firstIndex(of: "metric")!
        return Array(header[..<at]) + ReportWriter.studyColumns(study) + Array(header[at...])
    }

    /// `comparison.csv` of a study: each point's rows (its pairs against its own
    /// baseline pair), in point order.
    public static func csv(_ results: [RunResult], study: Study) -> String {
        var out = CSV.row(header(study))
        for (k, r) in results.enumerated() {
            let fields = ReportWriter.studyFields(study, point: k)
            for var row in rows(r) {
                row.insert(contentsOf: fields, at: 5)
                out += CSV.row(row)
            }
        }
        return out
    }

    /// One row per pair × metric, pairs in run order, metrics in `Metrics.all` order.
    public static func rows(_ r: RunResult) -> [[String]] {
        let s = r.scenario
        var rows: [[String]] = []
        rows.reserveCapacity(r.pairs.count * Metrics.all.count)
        for (p, pair) in r.pairs.enumerated() {
            for metric in Metrics.all {
                let e = entry(r, pair: p, metric)
                rows.append([
                    s.name, pair.budget, pair.ranking, s.baseline.budget, s.baseline.ranking, metric.name,
                    String(e.value.n), number(e.value.mean), number(e.value.sd), number(e.value.halfWidth),
                    number(e.difference.mean), number(e.difference.sd), number(e.difference.halfWidth),
                ])
            }
        }
        return rows
    }

    /// `comparison.csv` for several runs (`widgetsim batch`): the header, then each
    /// run's rows in the order given.
    public static func csv(_ results: [RunResult]) -> String {
        var out = CSV.row(header)
        for r in results {
            for row in rows(r) { out += CSV.row(row) }
        }
        return out
    }

    /// Six decimals, empty when undefined; a value that rounds to zero prints as
    /// `0.000000`, never `-0.000000`.
    static func number(_ v: Double?) -> String {
        let s = CSV.number(v)
        return s == "-0.000000" ? "0.000000" : s
    }
}
