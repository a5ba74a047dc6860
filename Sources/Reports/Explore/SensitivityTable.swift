import Foundation
import WidgetSimExecution
import WidgetSimModel
import WidgetSimSampling

/// `sensitivity.csv`: Sobol' first-order and total indices of each explored value for
/// each pair and headline metric, when the study explores with `method: sobol` (whose
/// points follow Saltelli's design; `SobolIndices` gives the estimators and the
/// bootstrap). The model's output in a world is the pair's value there (as in
/// `study.csv`); a value that cannot change it (a quota's limit, for the `unlimited`
/// pair: every world sees the same people) has indices of exactly 0.
public enum SensitivityTable {
    public static let file = "sensitivity.csv"
    public static let rowsMeaning = "an exploring study with `method: sobol` only: one per budget × ranking pair × headline metric × explored value"
    /// Bootstrap resamples of the base samples behind each interval.
    public static let resamples = 1000

    public static var columns: [Column] {
        let flat = "the metric does not vary over the worlds, or fewer than two base samples have every value defined"
        return [
            Column("scenario", .string, "the scenario's name"),
            Column("seed", .integer, "the scenario's seed (0 … 2^63 − 1)"),
            Column("budget", .string, "the budget policy's label"),
            Column("ranking", .string, "the ranking policy's label"),
            Column("metric", .string, "the headline metric (those of study.csv)"),
            Column("parameter", .string, "the explored value's path"),
            Column("low", .string, "the lower end of its range, as written"),
            Column("high", .string, "the upper end of its range, as written"),
            Column("base_samples", .integer, "base samples N of Saltelli's design with the metric defined at all of their d + 2 points"),
            Column("first_order", .double, unit: "share", "first-order Sobol index S_i: the share of the metric's variance over the worlds due to this value alone (Saltelli 2010 estimator)", empty: flat),
            Column("first_order_ci95_low", .double, unit: "share", "2.5% percentile of S_i over \(resamples) bootstrap resamples of the base samples", empty: flat),
            Column("first_order_ci95_high", .double, unit: "share", "97.5% percentile of S_i over the bootstrap resamples", empty: flat),
            Column("total", .double, unit: "share", "total Sobol index ST_i: the share of the variance due to this value, its interactions included (Jansen estimator)", empty: flat),
            Column("total_ci95_low", .double, unit: "share", "2.5% percentile of ST_i over the bootstrap resamples", empty: flat),
            Column("total_ci95_high", .double, unit: "share", "97.5% percentile of ST_i over the bootstrap resamples", empty: flat),
        ]
    }

    /// Nil unless the study explores with Saltelli's design and every point was run.
    public static func table(_ results: [RunResult], study: Study) -> Table? {
        guard let design = study.design, design.isSaltelli, results.count == study.totalPoints, let first = results.first else { return nil }
        var table = Table(file: file, rows: rowsMeaning, columns: columns)
        let s = first.scenario
        let d = design.ranges.count
        for (p, pair) in first.pairs.enumerated() {
            for name in StudyTable.metrics {
                let metric = Metrics.named(name)!
                let outputs: [Double?] = results.map { r in
                    r.pairs.firstIndex(of: pair).flatMap { Comparison.entry(r, pair: $0, metric).value.mean }
                }
                let a = SobolIndices.analyze(outputs, dimensions: d, resamples: resamples, seed: design.seed &+ UInt64(p))
                for (i, range) in design.ranges.enumerated() {
                    let f = a.first[i], t = a.total[i]
                    table.rows.append([
                        s.name, String(s.seed), pair.budget, pair.ranking, name, range.path, range.low, range.high, String(a.samples),
                        CSV.number(f?.value), CSV.number(f?.low), CSV.number(f?.high),
                        CSV.number(t?.value), CSV.number(t?.low), CSV.number(t?.high),
                    ])
                }
            }
        }
        return table
    }
}
