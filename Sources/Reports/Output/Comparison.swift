import Foundation
import WidgetSimExecution
import WidgetSimModel
import WidgetSimSampling

/// `comparison.csv`: for every policy pair and metric of a run (over the measured
/// days), the mean with a 95% confidence interval, and the paired difference to the
/// scenario's baseline pair with its own interval (MODEL §6).
///
/// The interval is over independent **groups**: the replications when there are two or
/// more; with one replication, the blocks of people (`BlockPlan`: people are
/// independent, so each block is an independent batch — the method of batch means).
/// With x_g a metric's value in group g (groups where it is undefined are left out) and
/// n the groups that remain:
///
///     mean = Σ x_g / n                     (replications; with blocks, the run's own value)
///     sd   = √( Σ (x_g − x̄)² / (n − 1) )
///     half-width = t_{0.975, n−1} · sd / √n           (Student t, GSL; empty when n < 2)
///
/// A block's total (a count, energy) is scaled to the run's people (× P / P_block) so that
/// it estimates the same quantity as the run; ratios and means are taken as they are.
///
/// The paired difference applies the same formulas to d_g = x_{g, pair} − x_{g, baseline},
/// over the groups where both are defined. The baseline's difference to itself is empty.
///
/// Why paired intervals are narrower: group g of every pair simulates the same
/// people — the same views, sessions, content changes and pushes, drawn from the
/// same streams (common random numbers). Most of the spread between groups
/// comes from those people (busier people have more views, more changes, more
/// staleness under every policy), and it moves x_{g, pair} and x_{g, baseline}
/// together, so it cancels in d_g. What is left is the part of the noise that the two
/// policies react to differently: Var(d) = Var(x) + Var(y) − 2 Cov(x, y), small when
/// the covariance is large. An unpaired interval, built from the two means' separate
/// intervals, keeps all of the shared noise.
public enum Comparison {
    public static var header: [String] { Schema.comparisonColumns.map(\.name) }

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

        public init(_ values: [Double]) { self.init(values, mean: nil) }

        /// The spread of `values`; the mean given, or theirs.
        public init(_ values: [Double], mean given: Double?) {
            n = values.count
            guard n > 0 else { mean = given; return }
            let m = values.reduce(0, +) / Double(n)
            mean = given ?? m
            guard n > 1 else { return }
            let s = (values.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(n - 1)).squareRoot()
            sd = s
            halfWidth = StudentT.quantile(0.975, degreesOfFreedom: Double(n - 1)) * s / Double(n).squareRoot()
        }

        static let empty = Estimate([])
    }

    /// One pair's figures for one metric: its own, and its paired difference to the
    /// baseline (n = 0 and no mean for the baseline itself, or when the run has none).
    public struct Entry: Sendable, Equatable {
        public var value: Estimate
        public var difference: Estimate
    }

    /// What intervals are computed over.
    public enum Source: String, Sendable { case replications, blocks }

    public static func source(_ r: RunResult) -> Source {
        r.replications == 1 && !r.blockTotals.isEmpty ? .blocks : .replications
    }

    /// The baseline's index in `r.pairs`, or nil when the run does not hold it.
    public static func baselineIndex(_ r: RunResult) -> Int? {
        r.pairs.firstIndex(of: r.scenario.baseline)
    }

    /// The metric's value in each group of pair `p` (nil where undefined), block totals
    /// scaled to the run's people.
    public static func groupValues(_ r: RunResult, pair p: Int, _ metric: Metric, days: Range<Int>? = nil) -> [Double?] {
        switch source(r) {
        case .replications:
            return (0 ..< r.replications).map { rep in
                let t = r.totals[rep][p]
                return metric.compute(t, days ?? t.measuredDays)
            }
        case .blocks:
            let people = Double(r.totals[0][p].people)
            return r.blockTotals.map { block in
                let t = block[p]
                guard t.people > 0, let v = metric.compute(t, days ?? t.measuredDays) else { return nil }
                return metric.extensive ? v * people / Double(t.people) : v
            }
        }
    }

    /// The run's own value (one replication), which the mean of block values only approximates.
    static func pooled(_ r: RunResult, pair p: Int, _ metric: Metric, days: Range<Int>?) -> Double? {
        let t = r.totals[0][p]
        return metric.compute(t, days ?? t.measuredDays)
    }

    public static func entry(_ r: RunResult, pair p: Int, _ metric: Metric, days: Range<Int>? = nil) -> Entry {
        let blocks = source(r) == .blocks
        let xs = groupValues(r, pair: p, metric, days: days)
        let value = Estimate(xs.compactMap { $0 }, mean: blocks ? pooled(r, pair: p, metric, days: days) : nil)
        guard let b = baselineIndex(r), b != p else { return Entry(value: value, difference: .empty) }
        let ys = groupValues(r, pair: b, metric, days: days)
        let diffs = zip(xs, ys).compactMap { x, y -> Double? in
            guard let x, let y else { return nil }
            return x - y
        }
        var mean: Double? = nil
        if blocks {
            if let x = pooled(r, pair: p, metric, days: days), let y = pooled(r, pair: b, metric, days: days) { mean = x - y }
            else { return Entry(value: value, difference: .empty) }
        }
        return Entry(value: value, difference: Estimate(diffs, mean: mean))
    }

    /// The table: one row per pair × metric, pairs in run order, metrics in `Metrics.all` order.
    public static func table(_ results: [RunResult]) -> Table {
        var table = Table(file: "comparison.csv", rows: Schema.comparisonRows, columns: Schema.comparisonColumns)
        for r in results {
            let s = r.scenario
            let over = source(r).rawValue
            for (p, pair) in r.pairs.enumerated() {
                for metric in Metrics.all {
                    let e = entry(r, pair: p, metric)
                    table.rows.append([
                        s.name, pair.budget, pair.ranking, String(s.seed), s.baseline.budget, s.baseline.ranking,
                        metric.name, metric.unit, String(r.replications), over,
                        String(e.value.n), number(e.value.mean), number(e.value.sd), number(e.value.halfWidth),
                        number(e.difference.mean), number(e.difference.sd), number(e.difference.halfWidth),
                    ])
                }
            }
        }
        return table
    }

    public static func csv(_ results: [RunResult]) -> String { table(results).csv }

    /// The rows of one run, every column (before empty columns are left out).
    public static func rows(_ r: RunResult) -> [[String]] { table([r]).rows }

    /// The metric's value in each replication (or block) of pair `p`.
    public static func values(_ r: RunResult, pair p: Int, _ metric: Metric) -> [Double?] {
        groupValues(r, pair: p, metric)
    }

    static func number(_ v: Double?) -> String { CSV.number(v) }
}
