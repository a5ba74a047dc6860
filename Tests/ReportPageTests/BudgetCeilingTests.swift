import Foundation
import Testing
@testable import WidgetSimReportPage

/// The page's budgets against the ceiling at their own cost, on comparisons built by hand.
@Suite("report.html budgets against the ceiling")
struct BudgetCeilingTests {
    /// Budgets under `static`: label → (charged reloads per widget-day, stale member share).
    func comparison(_ budgets: [(String, Double, Double)]) -> ComparisonTable {
        var c = ComparisonTable()
        c.pairs = budgets.map { PairKey(budget: $0.0, ranking: "static") }
        c.baseline = c.pairs.first
        for (b, charged, stale) in budgets {
            let pair = PairKey(budget: b, ranking: "static")
            c.entries["charged_reloads_per_widget_day", default: [:]][pair] = (Estimate(mean: charged, halfWidth: nil), nil)
            c.entries["stale_member_share", default: [:]][pair] = (Estimate(mean: stale, halfWidth: nil), nil)
        }
        return c
    }

    /// A budget is matched with the ceiling at its own cost, and what it removes is
    /// measured against what the ceiling removes from no charged reload: (0.30 − 0.24) ÷
    /// (0.30 − 0.10) = 30 %. A budget at a cost no ceiling ran says how to get one; the
    /// ceilings are not rows of their own.
    @Test func matchedAtItsOwnCost() throws {
        let c = comparison([("ios_like", 5.5, 0.24), ("predictive", 4.0, 0.20),
                            ("oracle_ios", 5.5, 0.10), ("oracle_none", 0, 0.30)])
        let t = try #require(BudgetCeiling.make(c, ceilings: ["oracle_ios": 5.51, "oracle_none": 0]))
        #expect(t.rows.map(\.budget) == ["ios_like", "predictive"])
        let ios = t.rows[0]
        #expect(ios.ceiling?.label == "oracle_ios" && ios.ceiling?.stale == 0.10)
        #expect(abs(ios.reached! - 0.30) < 1e-12)
        #expect(BudgetCeiling.sentence(ios).hasPrefix("`ios_like` reaches 30.0 % of what is possible with its reloads"))
        #expect(t.rows[1].ceiling == nil && t.rows[1].reached == nil)
        #expect(BudgetCeiling.sentence(t.rows[1]).contains("per_day: 4.00"))
        #expect(t.html.contains("data-budget=\"ios_like\" data-reached=\"0.3"))
    }

    /// Without the ceiling at no charged reload, the page gives both stale shares and no share reached.
    @Test func withoutTheFloor() throws {
        let c = comparison([("ios_like", 5.5, 0.24), ("oracle_ios", 5.5, 0.10)])
        let t = try #require(BudgetCeiling.make(c, ceilings: ["oracle_ios": 5.5]))
        #expect(t.rows.count == 1 && t.rows[0].reached == nil && t.rows[0].ceiling?.label == "oracle_ios")
        #expect(BudgetCeiling.sentence(t.rows[0]).contains("leaves 24.00 %"))
        #expect(!BudgetCeiling.matches(5.6, 5.5) && BudgetCeiling.matches(5.52, 5.5))
    }
}
