import WidgetSimExecution
import WidgetSimModel

/// `reasons.csv`: why requests were refused and why views missed the wanted widget —
/// one row per policy pair, replication, day, reason code and widget instance (the one
/// that asked, or the one wanted; for views also the one on top instead) with a count;
/// a code without any count on a day has one row of count 0 with no widget. A budget's
/// refusal codes are those its descriptor lists (and any other it counted): a code that
/// cannot occur for a pair has no rows.
///
/// `kind` groups the codes so that each group adds up to a column of the other reports:
/// - `refusal`: the budget policy's codes; over the measured days they sum to
///   `requests_denied + requests_deferred` of `summary.csv`;
/// - `system_refusal`: the system's rules — `coalesced` sums to `requests_coalesced`
///   of `widget_days.csv`, `push_throttled` counts background pushes dropped;
/// - `missed_view`: one per view whose wanted widget was not on top; they sum to
///   `views_wanted − hits`;
/// - `stale_on_top`: `stale_content`, views whose wanted widget was on top but stale
///   (among the hits, counted apart);
/// - `outside_stack`: `not_in_stack`, views whose wanted widget is placed nowhere
///   (not among `views_wanted`).
public enum ReasonsReport {
    public static func header() -> [String] { Schema.reasonsColumns.map(\.name) }

    public static func kind(_ r: RefusalReason) -> String { r.isSystemRule ? "system_refusal" : "refusal" }
    public static func kind(_ r: MissedViewReason) -> String {
        r.isMiss ? "missed_view" : r == .staleContent ? "stale_on_top" : "outside_stack"
    }

    public static func table(_ r: RunResult) -> Table {
        var table = Table(file: "reasons.csv", rows: Schema.reasonsRows, columns: Schema.reasonsColumns)
        let possible = r.pairs.indices.map { refusalCodes(r, pair: $0) }
        for rep in 0 ..< r.replications {
            for (p, pair) in r.pairs.enumerated() {
                let t = r.totals[rep][p]
                for day in 0 ..< t.days {
                    let head = ReportWriter.identity(r.scenario, pair, rep) + [String(day), day < t.warmupDays ? "1" : "0"]
                    let ids = r.scenario.widgets.map(\.id)
                    func id(_ w: Int) -> String { w < ids.count ? ids[w] : "" }
                    for code in possible[p] {
                        var any = false
                        for w in 0 ..< t.widgets {
                            let n = t.value(day: day, widget: w, code)
                            if n != 0 { table.rows.append(head + [kind(code), code.label, id(w), "", String(n)]); any = true }
                        }
                        if !any { table.rows.append(head + [kind(code), code.label, "", "", "0"]) }
                    }
                    for code in MissedViewReason.allCases {
                        var any = false
                        for w in 0 ... t.widgets {
                            for top in 0 ... t.widgets {
                                let n = t.value(day: day, wanted: w, top: top, code)
                                if n != 0 { table.rows.append(head + [kind(code), code.label, id(w), id(top), String(n)]); any = true }
                            }
                        }
                        if !any { table.rows.append(head + [kind(code), code.label, "", "", "0"]) }
                    }
                }
            }
        }
        return table
    }

    public static func csv(_ r: RunResult) -> String { table(r).csv }

    /// The refusal codes pair `p` can give, in code order: the system's rules, the codes
    /// its budget's descriptor lists, and any other the run counted for it (so that no
    /// count is ever left out, whatever a custom policy's descriptor says).
    public static func refusalCodes(_ r: RunResult, pair p: Int) -> [RefusalReason] {
        let budget = r.scenario.budgets.first { $0.label == r.pairs[p].budget }
        let listed = Set(budget.flatMap { r.scenario.policies.budget(named: $0.name)?.refusals } ?? RefusalReason.allCases)
        return RefusalReason.allCases.filter { code in
            code.isSystemRule || listed.contains(code) || r.totals.contains { $0[p].sum(code) != 0 }
        }
    }

    /// The `n` most frequent refusal codes (system rules included) of pair `p` over the
    /// measured days of every replication, most frequent first; codes never counted are
    /// left out.
    public static func topRefusals(_ r: RunResult, pair p: Int, _ n: Int = 3) -> [(label: String, count: Int64, share: Double)] {
        top(RefusalReason.allCases.map { code in (code.label, r.totals.reduce(0) { $0 + $1[p].sum(code) }) }, n)
    }

    /// The `n` most frequent missed-view codes of pair `p` (`stale_content` left out).
    public static func topMissedViews(_ r: RunResult, pair p: Int, _ n: Int = 3) -> [(label: String, count: Int64, share: Double)] {
        top(MissedViewReason.allCases.filter(\.isMiss).map { code in
            (code.label, r.totals.reduce(0) { $0 + $1[p].sum(code) })
        }, n)
    }

    static func top(_ counts: [(String, Int64)], _ n: Int) -> [(label: String, count: Int64, share: Double)] {
        let total = counts.reduce(0) { $0 + $1.1 }
        // A stable sort: equal counts keep the vocabulary's order.
        let sorted = counts.enumerated().sorted { a, b in a.element.1 != b.element.1 ? a.element.1 > b.element.1 : a.offset < b.offset }
        return sorted.prefix(n).filter { $0.element.1 > 0 }.map { e in
            (e.element.0, e.element.1, Double(e.element.1) / Double(max(1, total)))
        }
    }
}
