import EngineTestSupport
import Testing
import WidgetSimKernel
import WidgetSimModel
import WidgetSimReports

/// The engine asks the built-in `daily_quota` budget directly, without the protocol;
/// any other policy, even one forwarding to it, is asked through `BudgetPolicy`. Both
/// ways must count every request the same.
@Suite struct RequestPathTests {
    static let rules: [(perDay: Int, timeline: Int64?, background: Int64?)] = [
        (2, 15 * Milliseconds.minute, nil),
        (5, nil, 30 * Milliseconds.minute),
        (3, 2 * Milliseconds.hour, 10 * Milliseconds.minute),
        (48, 15 * Milliseconds.minute, nil),
    ]

    @Test(arguments: 0 ..< 3)
    func dailyQuotaDirectCountsAsThroughTheProtocol(stack: Int) throws {
        var s = RotationGovernorTests.stacks()[stack]
        s.person.tapProbability = 0.5
        var refused: Int64 = 0, deferred: Int64 = 0, charged: Int64 = 0
        for (perDay, timeline, background) in Self.rules {
            func make() -> DailyQuotaBudget {
                DailyQuotaBudget(
                    perDay: perDay, refusal: RefusalRule(timelineRetryMs: timeline, backgroundRetryMs: background))
            }
            for person in 0 ..< s.people {
                let direct = try simulate(s, person: person, budget: make(), ranking: StaticRanking())
                let forwarded = RecordingBudget(make())
                let throughProtocol = try simulate(s, person: person, budget: forwarded, ranking: StaticRanking())
                #expect(!forwarded.decisions.isEmpty)
                #expect(direct.person == throughProtocol.person, "stack \(stack), person \(person), \(perDay)")
                #expect(direct.widget == throughProtocol.widget)
                #expect(direct.refusals == throughProtocol.refusals)
                for day in 0 ..< direct.days {
                    refused += direct[day, refusal: .quotaExhausted]
                    for w in 0 ..< direct.widgets {
                        deferred += direct[day, widget: w, .deferred]
                        charged += direct[day, widget: w, .charged]
                    }
                }
            }
        }
        // Grants, deferrals and drops are all exercised.
        #expect(charged > 100 && refused > 100 && deferred > 10)
    }

    /// Each instance's energy of a day is the energy of its reloads that day, counted
    /// here from the reloads a forwarding policy is told of.
    @Test(arguments: 0 ..< 3)
    func energyIsTheReloadsCost(stack: Int) throws {
        var s = RotationGovernorTests.stacks()[stack]
        for w in s.widgets.indices { s.widgets[w].reloadCostMilli = Int64(250 + 1_000 * w) }
        var reloads = 0
        for person in 0 ..< s.people {
            let spy = RecordingBudget(DailyQuotaBudget(
                perDay: 4, refusal: RefusalRule(timelineRetryMs: 20 * Milliseconds.minute, backgroundRetryMs: nil)))
            let c = try simulate(s, person: person, budget: spy, ranking: StaticRanking())
            var expected = Array(repeating: Int64(0), count: c.days * c.widgets)
            for r in spy.reloads {
                expected[Int(r.time / Milliseconds.day) * c.widgets + r.instance] += s.widgets[r.instance].reloadCostMilli
            }
            for day in 0 ..< c.days {
                for w in 0 ..< c.widgets {
                    #expect(c[day, widget: w, .energyMilli] == expected[day * c.widgets + w], "day \(day), widget \(w)")
                }
            }
            reloads += spy.reloads.count
        }
        #expect(reloads > 100)
    }
}
