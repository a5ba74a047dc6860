import EngineTestSupport
import Foundation
import Testing
import WidgetSimKernel
import WidgetSimModel
import WidgetSimReports

/// Properties and analytic expectations of the reload model (MODEL §2–§4).
@Suite struct ReloadModelTests {
    /// A busy scenario: pushes, sessions, random changes, an interactive widget.
    func busy(budgets: [PolicyChoice], people: Int = 6, days: Int = 4) -> Scenario {
        var news = ContentSpec()
        news.randomPerDay = 40
        news.pushFraction = 0.8
        var todo = ContentSpec()
        todo.randomPerDay = 4
        return scenario(
            people: people, days: days,
            widgets: [
                widget("news", base: 0.4, reload: .after(15 * Milliseconds.minute), content: news),
                widget("todo", base: 0.3, reload: .never, content: todo, interactive: true),
                widget("stocks", base: 0.2, reload: .after(10 * Milliseconds.minute), content: news),
            ],
            budgets: budgets) { p in
                p.tapProbability = 0.8
                p.sessionsPerDay = PerPersonRate(mean: 20, cv: 0)
            }
    }

    @Test func dailyQuotaNeverGrantsMoreThanNInAnyRollingDay() throws {
        let n = 20
        let s = busy(budgets: [PolicyChoice(name: "daily_quota", parameters: PolicyParameters(["per_day": .number(Double(n))]))])
        for person in 0 ..< 4 {
            let spy = RecordingBudget(BudgetPolicies.named("daily_quota")!.make(s.budgets[0].parameters))
            _ = try simulate(s, person: person, budget: spy, ranking: StaticRanking())
            let refused = spy.decisions.filter { $0.decision != .grant }
            #expect(!refused.isEmpty, "the scenario must push the quota to its limit")
            for w in s.widgets.indices {
                let charged = spy.reloads.filter { $0.instance == w && $0.charged }.map(\.time)
                for (i, t) in charged.enumerated() {
                    let inWindow = charged[...i].filter { $0 > t - Milliseconds.day }.count
                    #expect(inWindow <= n, "instance \(w): \(inWindow) charged reloads in the 24 h before \(t)")
                }
            }
        }
    }

    @Test func freeReasonsNeverReachTheBudgetAndAreNeverRefused() throws {
        let s = busy(budgets: [PolicyChoice(name: "daily_quota", parameters: PolicyParameters(["per_day": .number(3)]))])
        let spy = RecordingBudget(BudgetPolicies.named("daily_quota")!.make(s.budgets[0].parameters))
        let counts = try simulate(s, person: 1, budget: spy, ranking: StaticRanking())
        #expect(spy.decisions.allSatisfy { $0.reason.isCharged })
        // Every free reload asked for happened: reloads reported uncharged = the free reason counts.
        var free: Int64 = 0
        for d in 0 ..< s.days {
            for w in s.widgets.indices {
                for r in ReloadReason.allCases where !r.isCharged { free += counts[d, widget: w, WidgetCounter.reload(r)] }
            }
        }
        #expect(free == Int64(spy.reloads.filter { !$0.charged }.count))
        #expect(free > 0)
    }

    @Test func interactionsAreGrantedAtOnce() throws {
        let s = busy(budgets: [PolicyChoice(name: "daily_quota", parameters: PolicyParameters(["per_day": .number(1)]))])
        let spy = RecordingBudget(BudgetPolicies.named("daily_quota")!.make(s.budgets[0].parameters))
        let counts = try simulate(s, person: 2, budget: spy, ranking: StaticRanking())
        var taps: Int64 = 0, interactions: Int64 = 0
        for d in 0 ..< s.days {
            taps += counts[d, .taps]
            for w in s.widgets.indices { interactions += counts[d, widget: w, .reloadInteraction] }
        }
        #expect(taps > 0)
        #expect(interactions == taps)
    }

    @Test func eachLocalMidnightForcesOneReloadPerInstance() throws {
        // UTC: no DST, no travel, so every time change is a midnight.
        let r = try run(busy(budgets: [PolicyChoice(name: "daily_quota")], people: 3, days: 5))
        let t = r.totals[0][0]
        for d in 0 ..< t.days {
            for w in 0 ..< t.widgets {
                #expect(t.value(day: d, widget: w, .reloadTimeChange) == Int64(t.people))
            }
            #expect(t.value(day: d, .timeChanges) == Int64(t.people))
        }
    }

    @Test func midnightsFollowTheTimeZoneAndDST() throws {
        // Berlin, the week of the spring change (Sunday 2026-03-29 02:00 CET → 03:00
        // CEST). The run is 7 × 24 h from Monday 00:00 CET, so it ends at the next
        // Monday 01:00 CEST: 8 local midnights and the transition.
        var s = busy(budgets: [PolicyChoice(name: "unlimited")], people: 1, days: 7)
        s.timeZone = "Europe/Berlin"
        s.start = CalendarDate(year: 2026, month: 3, day: 23)
        let t = try run(s).totals[0][0]
        let changes = (0 ..< 7).map { t.value(day: $0, .timeChanges) }
        #expect(changes.reduce(0, +) == 9)
        #expect(changes[0 ..< 6].allSatisfy { $0 == 1 })
        // Day 6 runs from Sunday 00:00 CET (Saturday 23:00 UTC) for 24 h: that midnight,
        // the transition (01:00 UTC) and Monday's midnight (Sunday 22:00 UTC).
        #expect(changes[6] == 3)
    }

    @Test func unlimitedIsNeverStalerThanABudget() throws {
        let s = busy(budgets: [
            PolicyChoice(name: "unlimited"),
            PolicyChoice(name: "daily_quota", parameters: PolicyParameters(["per_day": .number(10)])),
            PolicyChoice(name: "fixed_interval"), PolicyChoice(name: "token_bucket"),
            PolicyChoice(name: "view_weighted"), PolicyChoice(name: "ios_like"), PolicyChoice(name: "standby_buckets"),
        ])
        let r = try run(s)
        let free = totals(r, "unlimited", "static")
        for b in s.budgets.dropFirst() {
            let t = totals(r, b.label, "static")
            #expect(free.sum(.staleViews) <= t.sum(.staleViews), "\(b.label)")
            #expect(free.sum(.stalenessMs) <= t.sum(.stalenessMs), "\(b.label)")
            #expect(free.sum(.denied) == 0 && free.sum(.deferred) == 0)
        }
    }

    @Test func viewsChangesAndPushesMatchTheirRates() throws {
        // 40 people × 5 days; views are Poisson with mean 80 a day for everyone (cv 0).
        var content = ContentSpec()
        content.randomPerDay = 30
        content.pushFraction = 0.25
        content.pushLatencyMedianMs = 0
        let s = scenario(people: 40, days: 5, widgets: [widget("a", base: 1, content: content), widget("b", base: 1)])
        let t = try run(s).totals[0][0]
        let personDays = 40.0 * 5
        func within(_ observed: Int64, mean: Double, sd: Double) -> Bool { abs(Double(observed) - mean) <= 4 * sd }
        #expect(within(t.sum(PersonCounter.views), mean: 80 * personDays, sd: (80 * personDays).squareRoot()))
        #expect(within(t.sum(.sessions), mean: 10 * personDays, sd: (10 * personDays).squareRoot()))
        let changes = t.sum(.contentChanges)
        #expect(within(changes, mean: 30 * personDays, sd: (30 * personDays).squareRoot()))
        // Given the changes, pushes are binomial(changes, 0.25) (latency 0: none lost at the end).
        let n = Double(changes)
        #expect(within(t.sum(.pushes), mean: 0.25 * n, sd: (n * 0.25 * 0.75).squareRoot()))
    }

    @Test func hourlyTimelineReloadsTwentyFourTimesADayUnderUnlimited() throws {
        // No sessions and no changes: a midnight reload, then one every 60 min; the
        // request due at the next midnight is superseded by the midnight reload.
        let s = scenario(people: 2, days: 3, widgets: [widget("clock", base: 1, reload: .after(Milliseconds.hour))]) { p in
            p.sessionsPerDay = PerPersonRate(mean: 0)
        }
        let t = try run(s).totals[0][0]
        for d in 0 ..< 3 {
            #expect(t.value(day: d, widget: 0, .reloadTimeChange) == 2)
            #expect(t.value(day: d, widget: 0, .reloadTimeline) == 2 * 23)
        }
    }

    @Test func foregroundReloadsResetTheTimelineChain() throws {
        // With sessions, every foreground reload restarts the 60-minute chain. Each
        // reload schedules the next timeline request 1 h later; a request fires only if
        // no other reload comes first. So timeline reloads = number of gaps of at least
        // 1 h between consecutive reloads counted in hours: Σ over gaps of floor(gap / 1 h),
        // which the engine's count must match exactly (computed from the recorded reloads).
        let s = scenario(people: 1, days: 2, widgets: [widget("clock", base: 1, reload: .after(Milliseconds.hour))]) { p in
            p.sessionsPerDay = PerPersonRate(mean: 30)
        }
        let spy = RecordingBudget(UnlimitedBudget())
        let counts = try simulate(s, person: 0, budget: spy, ranking: StaticRanking())
        let forced = spy.reloads.filter { !$0.charged }.map(\.time)
        var expected: Int64 = 0
        for (i, t) in forced.enumerated() {
            let next = i + 1 < forced.count ? forced[i + 1] : s.durationMs
            expected += (next - t - 1) / Milliseconds.hour
        }
        let timeline = (0 ..< 2).reduce(Int64(0)) { $0 + counts[$1, widget: 0, .reloadTimeline] }
        #expect(timeline == expected)
        #expect(forced.count > 20)
    }

    @Test func pendingBackgroundRequestsCoalesce() throws {
        // A 1-a-day quota that defers background requests by 6 h: pushes that arrive
        // while one is pending coalesce into it.
        var content = ContentSpec()
        content.randomPerDay = 48
        content.pushFraction = 1
        let s = scenario(people: 1, days: 2, widgets: [widget("news", base: 1, reload: .never, content: content)],
                         budgets: [PolicyChoice(name: "daily_quota", parameters: PolicyParameters([
                             "per_day": .number(1), "background_retry": .duration(6 * Milliseconds.hour)]))])
        let t = try run(s).totals[0][0]
        #expect(t.sum(.coalesced) > 0)
        // Every push is either granted, deferred once, or coalesced; retries ask again.
        #expect(t.sum(.reloadBackground) + t.sum(.coalesced) + t.sum(.denied) <= t.sum(.pushes) + t.sum(.deferred))
    }
}
