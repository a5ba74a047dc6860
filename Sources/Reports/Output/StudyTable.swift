import WidgetSimModel

/// `study.csv`: one row per study point × policy pair, with each headline metric's mean
/// over replications and its 95% interval, and the paired difference to the same pair
/// at the study's baseline point with its interval.
///
/// Replication r of every point simulates the same people from the same random streams
/// (common random numbers), so for a pair, d_r = x_{r, point} − x_{r, baseline point}
/// cancels the spread between people the way `comparison.csv`'s differences between
/// pairs do; the formulas are those of `Comparison.Estimate`, over the replications
/// where both values are defined. A point that a parameter cannot affect has d_r = 0
/// exactly. The difference is empty when the baseline point was not run (`--point K`).
public enum StudyTable {
    /// The metrics of the table, in column order.
    public static let metrics = [
        "accuracy", "stale_top_share", "stale_view_share", "mean_staleness_minutes", "reloads_per_widget_day",
        "reloads_charged", "requests_denied", "requests_deferred", "exhausted_share", "energy",
    ]

    public static func header(_ study: Study) -> [String] {
        ["scenario", "point"] + study.parameters + ["budget", "ranking", "baseline_point", "replications"]
            + metrics.flatMap { [$0 + "_mean", $0 + "_ci95_half_width", $0 + "_diff_mean", $0 + "_diff_ci95_half_width"] }
    }

    public static func csv(_ results: [RunResult], study: Study) -> String {
        var out = CSV.row(header(study))
        for row in rows(results, study: study) { out += CSV.row(row) }
        return out
    }

    /// The table's figures for one point, pair and metric.
    public static func entry(_ results: [RunResult], study: Study, point k: Int, pair p: Int, _ metric: Metric)
        -> Comparison.Entry
    {
        let xs = Comparison.values(results[k], pair: p, metric)
        var diffs: [Double] = []
        if let b = study.baselineIndex, let q = results[b].pairs.firstIndex(of: results[k].pairs[p]) {
            let ys = b == k ? xs : Comparison.values(results[b], pair: q, metric)
            diffs = zip(xs, ys).compactMap { x, y in
                guard let x, let y else { return nil }
                return x - y
            }
        }
        return Comparison.Entry(value: Comparison.Estimate(xs.compactMap { $0 }), difference: Comparison.Estimate(diffs))
    }

    public static func rows(_ results: [RunResult], study: Study) -> [[String]] {
        let byName = Dictionary(uniqueKeysWithValues: Metrics.all.map { ($0.name, $0) })
        var rows: [[String]] = []
        for (k, r) in results.enumerated() {
            for (p, pair) in r.pairs.enumerated() {
                var row = [r.scenario.name, String(study.points[k].number)] + study.points[k].values
                row += [pair.budget, pair.ranking, String(study.baselinePoint), String(r.replications)]
                for name in metrics {
                    let e = entry(results, study: study, point: k, pair: p, byName[name]!)
                    row += [Comparison.number(e.value.mean), Comparison.number(e.value.halfWidth),
                            Comparison.number(e.difference.mean), Comparison.number(e.difference.halfWidth)]
                }
                rows.append(row)
            }
        }
        return rows
    }
}
