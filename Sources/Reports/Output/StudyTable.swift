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

extension StudyTable {
    /// The short table printed after a study: per point and pair, the stale share,
    /// reloads per widget-day and accuracy (as `SummaryTable` shows them), each with its
    /// paired difference to the same pair at the baseline point (`Δ`, 95%).
    public static func render(_ results: [RunResult], study: Study) -> String {
        let shown = SummaryTable.columns.filter { $0.span == .measured && ["stale_view_share", "reloads_per_widget_day", "accuracy"].contains($0.metric) }
        let byName = Dictionary(uniqueKeysWithValues: Metrics.all.map { ($0.name, $0) })
        let reps = results.first?.replications ?? 1
        var lines = ["study of \(study.totalPoints) points; \(reps == 1 ? "1 replication; mean" : "\(reps) replications; mean±95%")"
            + " and paired difference to point \(study.baselinePoint) (Δ); * baseline point"]
        var table: [[String]] = [["point"] + study.parameters + ["budget", "ranking"]
            + shown.flatMap { [$0.header, "Δ " + $0.header] }]
        for (k, r) in results.enumerated() {
            let point = study.points[k]
            for (p, pair) in r.pairs.enumerated() {
                var row = [String(point.number) + (point.number == study.baselinePoint ? " *" : "")] + point.values
                row += [pair.budget, pair.ranking]
                for c in shown {
                    let e = entry(results, study: study, point: k, pair: p, byName[c.metric]!)
                    row += [SummaryTable.cell(e.value, c, signed: false),
                            e.difference.n == 0 ? "–" : SummaryTable.cell(e.difference, c, signed: true)]
                }
                table.append(row)
            }
        }
        let widths = table[0].indices.map { i in table.map { $0[i].count }.max()! }
        let text = 1 + study.parameters.count + 2
        for row in table {
            var line = row.enumerated().map { i, cell in
                i < text ? cell.padding(toLength: widths[i], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[i] - cell.count) + cell
            }.joined(separator: "  ")
            while line.last == " " { line.removeLast() }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}
