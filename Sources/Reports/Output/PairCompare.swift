import Foundation
import WidgetSimModel

/// The paired difference between any two policy pairs of a finished report folder
/// (`widgetsim compare DIR A B`), read back from its CSV files with the same formulas as
/// `comparison.csv` (see `Comparison`): over replications from `summary.csv`, or with
/// one replication over the blocks of people from `batches.csv`. Doubles in the files
/// read back to the very values the run computed, so A against the baseline gives
/// exactly the `diff_*` columns of `comparison.csv`.
public enum PairCompare {
    public struct Row: Sendable, Equatable {
        public var metric: String
        public var unit: String
        public var a: Double?
        public var b: Double?
        public var difference: Comparison.Estimate
    }

    public struct Result: Sendable {
        public var scenario: String
        public var seed: String
        public var a: PolicyPair
        public var b: PolicyPair
        public var source: Comparison.Source
        public var rows: [Row]
    }

    public enum Failure: Error, CustomStringConvertible {
        case unreadable(String, String)
        case noPair(String, PolicyPair, [PolicyPair])
        public var description: String {
            switch self {
            case .unreadable(let path, let why): "cannot read \(path): \(why)"
            case .noPair(let path, let p, let all):
                "\(path) has no pair \(p.budget)/\(p.ranking); it has " + all.map { "\($0.budget)/\($0.ranking)" }.joined(separator: ", ")
            }
        }
    }

    /// A CSV file as a header and rows of named fields, every row as long as the header
    /// and every field of a `numeric` column a finite number or empty.
    struct Sheet {
        var names: [String: Int]
        var rows: [[String]]
        init(_ url: URL, numeric: [String]) throws {
            guard let text = try? String(contentsOf: url, encoding: .utf8) else {
                throw Failure.unreadable(url.path, "no such file (is this a report folder of a finished run?)")
            }
            var all = CSV.parse(text)
            guard !all.isEmpty else { throw Failure.unreadable(url.path, "it is empty") }
            let header = all.removeFirst()
            names = Dictionary(header.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
            rows = all
            guard !rows.isEmpty else { throw Failure.unreadable(url.path, "it has a header but no rows") }
            for (i, row) in rows.enumerated() {
                guard row.count == header.count else {
                    throw Failure.unreadable(url.path, "row \(i + 1) has \(row.count) fields where the header has \(header.count) (a truncated or damaged row)")
                }
                for name in numeric {
                    guard let c = names[name], !row[c].isEmpty else { continue }
                    guard let v = Double(row[c]), v.isFinite else {
                        throw Failure.unreadable(url.path, "row \(i + 1): `\(name)` is `\(row[c])`, not a number")
                    }
                }
            }
        }
        func text(_ row: [String], _ column: String) -> String? { names[column].map { row[$0] } }
        func number(_ row: [String], _ column: String) -> Double? { text(row, column).flatMap(Double.init) }
        func pair(_ row: [String]) -> PolicyPair {
            PolicyPair(budget: text(row, "budget") ?? "", ranking: text(row, "ranking") ?? "")
        }
    }

    public static func compare(folder: URL, _ a: PolicyPair, _ b: PolicyPair) throws -> Result {
        let summaryURL = folder.appendingPathComponent("summary.csv")
        let numeric = Schema.summaryColumns.filter { $0.type != .string }.map(\.name)
        let summary = try Sheet(summaryURL, numeric: numeric)
        let pairs = summary.rows.map(summary.pair).reduce(into: [PolicyPair]()) { if !$0.contains($1) { $0.append($1) } }
        for p in [a, b] where !pairs.contains(p) { throw Failure.noPair(summaryURL.path, p, pairs) }
        let rowsA = summary.rows.filter { summary.pair($0) == a }
        let rowsB = summary.rows.filter { summary.pair($0) == b }
        let first = rowsA[0]
        let batchesURL = folder.appendingPathComponent("batches.csv")
        let oneReplication = rowsA.count == 1 && FileManager.default.fileExists(atPath: batchesURL.path)
        var rows: [Row] = []
        if oneReplication {
            let batches = try Sheet(batchesURL, numeric: Schema.batchesColumns.filter { $0.type != .string }.map(\.name))
            let people = summary.number(first, "people") ?? 0
            let blocksA = batches.rows.filter { batches.pair($0) == a }
            let blocksB = batches.rows.filter { batches.pair($0) == b }
            for m in Metrics.all {
                let x = summary.number(rowsA[0], m.name), y = summary.number(rowsB[0], m.name)
                func scaled(_ sheet: Sheet, _ row: [String]) -> Double? {
                    guard let v = sheet.number(row, m.name), let n = sheet.number(row, "people"), n > 0 else { return nil }
                    return m.extensive ? v * people / n : v
                }
                let diffs = zip(blocksA, blocksB).compactMap { ra, rb -> Double? in
                    guard let u = scaled(batches, ra), let v = scaled(batches, rb) else { return nil }
                    return u - v
                }
                let estimate = (x != nil && y != nil) ? Comparison.Estimate(diffs, mean: x! - y!) : Comparison.Estimate([])
                rows.append(Row(metric: m.name, unit: m.unit, a: x, b: y, difference: estimate))
            }
        } else {
            for m in Metrics.all {
                let xs = rowsA.map { summary.number($0, m.name) }, ys = rowsB.map { summary.number($0, m.name) }
                let diffs = zip(xs, ys).compactMap { x, y -> Double? in
                    guard let x, let y else { return nil }
                    return x - y
                }
                rows.append(Row(
                    metric: m.name, unit: m.unit, a: Comparison.Estimate(xs.compactMap { $0 }).mean,
                    b: Comparison.Estimate(ys.compactMap { $0 }).mean, difference: Comparison.Estimate(diffs)))
            }
        }
        return Result(
            scenario: summary.text(first, "scenario") ?? "", seed: summary.text(first, "seed") ?? "",
            a: a, b: b, source: oneReplication ? .blocks : .replications, rows: rows)
    }

    public static let csvHeader = [
        "scenario", "seed", "budget", "ranking", "other_budget", "other_ranking", "metric", "unit", "interval_over",
        "groups", "mean", "other_mean", "diff_mean", "diff_sd", "diff_ci95_half_width",
    ]

    public static func csv(_ r: Result) -> String {
        var out = CSV.row(csvHeader)
        for row in r.rows {
            out += CSV.row([
                r.scenario, r.seed, r.a.budget, r.a.ranking, r.b.budget, r.b.ranking, row.metric, row.unit,
                r.source.rawValue, String(row.difference.n), CSV.number(row.a), CSV.number(row.b),
                CSV.number(row.difference.mean), CSV.number(row.difference.sd), CSV.number(row.difference.halfWidth),
            ])
        }
        return out
    }

    /// A table for the terminal: metric, the two values, and the difference ± half-width.
    public static func render(_ r: Result) -> String {
        let over = r.source == .blocks ? "the blocks of people (one replication)" : "replications"
        var lines = ["\(r.scenario): A = \(r.a), B = \(r.b)", "A − B paired over \(over), ± 95% half-width"]
        var table = [["metric", "A", "B", "A − B"]]
        for row in r.rows {
            var diff = short(row.difference.mean)
            if let h = row.difference.halfWidth { diff += " ± " + short(h) }
            table.append([row.metric, short(row.a), short(row.b), diff])
        }
        let widths = (0 ..< 4).map { i in table.map { $0[i].count }.max()! }
        for t in table {
            lines.append(t.enumerated().map { i, text in
                i == 0 ? text.padding(toLength: widths[0], withPad: " ", startingAt: 0)
                       : String(repeating: " ", count: widths[i] - text.count) + text
            }.joined(separator: "  "))
        }
        return lines.joined(separator: "\n")
    }

    /// Six significant digits, `–` when undefined.
    static func short(_ v: Double?) -> String {
        guard let v else { return "–" }
        if v == v.rounded() && abs(v) < 1e15 { return String(Int64(v)) }
        return String(format: "%.6g", v)
    }
}
