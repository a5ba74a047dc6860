import Foundation

/// Every budget beside the budget ceiling at that budget's own cost (MODEL §4, "The
/// budget ceiling"): the ceiling is the budget policy `oracle`, and its cost is its
/// `per_day` (from run.json), so a budget charging x reloads per widget-day is matched
/// with an `oracle` run at `per_day` x (to 0.5 %, or 0.005). With an `oracle` at
/// `per_day` 0 too (no charged reload), the page says what share of the stale member
/// views the ceiling removes at that cost the budget removes.
struct BudgetCeiling: Equatable {
    struct Row: Equatable {
        var budget: String
        var charged: Double
        var stale: Double
        /// The matching ceiling's label and stale member share, when the run has one.
        var ceiling: (label: String, stale: Double)?
        /// The share of what the ceiling removes at this cost that the budget removes,
        /// when the run has the ceiling at `per_day` 0 too.
        var reached: Double?

        static func == (a: Row, b: Row) -> Bool {
            a.budget == b.budget && a.charged == b.charged && a.stale == b.stale
                && a.ceiling?.label == b.ceiling?.label && a.ceiling?.stale == b.ceiling?.stale && a.reached == b.reached
        }
    }

    var ranking: String
    var rows: [Row]

    /// Whether an `oracle` run at `perDay` is the ceiling at cost `charged`.
    static func matches(_ perDay: Double, _ charged: Double) -> Bool {
        abs(perDay - charged) <= max(0.005, 0.005 * charged)
    }

    /// The rows under the ranking every budget runs (the baseline's when it can), one per
    /// budget that is not a ceiling; nil when the run has no budget to compare or lacks
    /// either metric. `ceilings`: the label and `per_day` of each `oracle` budget.
    static func make(_ c: ComparisonTable, ceilings: [String: Double]) -> BudgetCeiling? {
        guard let xName = c.name(of: .chargedPerWidgetDay), let yName = c.name(of: .staleMemberShare) else { return nil }
        let budgets = Figures.unique(c.pairs.map(\.budget)), rankings = Figures.unique(c.pairs.map(\.ranking))
        guard let ranking = Targets.firstContext(rankings, preferred: c.baseline?.ranking, has: { r in
            budgets.allSatisfy { c.pairs.contains(PairKey(budget: $0, ranking: r)) }
        }) ?? rankings.first else { return nil }
        func value(_ name: String, _ b: String) -> Double? { c.entries[name]?[PairKey(budget: b, ranking: ranking)]?.value.mean }
        let none = ceilings.filter { $0.value == 0 }.keys.sorted().first.flatMap { value(yName, $0) }
        let rows: [Row] = budgets.filter { ceilings[$0] == nil }.compactMap { b in
            guard let x = value(xName, b), let y = value(yName, b) else { return nil }
            let label = ceilings.filter { matches($0.value, x) }.sorted { abs($0.value - x) < abs($1.value - x) }.first?.key
            let ceiling = label.flatMap { l in value(yName, l).map { (l, $0) } }
            var reached: Double?
            if let ceiling, let none, none > ceiling.1 { reached = (none - y) / (none - ceiling.1) }
            return Row(budget: b, charged: x, stale: y, ceiling: ceiling, reached: reached)
        }
        return rows.isEmpty ? nil : BudgetCeiling(ranking: ranking, rows: rows)
    }

    /// What the page says of one row.
    static func sentence(_ r: Row) -> String {
        let cost = String(format: "%.2f", r.charged)
        guard let ceiling = r.ceiling else {
            return "To see the ceiling at this cost, add `{policy: oracle, label: oracle_\(r.budget), per_day: \(cost)}` "
                + "to the scenario's budgets."
        }
        let stale = String(format: "%.2f %%", r.stale * 100), best = String(format: "%.2f %%", ceiling.stale * 100)
        guard let reached = r.reached else {
            return "`\(r.budget)` leaves \(stale) of the stack's members stale at a view; with its reloads, the ceiling "
                + "`\(ceiling.label)` leaves \(best). With `oracle` at `per_day: 0` in the run too, the page says what share "
                + "of the possible it reaches."
        }
        return "`\(r.budget)` reaches \(String(format: "%.1f", reached * 100)) % of what is possible with its reloads "
            + "(\(stale) of the stack's members stale at a view; the ceiling `\(ceiling.label)` \(best))."
    }

    var html: String {
        var out = "<p>Each budget beside the budget ceiling at its own cost, under <code>\(markup(ranking))</code> (MODEL §4, "
            + "\"The budget ceiling\"): <code>oracle</code> with <code>per_day</code> equal to the budget's "
            + "<code>charged_reloads_per_widget_day</code> grants the widget's own requests where they leave the fewest stale "
            + "member views: no budget charging as many leaves fewer than its plan, and it comes within a few per cent of "
            + "its plan (MODEL §4). What it removes is measured from "
            + "<code>oracle</code> at <code>per_day: 0</code> (no charged reload).</p>\n"
            + "<div class=\"scroll\"><table class=\"headline\" id=\"budget-ceiling\"><thead><tr><th class=\"pair\">budget</th>"
            + "<th>charged reloads per widget-day</th><th>stale members at a view (%)</th><th>ceiling at its cost (%)</th>"
            + "<th class=\"pair\">against the ceiling</th></tr></thead>\n<tbody>\n"
        for r in rows {
            out += "<tr data-budget=\"\(markup(r.budget))\" data-reached=\"\(r.reached.map { String($0) } ?? "")\">"
                + "<td class=\"pair\"><code>\(markup(r.budget))</code></td><td>\(String(format: "%.2f", r.charged))</td>"
                + "<td>\(String(format: "%.2f", r.stale * 100))</td>"
                + "<td>\(r.ceiling.map { String(format: "%.2f", $0.stale * 100) } ?? "–")</td>"
                + "<td class=\"pair\">\(markup(Self.sentence(r)))</td></tr>\n"
        }
        return out + "</tbody></table></div>"
    }
}
