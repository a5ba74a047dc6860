import Foundation

// Every CSV column the page reads is named in this file, and only here. Where a column
// has had more than one name, the candidates are listed newest first.

/// A budget × ranking pair, by label.
struct PairKey: Hashable, Comparable, CustomStringConvertible {
    var budget: String
    var ranking: String
    var description: String { "\(budget) × \(ranking)" }
    static func < (a: PairKey, b: PairKey) -> Bool { (a.budget, a.ranking) < (b.budget, b.ranking) }
}

/// A mean with its 95% half-width (nil with fewer than two replications).
struct Estimate: Equatable {
    var mean: Double
    var halfWidth: Double?
}

/// A metric the page draws: the candidate column names (newest first), how it reads on an
/// axis, and which way is better.
struct HeadlineMetric {
    var names: [String]
    var label: String
    var lowerIsBetter: Bool
    /// Multiplies the value for display (100 for a share shown as %).
    var scale: Double

    static let accuracy = HeadlineMetric(names: ["accuracy"], label: "accuracy (%)", lowerIsBetter: false, scale: 100)
    static let chargedPerWidgetDay = HeadlineMetric(
        names: ["charged_reloads_per_widget_day", "reloads_charged_per_widget_day"],
        label: "charged reloads per widget-day", lowerIsBetter: true, scale: 1)
    static let reloadsPerWidgetDay = HeadlineMetric(
        names: ["reloads_per_widget_day"], label: "reloads per widget-day (all)", lowerIsBetter: true, scale: 1)
    static let staleShare = HeadlineMetric(names: ["stale_view_share"], label: "stale-view share (%)", lowerIsBetter: true, scale: 100)
    static let staleMemberShare = HeadlineMetric(
        names: ["stale_member_share"], label: "stale members at a view (%)", lowerIsBetter: true, scale: 100)
    static let staleness = HeadlineMetric(
        names: ["mean_staleness_minutes", "mean_staleness_seconds", "mean_staleness_s"],
        label: "mean staleness at stale views", lowerIsBetter: true, scale: 1)
    static let energy = HeadlineMetric(
        names: ["energy", "energy_units", "energy_per_widget_day"], label: "energy spent on reloads", lowerIsBetter: true, scale: 1)
    static let chargedReloads = HeadlineMetric(
        names: ["reloads_charged"], label: "reloads charged to budgets", lowerIsBetter: true, scale: 1)

    /// The headline metrics, in table order.
    static let headline: [HeadlineMetric] = [
        accuracy, chargedPerWidgetDay, reloadsPerWidgetDay, chargedReloads, staleShare, staleness, energy,
    ]
}

/// The run's identity, from run.json (or, without it, from summary.csv).
struct RunIdentity {
    var scenario = ""
    var seed = ""
    var people = ""
    var days = ""
    var warmupDays = ""
    var replications = ""
    var version = ""
    var commit = ""
    var commandLine = ""
    var finished = ""
    /// The `per_day` of each budget that is the ceiling (`oracle`), by label.
    var ceilings: [String: Double] = [:]
}

/// `comparison.csv`: per pair and metric, the mean with its interval and the paired
/// difference to the baseline with its interval.
struct ComparisonTable {
    var pairs: [PairKey] = []
    var baseline: PairKey?
    /// metric column name → pair → (value, difference to the baseline)
    var entries: [String: [PairKey: (value: Estimate, difference: Estimate?)]] = [:]

    /// The first of the metric's names this run has, or nil.
    func name(of m: HeadlineMetric) -> String? { m.names.first { entries[$0] != nil } }

    /// `point`: the study point to read (see `CSVTable.onePoint`).
    static func read(_ folder: URL, point: String? = nil) throws(ReportInputError) -> ComparisonTable {
        let t = try CSVTable.read("comparison.csv", in: folder, hint: "written by `widgetsim run`").onePoint(point)
        let budget = try t.require("budget"), ranking = try t.require("ranking")
        let baseBudget = try t.require("baseline_budget"), baseRanking = try t.require("baseline_ranking")
        let metric = try t.require("metric")
        // Left out when empty on every row (no metric defined; one pair, no difference).
        let mean = t.column(["mean"]), half = t.column(["ci95_half_width"])
        let diff = t.column(["diff_mean"]), diffHalf = t.column(["diff_ci95_half_width"])
        var c = ComparisonTable()
        var baseline: PairKey?
        for (i, row) in t.rows.enumerated() {
            let pair = PairKey(budget: row[budget], ranking: row[ranking])
            if !c.pairs.contains(pair) { c.pairs.append(pair) }
            baseline = PairKey(budget: row[baseBudget], ranking: row[baseRanking])
            guard let m = try t.number(i, mean) else { continue }
            let value = Estimate(mean: m, halfWidth: try t.number(i, half))
            var difference: Estimate?
            if let d = try t.number(i, diff) { difference = Estimate(mean: d, halfWidth: try t.number(i, diffHalf)) }
            c.entries[row[metric], default: [:]][pair] = (value, difference)
        }
        if t.rows.isEmpty { throw .damaged(file: t.file, line: nil, problem: "it has a header but no rows") }
        c.baseline = baseline.flatMap { c.pairs.contains($0) ? $0 : nil }
        return c
    }
}

/// `daily.csv`: accuracy and ceiling per pair and day, pooled over replications
/// (Σ hits ÷ Σ views_wanted when those counts are there, else the mean of the daily figures).
struct DailyTable {
    struct Day { var warmup: Bool; var accuracy: Double?; var ceiling: Double? }
    var days = 0
    var warmupDays = 0
    var pairs: [PairKey] = []
    var byPair: [PairKey: [Day]] = [:]
    /// Hits and views wanted per pair, replication and day (warm-up days included; empty
    /// when the file has no `hits` and `views_wanted`).
    var counts: [PairKey: [String: [Int: (hits: Double, wanted: Double)]]] = [:]

    /// Hits and views wanted of `pair` in each replication over the measured days
    /// `days` (counted from the first measured day), by replication.
    func hits(_ pair: PairKey, measuredDays days: Range<Int>) -> [String: (hits: Double, wanted: Double)] {
        guard let byReplication = counts[pair] else { return [:] }
        return byReplication.mapValues { byDay in
            var h = 0.0, w = 0.0
            for d in days { if let c = byDay[d + warmupDays] { h += c.hits; w += c.wanted } }
            return (h, w)
        }
    }

    static func read(_ folder: URL, point: String? = nil) throws(ReportInputError) -> DailyTable {
        let t = try CSVTable.read("daily.csv", in: folder, hint: "written by `widgetsim run`").onePoint(point)
        let budget = try t.require("budget"), ranking = try t.require("ranking"), day = try t.require("day")
        let warmup = t.column(["warmup"])
        // Left out when empty on every row (no view ever wanted a widget).
        let accuracy = t.column(["accuracy"]), ceiling = t.column(["ceiling"])
        let hits = t.column(["hits"]), wanted = t.column(["views_wanted"])
        let replication = t.column(["replication"])
        struct Sums { var hits = 0.0, wanted = 0.0, acc = 0.0, accN = 0.0, ceil = 0.0, ceilN = 0.0, warmup = false }
        var sums: [PairKey: [Int: Sums]] = [:]
        var d = DailyTable()
        for (i, row) in t.rows.enumerated() {
            let pair = PairKey(budget: row[budget], ranking: row[ranking])
            if !d.pairs.contains(pair) { d.pairs.append(pair) }
            let dayValue = try t.requiredNumber(i, day)
            guard dayValue >= 0, dayValue < 100_000, dayValue == dayValue.rounded() else {
                throw .damaged(file: t.file, line: t.lines[i], problem: "`day` is `\(row[day])`, not a day number")
            }
            let n = Int(dayValue)
            var s = sums[pair, default: [:]][n, default: Sums()]
            if let warmup { s.warmup = try t.requiredNumber(i, warmup) != 0 }
            if let hits, let wanted, let h = try t.number(i, hits), let w = try t.number(i, wanted) {
                s.hits += h
                s.wanted += w
                let r = replication.map { row[$0] } ?? "0"
                var c = d.counts[pair, default: [:]][r, default: [:]][n] ?? (0, 0)
                c.hits += h
                c.wanted += w
                d.counts[pair, default: [:]][r, default: [:]][n] = c
            }
            if let a = try t.number(i, accuracy) { s.acc += a; s.accN += 1 }
            if let c = try t.number(i, ceiling) { s.ceil += c; s.ceilN += 1 }
            sums[pair, default: [:]][n] = s
            d.days = max(d.days, n + 1)
        }
        if t.rows.isEmpty { throw .damaged(file: t.file, line: nil, problem: "it has a header but no rows") }
        for (pair, byDay) in sums {
            d.byPair[pair] = (0 ..< d.days).map { n in
                guard let s = byDay[n] else { return Day(warmup: false, accuracy: nil, ceiling: nil) }
                let acc = hits != nil && wanted != nil ? (s.wanted > 0 ? s.hits / s.wanted : nil)
                                                       : (s.accN > 0 ? s.acc / s.accN : nil)
                return Day(warmup: s.warmup, accuracy: acc, ceiling: s.ceilN > 0 ? s.ceil / s.ceilN : nil)
            }
        }
        d.warmupDays = d.byPair.values.first.map { $0.prefix { $0.warmup }.count } ?? 0
        return d
    }
}

/// `summary.csv`: read for the run's identity when there is no run.json, and checked
/// for damage either way (the page's table says it comes from the run's CSVs).
struct SummaryFacts {
    var identity = RunIdentity()
    /// Per pair, replication and column: the replication's figure over the measured days,
    /// for the columns the targets section reads (each when the file has it).
    var perReplication: [PairKey: [String: [String: Double]]] = [:]
    static let perReplicationColumns = ["stale_view_share", "charged_reloads_per_widget_day"]

    static func read(_ folder: URL, point: String? = nil) throws(ReportInputError) -> SummaryFacts {
        let t = try CSVTable.read("summary.csv", in: folder, hint: "written by `widgetsim run`").onePoint(point)
        if t.rows.isEmpty { throw .damaged(file: t.file, line: nil, problem: "it has a header but no rows") }
        let scenario = try t.require("scenario"), seed = try t.require("seed"), replication = try t.require("replication")
        var f = SummaryFacts()
        f.identity.scenario = t.rows[0][scenario]
        f.identity.seed = t.rows[0][seed]
        if let c = t.column(["people"]) { f.identity.people = t.rows[0][c] }
        if let c = t.column(["days"]) { f.identity.days = t.rows[0][c] }
        if let c = t.column(["warmup_days"]) { f.identity.warmupDays = t.rows[0][c] }
        f.identity.replications = String(Set(t.rows.map { $0[replication] }).count)
        for i in t.rows.indices { _ = try t.requiredNumber(i, replication) }
        // Every number of the file read as one: a damaged value is named, not drawn.
        for name in summaryNumberColumns {
            guard let c = t.column([name]) else { continue }
            for i in t.rows.indices { _ = try t.number(i, c) }
        }
        if let budget = t.column(["budget"]), let ranking = t.column(["ranking"]) {
            for name in perReplicationColumns {
                guard let c = t.column([name]) else { continue }
                for (i, row) in t.rows.enumerated() {
                    guard let v = try t.number(i, c) else { continue }
                    f.perReplication[PairKey(budget: row[budget], ranking: row[ranking]), default: [:]][row[replication], default: [:]][name] = v
                }
            }
        }
        return f
    }
}

/// `run.json`, when present: the run's identity as recorded when it ran.
enum RunJSON {
    static func read(_ folder: URL, into identity: inout RunIdentity) throws(ReportInputError) {
        let url = folder.appendingPathComponent("run.json")
        guard let data = FileManager.default.contents(atPath: url.path) else { return }
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw .damaged(file: "run.json", line: nil, problem: "is not a JSON object")
        }
        func text(_ v: Any?) -> String? {
            switch v {
            case let s as String: return s
            case let n as NSNumber: return n.stringValue
            case let a as [Any]: return a.compactMap { text($0) }.joined(separator: " ")
            default: return nil
            }
        }
        let s = object["scenario"] as? [String: Any] ?? [:]
        identity.scenario = text(s["name"]) ?? identity.scenario
        identity.seed = text(s["seed"]) ?? identity.seed
        identity.people = text(s["people"]) ?? identity.people
        identity.days = text(s["days"]) ?? identity.days
        identity.warmupDays = text(s["warmup_days"]) ?? identity.warmupDays
        identity.replications = text(s["replications"]) ?? identity.replications
        identity.version = text(object["widgetsim_version"]) ?? ""
        let build = object["build"] as? [String: Any] ?? [:]
        identity.commit = text(object["git_commit"]) ?? text(build["commit"]).map { c in
            (build["dirty"] as? Bool) == true ? c + " (uncommitted changes)" : c } ?? ""
        identity.commandLine = text(object["command_line"]) ?? ""
        identity.finished = text(object["finished"]) ?? ""
        for budget in object["budgets"] as? [[String: Any]] ?? [] where text(budget["policy"]) == "oracle" {
            let parameters = budget["parameters"] as? [String: Any] ?? [:]
            guard let label = text(budget["label"]), let perDay = parameters["per_day"] as? NSNumber else { continue }
            identity.ceilings[label] = perDay.doubleValue
        }
    }
}

/// `reasons.csv`, when present: counts per pair, replication, day and reason code. Counts
/// are summed over days (warm-up days left out when the file marks them) and averaged
/// over replications. A `kind` column, when there, splits refusals from missed views;
/// otherwise a code's prefix before the first `.` or `:` does, else all codes form one chart.
struct ReasonsTable {
    /// kind → pair → reason → mean count per replication
    var counts: [String: [PairKey: [String: Double]]] = [:]
    /// The codes of each kind counted at least once (a code that is zero everywhere is left out).
    var reasonsByKind: [String: [String]] = [:]
    /// kind → pair → widget → reason → mean count per replication, when the file names widgets.
    var byWidget: [String: [PairKey: [String: [String: Double]]]] = [:]
    /// pair → wanted widget → widget on top instead → missed views, mean per replication.
    var topInstead: [PairKey: [String: [String: Double]]] = [:]

    static let file = "reasons.csv"

    static func read(_ folder: URL, point: String? = nil) throws(ReportInputError) -> ReasonsTable? {
        guard FileManager.default.fileExists(atPath: folder.appendingPathComponent(file).path) else { return nil }
        let t = try CSVTable.read(file, in: folder, hint: "").onePoint(point)
        let budget = try t.require("budget"), ranking = try t.require("ranking")
        let reason = try t.require("reason", "reason_code", "code"), count = try t.require("count", "n")
        let replication = t.column(["replication"])
        let kind = t.column(["kind", "category", "decision"])
        let warmup = t.column(["warmup"])
        let widget = t.column(["widget"]), top = t.column(["top_widget"])
        var r = ReasonsTable()
        var replications: [PairKey: Set<String>] = [:]
        for (i, row) in t.rows.enumerated() {
            if let warmup, try t.number(i, warmup) ?? 0 != 0 { continue }
            let pair = PairKey(budget: row[budget], ranking: row[ranking])
            let code = row[reason]
            var k = kind.map { row[$0] } ?? ""
            if kind == nil, let cut = code.firstIndex(where: { $0 == "." || $0 == ":" }) { k = String(code[..<cut]) }
            let n = try t.requiredNumber(i, count)
            guard n >= 0 else { throw .damaged(file: t.file, line: t.lines[i], problem: "`\(t.header[count])` is negative") }
            r.counts[k, default: [:]][pair, default: [:]][code, default: 0] += n
            if n > 0, !(r.reasonsByKind[k]?.contains(code) ?? false) { r.reasonsByKind[k, default: []].append(code) }
            if n > 0, let widget, !row[widget].isEmpty {
                r.byWidget[k, default: [:]][pair, default: [:]][row[widget], default: [:]][code, default: 0] += n
                if k == "missed_view", let top, !row[top].isEmpty {
                    r.topInstead[pair, default: [:]][row[widget], default: [:]][row[top], default: 0] += n
                }
            }
            replications[pair, default: []].insert(replication.map { row[$0] } ?? "0")
        }
        func reps(_ pair: PairKey) -> Double { Double(max(1, replications[pair]?.count ?? 1)) }
        for (k, byPair) in r.counts {
            for (pair, byReason) in byPair { r.counts[k]![pair] = byReason.mapValues { $0 / reps(pair) } }
        }
        for (k, byPair) in r.byWidget {
            for (pair, byW) in byPair { r.byWidget[k]![pair] = byW.mapValues { $0.mapValues { $0 / reps(pair) } } }
        }
        for (pair, byW) in r.topInstead { r.topInstead[pair] = byW.mapValues { $0.mapValues { $0 / reps(pair) } } }
        return r
    }
}

/// `study.csv`, when present: one row per study point × pair with the headline metrics'
/// means and 95% half-widths, `point`, and one column per study parameter.
struct StudyTable {
    struct Row {
        var point: String; var pair: PairKey; var parameters: [String: String]; var values: [String: Estimate]
        /// parameter → metric → the paired difference to the previous point along it.
        var steps: [String: [String: Estimate]] = [:]
    }
    var parameters: [String] = []
    var metrics: [String] = []
    var rows: [Row] = []
    /// The point the other sections show (`baseline_point`), when the file names one.
    var baselinePoint: String?

    static let file = "study.csv"
    static let halfWidthSuffixes = ["_ci95_half_width", "_ci95", "_half_width", "_hw"]
    static let identityColumns: Set<String> = [
        "scenario", "point", "budget", "ranking", "replication", "replications", "seed",
        "baseline_budget", "baseline_ranking", "people", "days", "warmup_days", "measured_days", "baseline_point",
    ]

    static func read(_ folder: URL) throws(ReportInputError) -> StudyTable? {
        guard FileManager.default.fileExists(atPath: folder.appendingPathComponent(file).path) else { return nil }
        let t = try CSVTable.read(file, in: folder, hint: "")
        let point = try t.require("point"), budget = try t.require("budget"), ranking = try t.require("ranking")
        var s = StudyTable()
        let known = Set(HeadlineMetric.headline.flatMap(\.names))
        var metricColumns: [(String, Int, Int?)] = []
        for (i, column) in t.header.enumerated() {
            // A mean is named by its metric, alone or with `_mean`.
            let name = column.hasSuffix("_mean") ? String(column.dropLast(5)) : column
            guard known.contains(name) else { continue }
            let half = t.column(halfWidthSuffixes.map { name + $0 })
            metricColumns.append((name, i, half))
        }
        let taken = Set(metricColumns.flatMap { [$0.1] + ($0.2.map { [$0] } ?? []) })
        // The parameters sit between `point` and `budget` when the file is ordered so.
        let parameterColumns = point < budget ? Array(point + 1 ..< budget) : t.header.indices.filter { i in
            !taken.contains(i) && !identityColumns.contains(t.header[i])
                && !halfWidthSuffixes.contains { t.header[i].hasSuffix($0) }
                && !t.header[i].hasSuffix("_sd") && !t.header[i].hasPrefix("diff_") && !t.header[i].contains("_step_")
        }
        if let c = t.column(["baseline_point"]) { s.baselinePoint = t.rows.first?[c] }
        s.parameters = parameterColumns.map { t.header[$0] }
        s.metrics = metricColumns.map(\.0)
        // `<metric>_step_<parameter>_diff_mean` and its half-width, when the file has them.
        var stepColumns: [String: [String: (Int, Int?)]] = [:]
        for p in s.parameters {
            for name in s.metrics {
                if let mean = t.column([name + "_step_" + p + "_diff_mean"]) {
                    stepColumns[p, default: [:]][name] = (mean, t.column([name + "_step_" + p + "_diff_ci95_half_width"]))
                }
            }
        }
        for (i, row) in t.rows.enumerated() {
            var values: [String: Estimate] = [:]
            for (name, c, half) in metricColumns {
                if let m = try t.number(i, c) {
                    var h: Double?
                    if let half { h = try t.number(i, half) }
                    values[name] = Estimate(mean: m, halfWidth: h)
                }
            }
            var parameters: [String: String] = [:]
            for c in parameterColumns { parameters[t.header[c]] = row[c] }
            var steps: [String: [String: Estimate]] = [:]
            for (p, byMetric) in stepColumns {
                for (name, (mean, half)) in byMetric {
                    if let m = try t.number(i, mean) { steps[p, default: [:]][name] = Estimate(mean: m, halfWidth: try t.number(i, half)) }
                }
            }
            s.rows.append(Row(point: row[point], pair: PairKey(budget: row[budget], ranking: row[ranking]),
                              parameters: parameters, values: values, steps: steps))
        }
        return s
    }
}
