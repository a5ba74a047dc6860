import Foundation
import WidgetSimModel

/// The short table printed after a run: headline metrics per policy pair (the mean
/// over replications).
public enum SummaryTable {
    static let columns: [(header: String, metric: String, format: String)] = [
        ("accuracy", "accuracy", "%.3f"),
        ("ceiling", "ceiling", "%.3f"),
        ("reloads/widget-day", "reloads_per_widget_day", "%.1f"),
        ("charged", "reloads_charged", "%.0f"),
        ("denied", "requests_denied", "%.0f"),
        ("stale views", "stale_view_share", "%.3f"),
        ("staleness min", "mean_staleness_minutes", "%.1f"),
    ]

    public static func render(_ r: RunResult) -> String {
        let metrics = Dictionary(uniqueKeysWithValues: Metrics.all.map { ($0.name, $0) })
        var rows: [[String]] = [["budget", "ranking"] + columns.map(\.header)]
        for (p, pair) in r.pairs.enumerated() {
            var row = [pair.budget, pair.ranking]
            for c in columns {
                let values = (0 ..< r.replications).compactMap { rep -> Double? in
                    let t = r.totals[rep][p]
                    return metrics[c.metric]!.compute(t, t.measuredDays)
                }
                row.append(values.isEmpty ? "–" : String(format: c.format, values.reduce(0, +) / Double(values.count)))
            }
            rows.append(row)
        }
        let widths = rows[0].indices.map { i in rows.map { $0[i].count }.max()! }
        return rows.map { row in
            row.enumerated().map { i, cell in
                i < 2 ? cell.padding(toLength: widths[i], withPad: " ", startingAt: 0)
                      : String(repeating: " ", count: widths[i] - cell.count) + cell
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
