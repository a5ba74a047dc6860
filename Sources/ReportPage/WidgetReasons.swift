import Foundation

/// Why, per widget: for one pair, each widget's missed views (the views where it was
/// wanted and something else was on top) with their top reasons and the widgets on top
/// instead, and its refused requests with their top reasons (from reasons.csv's
/// `widget` and `top_widget` columns).
struct WidgetReasons: Equatable {
    struct Row: Equatable {
        var widget: String
        var missed: Double
        /// The most frequent codes, most first, with their counts.
        var missedReasons: [(String, Double)]
        var onTopInstead: [(String, Double)]
        var refused: Double
        var refusalReasons: [(String, Double)]

        static func == (a: Row, b: Row) -> Bool {
            a.widget == b.widget && a.missed == b.missed && a.refused == b.refused
                && a.missedReasons.map(\.0) == b.missedReasons.map(\.0) && a.onTopInstead.map(\.0) == b.onTopInstead.map(\.0)
                && a.refusalReasons.map(\.0) == b.refusalReasons.map(\.0)
        }
    }

    var pair: PairKey
    var rows: [Row]

    static func top(_ counts: [String: Double], _ n: Int = 3) -> [(String, Double)] {
        Array(counts.filter { $0.value > 0 }.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(n))
    }

    /// The rows of `pair`, most missed views first; nil when the file names no widgets.
    static func make(_ r: ReasonsTable, pair: PairKey) -> WidgetReasons? {
        let missed = r.byWidget["missed_view"]?[pair] ?? [:]
        var refusals: [String: [String: Double]] = [:]
        for kind in ["refusal", "system_refusal"] {
            for (w, byCode) in r.byWidget[kind]?[pair] ?? [:] {
                for (code, n) in byCode { refusals[w, default: [:]][code, default: 0] += n }
            }
        }
        let widgets = Set(missed.keys).union(refusals.keys)
        guard !widgets.isEmpty else { return nil }
        let rows = widgets.map { w in
            Row(widget: w, missed: missed[w]?.values.reduce(0, +) ?? 0, missedReasons: top(missed[w] ?? [:]),
                onTopInstead: top(r.topInstead[pair]?[w] ?? [:]),
                refused: refusals[w]?.values.reduce(0, +) ?? 0, refusalReasons: top(refusals[w] ?? [:]))
        }.sorted { ($0.missed, $0.refused, $1.widget) > ($1.missed, $1.refused, $0.widget) }
        return WidgetReasons(pair: pair, rows: rows)
    }

    static func number(_ x: Double) -> String {
        x == x.rounded() ? String(Int(x)) : String(format: x >= 10 ? "%.0f" : "%.1f", x)
    }

    static func list(_ items: [(String, Double)], total: Double) -> String {
        guard total > 0, !items.isEmpty else { return "–" }
        return items.map { "<code>\(markup($0.0))</code> \(Int(($0.1 / total * 100).rounded()))%" }.joined(separator: ", ")
    }

    var html: String {
        var out = "<p>Why, per widget, under <code>\(markup(pair.budget))/\(markup(pair.ranking))</code> (mean per replication over the "
            + "measured days, from <code>reasons.csv</code>'s <code>widget</code> and <code>top_widget</code> columns): the views where "
            + "the widget was wanted and not on top, their most frequent reasons and what was on top instead; its refused requests "
            + "and their reasons.</p>\n<div class=\"scroll\"><table class=\"headline\" id=\"widget-reasons\">"
            + "<thead><tr><th class=\"pair\">widget</th><th>missed views</th><th class=\"pair\">why (share)</th>"
            + "<th class=\"pair\">on top instead</th><th>refused requests</th><th class=\"pair\">why (share)</th></tr></thead>\n<tbody>\n"
        for row in rows {
            out += "<tr data-widget=\"\(markup(row.widget))\" data-missed=\"\(row.missed)\" data-top-reason=\"\(markup(row.missedReasons.first?.0 ?? ""))\">"
                + "<td class=\"pair\"><code>\(markup(row.widget))</code></td><td>\(Self.number(row.missed))</td>"
                + "<td class=\"pair\">\(Self.list(row.missedReasons, total: row.missed))</td>"
                + "<td class=\"pair\">\(Self.list(row.onTopInstead, total: row.missed))</td>"
                + "<td>\(Self.number(row.refused))</td><td class=\"pair\">\(Self.list(row.refusalReasons, total: row.refused))</td></tr>\n"
        }
        return out + "</tbody></table></div>"
    }
}
