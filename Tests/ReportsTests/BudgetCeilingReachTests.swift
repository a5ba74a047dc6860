import EngineTestSupport
import Foundation
import Testing
import WidgetSimKernel
import WidgetSimScenario
@testable import WidgetSimModel

/// The budget ceiling on the default scenario, where a grant of its own can move a
/// member's next request past a later planned change and where predictable content and
/// taps lie outside its plan (MODEL §4): its counted run still removes nearly all the
/// stale member views its plan's bound removes, and charges no more than it planned.
@Suite struct BudgetCeilingReachTests {
    /// Four people over 28 days at `ios_like`'s cost there (6.288 a widget-day): the
    /// counted run removes at least 95 % of what the bound removes (97.5 % over eight
    /// people when this was written), person by person, and charges at most K.
    @Test func reachesNearlyItsBound() throws {
        var s = try loadScenario("default.yaml")
        s.days = 28
        for person in 0 ..< 4 {
            let none = total(try simulate(s, person: person, budget: NoCharges(), ranking: StaticRanking()), .staleMemberViews)
            let oracle = OracleBudget(perDay: 6.288)
            let counts = try simulate(s, person: person, budget: oracle, ranking: StaticRanking())
            let removed = Double(none - total(counts, .staleMemberViews))
            #expect(oracle.plannedSavedViews > 0)
            #expect(removed >= 0.95 * Double(oracle.plannedSavedViews), "person \(person)")
            #expect(removed <= 1.02 * Double(oracle.plannedSavedViews), "person \(person)")
            #expect(total(counts, .charged) <= Int64(oracle.plannedReloads))
        }
    }
}
