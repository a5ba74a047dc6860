import EngineTestSupport
import Foundation
import Testing
import WidgetSimKernel
import WidgetSimModel

/// StandBy display refreshes at the system's rate, and view_weighted's budget for an
/// instance nobody looks at (MODEL §2, §4).
@Suite struct SystemRateTests {
    /// StandBy every night from 23:00 for 7 hours (no spread, no glances), ordinary views
    /// only from 07:00 to 23:00; one widget with the timeline policy `reload`.
    static func standBy(reload: ReloadPolicy, refreshMs: Int64? = nil, budget: String = "unlimited") -> Scenario {
        var model = StandByModel()
        model.spreadMs = 0
        model.sigma = 0
        model.viewsPerHour = 0
        if let refreshMs { model.refreshIntervalMs = refreshMs }
        return scenario(people: 4, days: 3, widgets: [widget("clock", base: 1, reload: reload)],
                        budgets: [PolicyChoice(name: budget)]) { p in
            p.viewProfile = HourProfile.waking
            p.standBy = model
        }
    }

    /// StandBy refreshes of person `person`, and what the periods hold at the rate:
    /// one at each period's start and one every interval after it within the period.
    static func refreshes(_ s: Scenario, person: Int) throws -> (counted: Int64, expected: Int64) {
        let builder = try WorldBuilder(scenario: s)
        let world = builder.build(person: person, replication: 0)
        let engine = PersonEngine(
            scenario: s, budget: BudgetPolicies.named(s.budgets[0].name)!.make(s.budgets[0].parameters),
            ranking: StaticRanking())
        let counts = engine.run(world)
        let counted = (0 ..< s.days).reduce(Int64(0)) { $0 + counts[$1, widget: 0, .reloadStandBy] }
        let interval = s.person.standBy!.refreshIntervalMs
        let expected = zip(world.standByStarts, world.standByEnds).reduce(Int64(0)) { sum, span in
            sum + (span.1 - span.0 + interval - 1) / interval
        }
        return (counted, expected)
    }

    /// The widget's own policy does not change the StandBy refreshes: asking every
    /// minute, every 15 minutes or never, each night gets one refresh every 15 minutes
    /// (the default rate), exactly as many as the periods hold.
    @Test func standByRefreshesDoNotFollowTheWidgetsPolicy() throws {
        let policies: [ReloadPolicy] = [.after(Milliseconds.minute), .after(15 * Milliseconds.minute), .never, .atEnd]
        for person in 0 ..< 4 {
            var counts: [Int64] = []
            for reload in policies {
                let (counted, expected) = try Self.refreshes(Self.standBy(reload: reload), person: person)
                #expect(counted == expected, "\(reload): \(counted) StandBy refreshes, the periods hold \(expected)")
                counts.append(counted)
            }
            // 6 h on the first night, 7 h on the next two, 1 h on the last: 84 at 15 min.
            #expect(Set(counts) == [84], "person \(person): \(counts)")
        }
    }

    /// The rate is the scenario's: every 30 minutes, half as many.
    @Test func standByRefreshesFollowTheScenariosRate() throws {
        let (counted, expected) = try Self.refreshes(
            Self.standBy(reload: .after(Milliseconds.minute), refreshMs: 30 * Milliseconds.minute), person: 0)
        #expect(counted == expected && counted == 42, "\(counted)")
    }

    /// Requests the widget's own timeline makes during StandBy go to the budget as at
    /// any other time (only the system's display refreshes are free): under a budget of
    /// 12 a day, a widget asking every minute is asked about in StandBy too, and gets no
    /// more than 12 charged reloads a day.
    @Test func timelineRequestsInStandByAreCharged() throws {
        var s = Self.standBy(reload: .after(Milliseconds.minute))
        s.budgets = [PolicyChoice(name: "daily_quota", parameters: PolicyParameters(["per_day": .number(12)]))]
        let builder = try WorldBuilder(scenario: s)
        for person in 0 ..< s.people {
            let spy = RecordingBudget(BudgetPolicies.named("daily_quota")!.make(s.budgets[0].parameters))
            let world = builder.build(person: person, replication: 0)
            let c = PersonEngine(scenario: s, budget: spy, ranking: StaticRanking()).run(world)
            let spans = Array(zip(world.standByStarts, world.standByEnds))
            let inStandBy = spy.decisions.filter { d in spans.contains { $0.0 <= d.time && d.time < $0.1 } }
            #expect(inStandBy.count > 100, "person \(person): \(inStandBy.count) requests asked in StandBy")
            let charged = (0 ..< s.days).reduce(Int64(0)) { $0 + c[$1, widget: 0, .charged] }
            #expect(charged <= Int64(12 * s.days), "person \(person): \(charged)")
        }
    }

    // MARK: - view_weighted and instances nobody views

    /// Two widgets asking every 5 minutes in a stack with Smart Rotate off: the first is
    /// seen at every view (80 a day), the second never (no swipes). After the learning
    /// period (3 days), view_weighted gives the first 40–70 charged reloads a day (Apple,
    /// "Keeping a widget up to date") and the second well below 40: its default minimum,
    /// 5 a day.
    @Test func viewWeightedGivesAnInstanceNobodyViewsFewReloads() throws {
        var s = scenario(
            people: 5, days: 7,
            widgets: [widget("seen", base: 1, reload: .after(5 * Milliseconds.minute)),
                      widget("unseen", base: 1, reload: .after(5 * Milliseconds.minute))],
            budgets: [PolicyChoice(name: "view_weighted")]) { p in
                p.swipeProbability = 0
                p.sessionsPerDay = PerPersonRate(mean: 0)
            }
        s.stack = StackSpec(members: [0, 1], smartRotate: false)
        let days = 4 ..< 7
        var sums: [WidgetCounter: [Int64]] = [.views: [0, 0], .charged: [0, 0]]
        for person in 0 ..< s.people {
            let c = try simulate(s, person: person, budget: BudgetPolicies.named("view_weighted")!.make(PolicyParameters()),
                                 ranking: StaticRanking())
            for counter in [WidgetCounter.views, .charged] {
                for w in 0 ..< 2 { sums[counter]![w] += days.reduce(Int64(0)) { $0 + c[$1, widget: w, counter] } }
            }
        }
        func perDay(_ w: Int, _ c: WidgetCounter) -> Double { Double(sums[c]![w]) / Double(days.count * s.people) }
        #expect(perDay(1, .views) == 0)
        #expect(perDay(0, .views) > 70)
        let seen = perDay(0, .charged), unseen = perDay(1, .charged)
        #expect(seen >= 40 && seen <= 70, "frequently viewed: \(seen) a day")
        #expect(unseen <= 10, "never viewed: \(unseen) a day")
    }
}
