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
        /// The study point compared (`--point`), and its parameters' values as
        /// `path=value`; nil for a plain run.
        public var point: Int? = nil
        public var pointValues: [String] = []
        /// The days compared (`--days`), from daily.csv; nil for the measured days of
        /// summary.csv.
        public var days: ClosedRange<Int>? = nil
        /// With `days` and one replication, the paired differences are taken over the
        /// days of the window.
        public var overDays = false

        /// What the interval is over: `replications`, `blocks` or `days`.
        public var intervalOver: String { overDays ? "days" : source.rawValue }
    }

    public enum Failure: Error, CustomStringConvertible {
        case unreadable(String, String)
        case noPair(String, PolicyPair, [PolicyPair])
        /// A study's folder compared without `--point`: the rows of different points
        /// would be pooled.
        case pooledPoints(String, [Int])
        case noPoint(String, Int, [Int])
        case notAStudy(String)
        case noDays(String, ClosedRange<Int>, ClosedRange<Int>?)
        public var description: String {
            switch self {
            case .unreadable(let path, let why): "cannot read \(path): \(why)"
            case .pooledPoints(let path, let points):
                "\(path) holds \(points.count) points of a study (\(Self.list(points))); comparing them pooled would mix "
                    + "different settings: add --point K to compare the pairs at one point (study.csv gives each point's values)"
            case .noPoint(let path, let k, let points):
                "\(path) has no point \(k); it has points \(Self.list(points))"
            case .notAStudy(let path):
                "\(path) is not a study's report (it has no `point` column): drop --point"
            case .noDays(let path, let asked, let present):
                "\(path) has no day in \(asked.lowerBound)..\(asked.upperBound)"
                    + (present.map { "; it has days \($0.lowerBound)..\($0.upperBound) (from 0, warm-up days included)" } ?? "")
            case .noPair(let path, let p, let all):
                "\(path) has no pair \(p.budget)/\(p.ranking); it has " + all.map { "\($0.budget)/\($0.ranking)" }.joined(separator: ", ")
            }
        }

        /// `0, 1, …, 15` for many points, all of them for a few.
        static func list(_ points: [Int]) -> String {
            points.count <= 8 ? points.map(String.init).joined(separator: ", ")
                : points.prefix(3).map(String.init).joined(separator: ", ") + ", …, " + String(points.last!)
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

    /// Compares `a` with `b` in `folder`: at study point `point` (required when the
    /// folder holds several points, refused when it holds none), over the measured days
    /// of summary.csv or, with `days`, over those days of daily.csv.
    public static func compare(folder: URL, _ a: PolicyPair, _ b: PolicyPair,
                               point: Int? = nil, days: ClosedRange<Int>? = nil) throws -> Result {
        let summaryURL = folder.appendingPathComponent("summary.csv")
        let numeric = Schema.summaryColumns.filter { $0.type != .string }.map(\.name)
        var summary = try Sheet(summaryURL, numeric: numeric)
        // A study's rows: one point only, never pooled.
        var pointValues: [String] = []
        var chosen: Int?
        if let column = summary.names["point"] {
            let points = Set(summary.rows.compactMap { Int($0[column]) }).sorted()
            guard let k = point ?? (points.count == 1 ? points[0] : nil) else {
                throw Failure.pooledPoints(folder.path, points)
            }
            guard points.contains(k) else { throw Failure.noPoint(folder.path, k, points) }
            chosen = k
            summary.rows = summary.rows.filter { Int($0[column]) == k }
            // The study's parameters: the columns after `point` that summary.csv has not of its own.
            let known = Set(Schema.summaryColumns.map(\.name))
            let header = summary.names.sorted { $0.value < $1.value }.map(\.key)
            let row = summary.rows[0]
            pointValues = header.drop { $0 != "point" }.dropFirst().prefix { !known.contains($0) }
                .map { "\($0)=\(summary.text(row, $0) ?? "")" }
        } else if point != nil {
            throw Failure.notAStudy(folder.path)
        }
        let keep: (Sheet, [String]) -> Bool = { sheet, row in
            guard let chosen, let column = sheet.names["point"] else { return true }
            return Int(row[column]) == chosen
        }
        let pairs = summary.rows.map(summary.pair).reduce(into: [PolicyPair]()) { if !$0.contains($1) { $0.append($1) } }
        for p in [a, b] where !pairs.contains(p) { throw Failure.noPair(summaryURL.path, p, pairs) }
        let rowsA = summary.rows.filter { summary.pair($0) == a }
        let rowsB = summary.rows.filter { summary.pair($0) == b }
        let first = rowsA[0]
        if let days {
            var result = try compareDays(folder: folder, a, b, days: days, keep: keep)
            result.scenario = summary.text(first, "scenario") ?? ""
            result.seed = summary.text(first, "seed") ?? ""
            result.point = chosen
            result.pointValues = pointValues
            return result
        }
        let batchesURL = folder.appendingPathComponent("batches.csv")
        let oneReplication = rowsA.count == 1 && FileManager.default.fileExists(atPath: batchesURL.path)
        var rows: [Row] = []
        if oneReplication {
            let batches = try Sheet(batchesURL, numeric: Schema.batchesColumns.filter { $0.type != .string }.map(\.name))
            let people = summary.number(first, "people") ?? 0
            let blocksA = batches.rows.filter { batches.pair($0) == a && keep(batches, $0) }
            let blocksB = batches.rows.filter { batches.pair($0) == b && keep(batches, $0) }
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
        var result = Result(
            scenario: summary.text(first, "scenario") ?? "", seed: summary.text(first, "seed") ?? "",
            a: a, b: b, source: oneReplication ? .blocks : .replications, rows: rows)
        result.point = chosen
        result.pointValues = pointValues
        return result
    }

    /// The comparison over `days` of daily.csv: each metric as the mean of its daily
    /// values over those days (a count is then a total per day), paired over
    /// replications, or with one replication over the days.
    static func compareDays(folder: URL, _ a: PolicyPair, _ b: PolicyPair, days: ClosedRange<Int>,
                            keep: (Sheet, [String]) -> Bool) throws -> Result {
        let url = folder.appendingPathComponent("daily.csv")
        let daily = try Sheet(url, numeric: Schema.dailyColumns.filter { $0.type != .string }.map(\.name))
        let all = daily.rows.filter { keep(daily, $0) && daily.pair($0) == a }
        let present = all.compactMap { daily.number($0, "day").map(Int.init) }
        let inWindow: ([String]) -> Bool = { row in daily.number(row, "day").map { days.contains(Int($0)) } ?? false }
        let rowsA = all.filter(inWindow)
        let rowsB = daily.rows.filter { keep(daily, $0) && daily.pair($0) == b && inWindow($0) }
        guard !rowsA.isEmpty, !rowsB.isEmpty else {
            throw Failure.noDays(url.path, days, present.min().flatMap { lo in present.max().map { lo ... $0 } })
        }
        // (replication, day) → row
        func keyed(_ rows: [[String]]) -> [[Int]: [String]] {
            Dictionary(rows.map { ([Int(daily.number($0, "replication") ?? 0), Int(daily.number($0, "day") ?? 0)], $0) },
                       uniquingKeysWith: { first, _ in first })
        }
        let byA = keyed(rowsA), byB = keyed(rowsB)
        let replications = Set(byA.keys.map { $0[0] }).sorted()
        let overDays = replications.count < 2
        let keys = byA.keys.sorted { $0.lexicographicallyPrecedes($1) }
        var rows: [Row] = []
        for m in Metrics.daily {
            // Groups: replications (each its mean over the days), or the days themselves.
            var xs: [Double] = [], ys: [Double] = [], diffs: [Double] = []
            func add(_ x: Double?, _ y: Double?) {
                if let x { xs.append(x) }
                if let y { ys.append(y) }
                if let x, let y { diffs.append(x - y) }
            }
            if overDays {
                for key in keys {
                    add(byA[key].flatMap { daily.number($0, m.name) }, byB[key].flatMap { daily.number($0, m.name) })
                }
            } else {
                for rep in replications {
                    func mean(_ rows: [[Int]: [String]]) -> Double? {
                        let values = keys.filter { $0[0] == rep }.compactMap { rows[$0].flatMap { daily.number($0, m.name) } }
                        return values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
                    }
                    add(mean(byA), mean(byB))
                }
            }
            rows.append(Row(metric: m.name, unit: m.unit, a: Comparison.Estimate(xs).mean,
                            b: Comparison.Estimate(ys).mean, difference: Comparison.Estimate(diffs)))
        }
        var result = Result(scenario: "", seed: "", a: a, b: b, source: .replications, rows: rows)
        result.days = days
        result.overDays = overDays
        return result
    }

    public static let csvHeader = [
        "scenario", "seed", "budget", "ranking", "other_budget", "other_ranking", "metric", "unit", "interval_over",
        "groups", "mean", "other_mean", "diff_mean", "diff_sd", "diff_ci95_half_width", "point", "first_day", "last_day",
    ]

    public static func csv(_ r: Result) -> String {
        var out = CSV.row(csvHeader)
        for row in r.rows {
            out += CSV.row([
                r.scenario, r.seed, r.a.budget, r.a.ranking, r.b.budget, r.b.ranking, row.metric, row.unit,
                r.intervalOver, String(row.difference.n), CSV.number(row.a), CSV.number(row.b),
                CSV.number(row.difference.mean), CSV.number(row.difference.sd), CSV.number(row.difference.halfWidth),
                r.point.map(String.init) ?? "", r.days.map { String($0.lowerBound) } ?? "",
                r.days.map { String($0.upperBound) } ?? "",
            ])
        }
        return out
    }

    /// A table for the terminal: metric, the two values, and the difference ± half-width.
    public static func render(_ r: Result) -> String {
        let over = r.overDays ? "the days (one replication)"
            : r.source == .blocks ? "the blocks of people (one replication)" : "replications"
        var head = "\(r.scenario): A = \(r.a), B = \(r.b)"
        if let point = r.point {
            head += ", point \(point)" + (r.pointValues.isEmpty ? "" : " (" + r.pointValues.joined(separator: ", ") + ")")
        }
        var lines = [head]
        if let days = r.days {
            lines.append("days \(days.lowerBound)..\(days.upperBound) of daily.csv (from 0): each metric's mean over those days")
        }
        lines.append("A − B paired over \(over), ± 95% half-width; digits as the interval allows")
        var table = [["metric", "A", "B", "A − B"]]
        for row in r.rows {
            let d = decimals(row.difference.halfWidth)
            var diff = shown(row.difference.mean, d)
            if let h = row.difference.halfWidth { diff += " ± " + shown(h, d) }
            table.append([row.metric, shown(row.a, d), shown(row.b, d), diff])
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

    /// The decimals a value known to ± `halfWidth` is shown with: those of the
    /// half-width's first two significant digits (± 0.0123 → 3, ± 12.3 → 0). Nil
    /// without a positive half-width.
    static func decimals(_ halfWidth: Double?) -> Int? {
        guard let h = halfWidth, h > 0, h.isFinite else { return nil }
        return max(0, 1 - Int((log10(h)).rounded(.down)))
    }

    /// `v` with `decimals` decimals (`-0` shown as `0`), or `short(v)` without them.
    static func shown(_ v: Double?, _ decimals: Int?) -> String {
        guard let v, let decimals else { return short(v) }
        let text = String(format: "%.\(decimals)f", v)
        return Double(text) == 0 ? String(format: "%.\(decimals)f", 0.0) : text
    }

    /// Six significant digits, `–` when undefined.
    static func short(_ v: Double?) -> String {
        guard let v else { return "–" }
        if v == v.rounded() && abs(v) < 1e15 { return String(Int64(v)) }
        return String(format: "%.6g", v)
    }
}
