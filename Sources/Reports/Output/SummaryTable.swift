import Foundation
import WidgetSimExecution
import WidgetSimModel

/// The short table printed after a run (fits 80 columns for the usual labels: the
/// pairs grouped by budget, one ranking per row, shares in %, the ceiling on a line
/// of its own since it is the same for every pair):
/// headline metrics per policy pair as `mean±half-width` (95%, over replications; with
/// one replication, the run's value with an interval over its blocks of people as batch
/// means), then the best pair per metric with its paired difference to the baseline.
/// The figures are those of `comparison.csv` (`Comparison.entry`), shown as percentages
/// where the CSV has shares (mean staleness, and every other metric, is in the CSVs).
///
/// Runs of two weeks or more (of measured days) add the accuracy of the first and of the
/// last seven measured days beside the whole-run figure: a ranking that learns is weak in
/// the first week and strong in the last, which the whole-run mean hides.
///
/// Best accuracy leaves `oracle` out (it reads the ground truth, so it is a bound, not a
/// contender); ceiling is not ranked (the same for every pair). Ties go to the pair
/// listed first.
public enum SummaryTable {
    /// Which way a metric improves, for choosing the best pair.
    enum Direction { case higher, lower, unranked }

    /// The measured days a column covers.
    enum Span {
        case measured, firstWeek, lastWeek

        func days(_ t: PairTotals) -> Range<Int> {
            let m = t.measuredDays
            switch self {
            case .measured: return m
            case .firstWeek: return m.lowerBound ..< min(m.upperBound, m.lowerBound + 7)
            case .lastWeek: return max(m.lowerBound, m.upperBound - 7) ..< m.upperBound
            }
        }
    }

    /// Measured days from which the table shows first- and last-week accuracy.
    static let weekColumnsFrom = 14

    struct Column {
        var header: String
        var metric: String
        var span: Span = .measured
        /// Whether cells show the half-width: the week column shows two means instead.
        var intervals: Bool { span == .measured }
        /// Multiplies the metric before printing (100: a share printed as a percentage).
        var scale: Double
        var decimals: Int
        var direction: Direction
        var meaning: String
    }

    static let columns: [Column] = [
        Column(header: "accuracy", metric: "accuracy", scale: 100, decimals: 1, direction: .higher,
               meaning: "% of views whose top was the wanted widget"),
        Column(header: "wk1→last", metric: "accuracy", span: .lastWeek, scale: 100, decimals: 1, direction: .higher,
               meaning: "accuracy in the first and in the last 7 measured days (means)"),
        Column(header: "charged/wd", metric: "charged_reloads_per_widget_day", scale: 1, decimals: 1, direction: .lower,
               meaning: "reloads charged to budgets per widget-day"),
        Column(header: "stale", metric: "stale_view_share", scale: 100, decimals: 1, direction: .lower,
               meaning: "% of views showing stale content"),
        Column(header: "stack stale", metric: "stale_member_share", scale: 100, decimals: 1, direction: .lower,
               meaning: "% of stack members stale at a view, whatever is on top (the budget alone)"),
    ]

    /// The ceiling, shown once above the table (it is the same for every pair).
    static let ceiling = Column(header: "ceiling", metric: "ceiling", scale: 100, decimals: 1, direction: .unranked,
                                meaning: "")

    /// The width the table and its notes keep within.
    static let width = 80

    /// The columns for this run: the week columns only when it measures two weeks or more.
    static func columns(_ r: RunResult) -> [Column] {
        let measured = r.totals.first?.first?.measuredDays.count ?? 0
        return measured >= weekColumnsFrom ? columns : columns.filter { $0.span == .measured }
    }

    /// A column's figures for pair `p`: `Comparison.entry` over the column's days.
    static func entry(_ r: RunResult, pair p: Int, _ metric: Metric, _ span: Span) -> Comparison.Entry {
        if span == .measured { return Comparison.entry(r, pair: p, metric) }
        return Comparison.entry(r, pair: p, metric, days: span.days(r.totals[0][p]))
    }

    /// The table for `r`, as `widgetsim run` prints it after a run.
    public static func render(_ r: RunResult) -> String {
        let metrics = Dictionary(uniqueKeysWithValues: Metrics.all.map { ($0.name, $0) })
        let columns = columns(r)
        let entries: [[Comparison.Entry]] = r.pairs.indices.map { p in
            columns.map { entry(r, pair: p, metrics[$0.metric]!, $0.span) }
        }
        let baseline = Comparison.baselineIndex(r)
        var lines: [String] = []

        let days = r.totals.first?.first?.measuredDays ?? 0 ..< r.scenario.days
        let reps = Comparison.source(r) == .blocks
            ? "1 replication; value±95% half-width over \(r.blockTotals.count) blocks of people"
            : "\(r.replications) replications; mean±95% half-width"
        lines += wrap(["\(reps) over the measured days (\(days.count))" + (baseline == nil ? "" : "; * baseline")], width: width)
        if !r.pairs.isEmpty {
            let e = entry(r, pair: baseline ?? 0, metrics["ceiling"]!, .measured)
            lines.append("ceiling (the best accuracy a ranking can expect, for every pair): "
                         + cell(e.value, Self.ceiling, signed: false) + " %")
        }

        // Rows grouped by budget (pairs are budget-major): the budget on a line of its own.
        var table: [[String]] = [["budget / ranking"] + columns.map(\.header)]
        var groups: [Int: String] = [:]
        for (p, pair) in r.pairs.enumerated() {
            if p == 0 || r.pairs[p - 1].budget != pair.budget { groups[table.count] = pair.budget }
            let mark = p == baseline ? " *" : ""
            table.append(["  " + pair.ranking + mark] + zip(columns, entries[p]).map { c, e in
                guard c.span == .lastWeek else { return cell(e.value, c, signed: false) }
                let first = entry(r, pair: p, metrics[c.metric]!, .firstWeek)
                return cell(first.value, c, signed: false, interval: false) + "→" + cell(e.value, c, signed: false, interval: false)
            })
        }
        let widths = table[0].indices.map { i in table.map { $0[i].count }.max()! }
        for (k, row) in table.enumerated() {
            if let budget = groups[k] { lines.append(budget) }
            lines.append(row.enumerated().map { i, text in
                i < 1 ? text.padding(toLength: widths[i], withPad: " ", startingAt: 0)
                      : String(repeating: " ", count: widths[i] - text.count) + text
            }.joined(separator: "  ").trimmingTrailingSpaces())
        }
        lines += wrap(columns.map { "\($0.header): \($0.meaning)" }, width: width)

        lines.append("")
        if let baseline {
            lines += wrap(["best pair per metric; paired difference to the baseline (\(r.pairs[baseline])), 95%:"], width: width)
        } else {
            lines.append("best pair per metric (the baseline pair was not run, so no differences):")
        }
        let isOracle = r.pairs.map { pair in
            r.scenario.rankings.first { $0.label == pair.ranking }?.name == "oracle"
        }
        var best: [(header: String, direction: String, pair: String, difference: String)] = []
        var bestAccuracy: Int? = nil
        for (i, c) in columns.enumerated() where c.direction != .unranked {
            let candidates = r.pairs.indices.filter { p in
                entries[p][i].value.mean != nil && !(c.metric == "accuracy" && isOracle[p])
            }
            let direction = c.direction == .higher ? "higher is better" : "lower is better"
            guard let winner = candidates.min(by: { a, b in
                let x = entries[a][i].value.mean!, y = entries[b][i].value.mean!
                return c.direction == .higher ? x > y : x < y
            }) else {
                best.append((c.span == .lastWeek ? "last wk" : c.header, direction, "–", ""))
                continue
            }
            if c.metric == "accuracy" && c.span == .measured { bestAccuracy = winner }
            let difference: String
            if winner == baseline {
                difference = "(the baseline)"
            } else if baseline != nil {
                difference = cell(entries[winner][i].difference, c, signed: true)
            } else {
                difference = ""
            }
            best.append((c.span == .lastWeek ? "last wk" : c.header, direction, r.pairs[winner].description, difference))
        }
        let w0 = best.map(\.header.count).max() ?? 0
        let w1 = best.map(\.direction.count).max() ?? 0
        let w2 = best.map(\.pair.count).max() ?? 0
        for b in best {
            lines.append(("  " + b.header.padding(toLength: w0, withPad: " ", startingAt: 0)
                + "  " + b.direction.padding(toLength: w1, withPad: " ", startingAt: 0)
                + "  " + b.pair.padding(toLength: w2, withPad: " ", startingAt: 0)
                + "  " + b.difference).trimmingTrailingSpaces())
        }
        lines.append("  the ceiling is an expected value: a ranking can beat it by sampling noise.")
        if columns.contains(where: { $0.span != .measured }) {
            lines.append("  wk1→last: a ranking that learns gains from the first week to the last;")
            lines.append("  static cannot.")
        }
        if isOracle.contains(true) {
            lines.append("  oracle is left out of best accuracy: it reads the people's ground truth.")
        }
        lines += reasons(r, baseline: baseline, best: bestAccuracy)
        return lines.joined(separator: "\n")
    }

    /// The top three refusal and missed-view reasons (reasons.csv) of the baseline and
    /// of the pair with the best accuracy, over the measured days of every replication.
    static func reasons(_ r: RunResult, baseline: Int?, best: Int?) -> [String] {
        var shown: [(Int, String)] = []
        if let baseline { shown.append((baseline, "baseline")) }
        if let best, best != baseline { shown.append((best, "best accuracy")) }
        guard !shown.isEmpty else { return [] }
        func list(_ items: [(label: String, count: Int64, share: Double)]) -> String {
            items.isEmpty ? "none" : items.map {
                "\($0.label) \(format(Double($0.count), 0, signed: false)) (\(String(format: "%.0f", $0.share * 100))%)"
            }.joined(separator: ", ")
        }
        var lines = ["", "top reasons (reasons.csv), over the measured days:"]
        for (p, role) in shown {
            lines.append("  \(r.pairs[p]) (\(role))")
            lines += wrap(list(ReasonsReport.topRefusals(r, pair: p)).components(separatedBy: ", ").map { $0 }, width: width,
                          first: "    refusals:     ", next: String(repeating: " ", count: 18), separator: ",")
            lines += wrap(list(ReasonsReport.topMissedViews(r, pair: p)).components(separatedBy: ", "), width: width,
                          first: "    missed views: ", next: String(repeating: " ", count: 18), separator: ",")
        }
        return lines
    }

    /// `mean±half-width`, or the mean alone when there is no interval; `–` when undefined.
    static func cell(_ e: Comparison.Estimate, _ c: Column, signed: Bool, interval: Bool = true) -> String {
        guard let mean = e.mean else { return "–" }
        var text = format(mean * c.scale, c.decimals, signed: signed)
        if interval, let h = e.halfWidth { text += "±" + format(h * c.scale, c.decimals, signed: false) }
        return text
    }

    /// Fixed decimals; whole numbers of 10 000 or more shortened to three significant
    /// digits with k, M or G, so that large counts keep the table narrow.
    static func format(_ v: Double, _ decimals: Int, signed: Bool) -> String {
        var text: String
        let a = abs(v)
        if decimals == 0 && a >= 10_000 {
            let (scaled, suffix) = a >= 1e9 ? (a / 1e9, "G") : a >= 1e6 ? (a / 1e6, "M") : (a / 1e3, "k")
            let digits = scaled >= 100 ? 0 : scaled >= 10 ? 1 : 2
            text = String(format: "%.\(digits)f", scaled) + suffix
            if v < 0 { text = "-" + text }
        } else {
            text = String(format: "%.\(decimals)f", v)
        }
        if text.hasPrefix("-") && text.dropFirst().allSatisfy({ $0 == "0" || $0 == "." }) { text.removeFirst() }
        if signed && !text.hasPrefix("-") { text = "+" + text }
        return text
    }
}

/// Items joined by `separator` and a space, broken into lines of at most `width`
/// characters between items (and between words of an item longer than a line); the
/// first line starts with `first`, the others with `next`.
func wrap(_ items: [String], width: Int, first: String = "", next: String = "", separator: String = ";") -> [String] {
    var lines: [String] = []
    var line = first
    var lineIsEmpty = true
    func add(_ piece: String) {
        if !lineIsEmpty && line.count + 1 + piece.count > width {
            lines.append(line)
            line = next
            lineIsEmpty = true
        }
        line += (lineIsEmpty ? "" : " ") + piece
        lineIsEmpty = false
    }
    for (i, item) in items.enumerated() {
        let piece = item + (i < items.count - 1 ? separator : "")
        let room = width - max(first.count, next.count)
        if piece.count > room {
            for word in piece.split(separator: " ") { add(String(word)) }
        } else {
            add(piece)
        }
    }
    if !lineIsEmpty { lines.append(line) }
    return lines
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var s = Substring(self)
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
