import Foundation
import WidgetSimExecution
import WidgetSimModel
import WidgetSimSampling

/// `discovery.csv`: scenario discovery for an exploring study. For each pair other than
/// the baseline and each headline metric, the boxes of explored ranges where the pair
/// loses to the baseline beyond noise (`RobustTable.verdict`), found by PRIM (`PRIM`:
/// peeling by 5% of the worlds inside, down to 5% of the worlds; the box of largest
/// coverage × density kept; up to three boxes by covering). A pair that never loses
/// has no rows.
public enum DiscoveryTable {
    public static let file = "discovery.csv"
    public static let rowsMeaning = "an exploring study only: one per box of explored ranges where a pair (not the baseline) loses to the baseline on a headline metric, boxes numbered from 1 per pair and metric"

    public static var columns: [Column] {
        [
            Column("scenario", .string, "the scenario's name"),
            Column("seed", .integer, "the scenario's seed (0 … 2^63 − 1)"),
            Column("budget", .string, "the budget policy's label"),
            Column("ranking", .string, "the ranking policy's label"),
            Column("baseline_budget", .string, "the baseline pair's budget label"),
            Column("baseline_ranking", .string, "the baseline pair's ranking label"),
            Column("metric", .string, "the headline metric"),
            Column("box", .integer, "the box's number: 1 is PRIM's first box, the next ones cover losses outside the earlier boxes"),
            Column("worlds", .integer, "sampled worlds (with a verdict) inside the box"),
            Column("losses", .integer, "of those, worlds where the pair loses to the baseline beyond noise"),
            Column("coverage", .double, unit: "share", "losses inside the box ÷ every loss of the pair on the metric"),
            Column("density", .double, unit: "share", "losses inside the box ÷ worlds inside the box"),
            Column("box_ranges", .string, "the box: `path ≥ low`, `path ≤ high`, `low ≤ path ≤ high` or `path = value` for each restricted value, joined by ` and ` (the smallest and largest values of the worlds inside; durations in seconds); `everywhere` when no value is restricted"),
        ]
    }

    /// One box: the pair, the metric and PRIM's box with its text.
    public struct Found: Sendable {
        public var pair: PolicyPair
        public var metric: String
        public var box: PRIM.Box
        public var text: String
    }

    public static func boxes(_ results: [RunResult], study: Study) -> [Found] {
        guard let design = study.design, results.count == study.totalPoints, let first = results.first else { return [] }
        var out: [Found] = []
        let lowest = (0 ..< design.ranges.count).map { j in design.numbers.map { $0[j] }.min() ?? 0 }
        let highest = (0 ..< design.ranges.count).map { j in design.numbers.map { $0[j] }.max() ?? 0 }
        for pair in first.pairs where pair != first.scenario.baseline {
            for name in StudyTable.metrics {
                let metric = Metrics.named(name)!
                var inputs: [[Double]] = [], flags: [Bool] = []
                for (k, r) in results.enumerated() {
                    guard let p = r.pairs.firstIndex(of: pair), let v = RobustTable.verdict(r, pair: p, metric) else { continue }
                    inputs.append(design.numbers[study.points[k].number])
                    flags.append(v < 0)
                }
                for box in PRIM.boxes(inputs, flags: flags) {
                    out.append(Found(pair: pair, metric: name, box: box,
                                     text: describe(box, paths: design.ranges.map(\.path), lowest: lowest, highest: highest)))
                }
            }
        }
        return out
    }

    static func describe(_ box: PRIM.Box, paths: [String], lowest: [Double], highest: [Double]) -> String {
        var parts: [String] = []
        for (j, bound) in box.bounds.enumerated() {
            guard let b = bound else { continue }
            let low = b.lowerBound > lowest[j], high = b.upperBound < highest[j]
            switch (low, high) {
            case (true, true) where b.lowerBound == b.upperBound: parts.append("\(paths[j]) = \(short(b.lowerBound))")
            case (true, true): parts.append("\(short(b.lowerBound)) ≤ \(paths[j]) ≤ \(short(b.upperBound))")
            case (true, false): parts.append("\(paths[j]) ≥ \(short(b.lowerBound))")
            case (false, true): parts.append("\(paths[j]) ≤ \(short(b.upperBound))")
            case (false, false): continue
            }
        }
        return parts.isEmpty ? "everywhere" : parts.joined(separator: " and ")
    }

    /// Six significant digits, no exponent for ordinary values.
    static func short(_ v: Double) -> String {
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return String(format: "%.6g", v)
    }

    public static func table(_ results: [RunResult], study: Study) -> Table {
        var table = Table(file: file, rows: rowsMeaning, columns: columns)
        guard let s = results.first?.scenario else { return table }
        var number: [String: Int] = [:]
        for f in boxes(results, study: study) {
            let key = "\(f.pair.budget)\u{0}\(f.pair.ranking)\u{0}\(f.metric)"
            number[key, default: 0] += 1
            table.rows.append([
                s.name, String(s.seed), f.pair.budget, f.pair.ranking, s.baseline.budget, s.baseline.ranking, f.metric,
                String(number[key]!), String(f.box.rows), String(f.box.flagged),
                CSV.number(f.box.coverage), CSV.number(f.box.density), f.text,
            ])
        }
        return table
    }
}

/// The tables of an exploring study, written beside study.csv when every point was run.
public enum ExploreReports {
    /// The files an exploring study may write (an earlier one's are removed when a run writes none).
    public static let files = [RobustTable.file, DiscoveryTable.file, SensitivityTable.file]

    public static func tables(_ results: [RunResult], study: Study) -> [Table] {
        guard study.design != nil, results.count == study.totalPoints, !results.isEmpty else { return [] }
        return [RobustTable.table(results), DiscoveryTable.table(results, study: study)]
            + [SensitivityTable.table(results, study: study)].compactMap { $0 }
    }
}
