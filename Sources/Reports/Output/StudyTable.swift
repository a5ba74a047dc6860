import WidgetSimExecution
import WidgetSimModel

/// `study.csv`: one row per study point × policy pair, with each headline metric's mean
/// over replications and its 95% interval, and the paired difference to the same pair
/// at the study's baseline point with its interval.
///
/// Replication r of every point simulates the same people from the same random streams
/// (common random numbers), so for a pair, d_r = x_{r, point} − x_{r, baseline point}
/// cancels the spread between people the way `comparison.csv`'s differences between
/// pairs do; the formulas are those of `Comparison.Estimate`, over the replications
/// where both values are defined (with one replication, over the blocks of people, as
/// `comparison.csv` does). A point that a parameter cannot affect has d_r = 0 exactly.
/// The difference is empty at the baseline point itself, and when the baseline point
/// was not run (`--point K`); a column empty on every row is not written.
///
/// Where does a curve flatten? For each study parameter, `<metric>_step_<parameter>_…`
/// holds the paired difference to the previous point along that parameter: the point
/// with the parameter's previous value (in the order the study lists its values) and
/// every other parameter's value the same, by the same formulas. It is empty at a
/// parameter's first value, when that point was not run, and in an exploring study
/// (whose sampled points have no neighbours).
public enum StudyTable {
    /// The metrics of the table, in column order.
    public static let metrics = [
        "accuracy", "stale_top_share", "stale_view_share", "mean_staleness_seconds", "reloads_per_widget_day",
        "reloads_charged", "requests_denied", "requests_deferred", "exhausted_share", "energy",
    ]

    public static let rowsMeaning = "a parameter study only: one per study point × budget × ranking pair, over the measured days"

    public static func columns(_ study: Study) -> [Column] { columns(studyColumns: ReportWriter.studySchema(study)) }

    /// The columns around the study's own (`point` and one per parameter).
    static func columns(studyColumns: [Column]) -> [Column] {
        let byName = Dictionary(uniqueKeysWithValues: Metrics.all.map { ($0.name, $0) })
        let noInterval = "fewer than two groups (replications, or blocks with one replication) where the metric is defined"
        let noDifference = "the baseline point itself, the baseline point not run (`--point K`), or the metric undefined at one of the two"
        var columns = [
            Column("scenario", .string, "the scenario's name"),
            Column("seed", .integer, "the scenario's seed (0 … 2^63 − 1), the same at every point"),
        ] + studyColumns + [
            Column("budget", .string, "the budget policy's label"),
            Column("ranking", .string, "the ranking policy's label"),
            Column("baseline_point", .integer, "the point every difference is taken to"),
            Column("replications", .integer, "replications in the run"),
            Column("interval_over", .string, "`replications` (two or more), or `blocks`: with one replication, the blocks of people as independent batches"),
        ]
        let parameters = studyColumns.map(\.name).filter { $0 != "point" }
        for name in metrics {
            let m = byName[name]!
            columns += [
                Column(name + "_mean", .double, unit: m.unit, "\(name) (\(m.meaning)): mean over replications; with one replication, the run's value",
                       empty: "the metric is undefined in every group"),
                Column(name + "_ci95_half_width", .double, unit: m.unit, "half-width of the 95% Student t interval of the mean", empty: noInterval),
                Column(name + "_diff_mean", .double, unit: m.unit, "paired difference to the same pair at the baseline point: this point − baseline point",
                       empty: noDifference),
                Column(name + "_diff_ci95_half_width", .double, unit: m.unit, "half-width of the 95% interval of the paired difference",
                       empty: noDifference + ", or " + noInterval),
            ]
        }
        let noStep = "the parameter's first value, the previous point not run, an exploring study, or the metric undefined at one of the two"
        for parameter in parameters {
            for name in metrics {
                let m = byName[name]!
                columns += [
                    Column(stepColumn(name, parameter) + "_diff_mean", .double, unit: m.unit,
                           "paired difference of \(name) to the previous point along `\(parameter)` (its previous value, every other parameter the same): this point − that point",
                           empty: noStep),
                    Column(stepColumn(name, parameter) + "_diff_ci95_half_width", .double, unit: m.unit,
                           "half-width of the 95% interval of that paired difference", empty: noStep + ", or " + noInterval),
                ]
            }
        }
        return columns
    }

    /// The stem of the columns of `metric`'s steps along `parameter`.
    public static func stepColumn(_ metric: String, _ parameter: String) -> String { metric + "_step_" + parameter }

    /// The index in `study.points` of the point before point index `k` along parameter
    /// `j`: that parameter's previous value (in the order of the study's points), every
    /// other value the same; nil at the first value, when that point is not run, and
    /// in an exploring study.
    public static func previous(_ study: Study, point k: Int, along j: Int) -> Int? {
        guard study.design == nil else { return nil }
        var order: [String] = []
        for p in study.points where !order.contains(p.values[j]) { order.append(p.values[j]) }
        let values = study.points[k].values
        guard let i = order.firstIndex(of: values[j]), i > 0 else { return nil }
        var wanted = values
        wanted[j] = order[i - 1]
        return study.points.firstIndex { $0.values == wanted }
    }

    public static func header(_ study: Study) -> [String] { columns(study).map(\.name) }

    public static func table(_ results: [RunResult], study: Study) -> Table {
        var table = Table(file: "study.csv", rows: rowsMeaning, columns: columns(study))
        table.rows = rows(results, study: study)
        return table
    }

    public static func csv(_ results: [RunResult], study: Study) -> String { table(results, study: study).csv }

    /// The table's figures for one point, pair and metric, by the formulas of
    /// `Comparison.entry`: over replications, or with one replication over the blocks
    /// of people (the mean then the run's own value). Block b holds the same people at
    /// every point, so the differences are paired either way.
    public static func entry(_ results: [RunResult], study: Study, point k: Int, pair p: Int, _ metric: Metric)
        -> Comparison.Entry
    {
        entry(results, point: k, pair: p, metric, against: study.baselineIndex)
    }

    /// Point index `k`'s figures for one pair and metric, and its paired difference to
    /// point index `reference` (none when nil or `k` itself).
    public static func entry(_ results: [RunResult], point k: Int, pair p: Int, _ metric: Metric, against reference: Int?)
        -> Comparison.Entry
    {
        let r = results[k]
        let blocks = Comparison.source(r) == .blocks
        let xs = Comparison.groupValues(r, pair: p, metric)
        let value = Comparison.Estimate(xs.compactMap { $0 }, mean: blocks ? Comparison.pooled(r, pair: p, metric, days: nil) : nil)
        guard let b = reference, b != k, let q = results[b].pairs.firstIndex(of: r.pairs[p]) else {
            return Comparison.Entry(value: value, difference: .empty)
        }
        let ys = Comparison.groupValues(results[b], pair: q, metric)
        let diffs = zip(xs, ys).compactMap { x, y -> Double? in
            guard let x, let y else { return nil }
            return x - y
        }
        var mean: Double? = nil
        if blocks {
            guard let x = Comparison.pooled(r, pair: p, metric, days: nil),
                  let y = Comparison.pooled(results[b], pair: q, metric, days: nil)
            else { return Comparison.Entry(value: value, difference: .empty) }
            mean = x - y
        }
        return Comparison.Entry(value: value, difference: Comparison.Estimate(diffs, mean: mean))
    }

    public static func rows(_ results: [RunResult], study: Study) -> [[String]] {
        let byName = Dictionary(uniqueKeysWithValues: Metrics.all.map { ($0.name, $0) })
        var rows: [[String]] = []
        for (k, r) in results.enumerated() {
            for (p, pair) in r.pairs.enumerated() {
                var row = [r.scenario.name, String(r.scenario.seed)] + ReportWriter.studyFields(study, point: k)
                row += [pair.budget, pair.ranking, String(study.baselinePoint), String(r.replications), Comparison.source(r).rawValue]
                for name in metrics {
                    let e = entry(results, study: study, point: k, pair: p, byName[name]!)
                    row += [CSV.number(e.value.mean), CSV.number(e.value.halfWidth),
                            CSV.number(e.difference.mean), CSV.number(e.difference.halfWidth)]
                }
                for j in study.parameters.indices {
                    let previous = previous(study, point: k, along: j)
                    for name in metrics {
                        let d = previous.map { entry(results, point: k, pair: p, byName[name]!, against: $0).difference }
                        row += [CSV.number(d?.mean), CSV.number(d?.halfWidth)]
                    }
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
        // Within 80 columns: the rows grouped by point (its values on a line of their
        // own), each metric's mean and its paired difference (with its interval) to the
        // same pair at the baseline point.
        var lines = wrap(["study of \(study.totalPoints) points; \(reps) replication\(reps == 1 ? "" : "s"); shares in %;"
            + " mean, and paired difference to point \(study.baselinePoint) (Δ, ±95%)"], width: SummaryTable.width)
        var table: [[String]] = [["  budget", "ranking"] + shown.flatMap { [$0.header, "Δ"] }]
        var groups: [Int: [String]] = [:]
        for (k, r) in results.enumerated() {
            let point = study.points[k]
            let values = zip(study.parameters, point.values).map { "\($0) = \($1)" }
            groups[table.count] = wrap(values, width: SummaryTable.width,
                                       first: "point \(point.number)" + (point.number == study.baselinePoint ? " (baseline): " : ": "),
                                       next: "  ", separator: ",")
            for (p, pair) in r.pairs.enumerated() {
                var row = ["  " + pair.budget, pair.ranking]
                for c in shown {
                    let e = entry(results, study: study, point: k, pair: p, byName[c.metric]!)
                    row += [SummaryTable.cell(e.value, c, signed: false, interval: false),
                            e.difference.n == 0 ? "–" : SummaryTable.cell(e.difference, c, signed: true)]
                }
                table.append(row)
            }
        }
        let widths = table[0].indices.map { i in table.map { $0[i].count }.max()! }
        for (k, row) in table.enumerated() {
            if let group = groups[k] { lines += group }
            var line = row.enumerated().map { i, cell in
                i < 2 ? cell.padding(toLength: widths[i], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[i] - cell.count) + cell
            }.joined(separator: "  ")
            while line.last == " " { line.removeLast() }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    /// Each parameter path's last component (`per_day`), or more of it where two would
    /// have the same name.
    static func shortNames(_ paths: [String]) -> [String] {
        let parts = paths.map { $0.split(separator: ".").map(String.init) }
        for count in 1 ... max(1, parts.map(\.count).max() ?? 1) {
            let names = parts.map { $0.suffix(count).joined(separator: ".") }
            if Set(names).count == names.count { return names }
        }
        return paths
    }
}
