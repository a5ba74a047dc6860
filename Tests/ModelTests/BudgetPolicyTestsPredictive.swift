import Testing
import WidgetSimModel

// `predictive`: the daily limit over random streams, the spread of a day's spending
// over the views, requests that wait for a view and those granted at once, the view
// forecast, and the push reserve.

/// A `predictive` budget with `values` over the defaults, spending at the views
/// (`spending: views`) unless `values` say otherwise.
func makePredictive(_ values: [String: ParameterValue] = [:]) throws -> PredictiveBudget {
    try #require(try makeBudget("predictive", ["spending": .text("views")].merging(values) { $1 }) as? PredictiveBudget)
}

/// A view of `instance` every `step` ms within [from, until) hours of each of `days` days.
func dailyViews(_ instance: Int = 0, days: Range<Int64>, hours: Range<Int64>, every step: Int64) -> [BudgetEvent] {
    var events: [BudgetEvent] = []
    for d in days {
        var t = d * bpDay + hours.lowerBound * bpHour
        while t < d * bpDay + hours.upperBound * bpHour {
            events.append(.view(instance, t))
            t += step
        }
    }
    return events
}

/// Drives `policy` like the engine: one pending timeline request for instance 0 from
/// `from` to `until`, asked again `interval` after a grant and at the deferral time
/// after a refusal; the other events (views) in between. Returns (time, decision) of
/// each request.
func driveTimeline(
    _ policy: PredictiveBudget, instances: Int = 1, _ events: [BudgetEvent], from: Int64, until: Int64,
    interval: Int64
) -> [(Int64, BudgetDecision)] {
    policy.begin(instances: instances)
    var out: [(Int64, BudgetDecision)] = []
    var next = from
    var k = 0
    while next < until {
        while k < events.count && events[k].time <= next {
            if case .view(let i, let t) = events[k] { policy.didView(instance: i, at: t) }
            k += 1
        }
        let d = policy.decide(instance: 0, reason: .timeline, at: next)
        out.append((next, d))
        switch d {
        case .grant: next += interval
        case .deferUntil(let t, _):
            #expect(t > next, "a deferral goes forward")
            next = t
        case .deny: Issue.record("predictive never drops"); return out
        }
    }
    return out
}

@Suite struct PredictiveBudgetTests {
    /// Property: over random request streams (views, app use, free reloads, timeline and
    /// background requests), no instance gets more grants in a budget day than its
    /// budget for that day, and none more than `per_instance_max`; every refusal is a
    /// deferral to a later time.
    @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func neverExceedsItsDailyLimit(seed: UInt64) throws {
        let instances = 1 + Int(seed % 3)
        let perMax = 3 + Int(seed) * 4
        let policy = try makePredictive([
            "initial_per_day": .number(Double(2 + seed)), "per_instance_max": .number(Double(perMax)),
            "linear_up_to": .number(Double(seed * 3)), "push_reserve": .number(Double(seed % 4) / 4),
            "recent": .duration(Int64(seed % 3) * 20 * bpMinute),
        ])
        let events = randomBudgetEvents(
            seed: seed, instances: instances, until: 9 * bpDay, meanGap: (1 + Int64(seed % 3)) * bpMinute,
            views: 0.5, background: 0.4)
        policy.begin(instances: instances)
        var grants: [Int64: [Int]] = [:]
        var refusals = 0
        for event in events {
            switch event {
            case .request(let i, let reason, let t):
                let decision = policy.decide(instance: i, reason: reason, at: t)
                let day = policy.budgetDay
                switch decision {
                case .grant:
                    grants[day, default: Array(repeating: 0, count: instances)][i] += 1
                    let n = grants[day]![i]
                    #expect(n <= policy.budget(of: i), "instance \(i) budget day \(day): \(n) grants")
                    #expect(n <= perMax)
                    policy.didReload(instance: i, charged: true, at: t)
                case .deferUntil(let until, _):
                    refusals += 1
                    #expect(until > t)
                case .deny: Issue.record("predictive never drops")
                }
            case .view(let i, let t): policy.didView(instance: i, at: t)
            case .useApp(let i, let t): policy.didUseApp(instance: i, at: t)
            case .freeReload(let i, let t): policy.didReload(instance: i, charged: false, at: t)
            }
        }
        #expect(refusals > 0, "stream too loose to test")
        // The limit is reached on some days: the bound is tight, not vacuous.
        #expect(grants.values.contains { $0.contains { $0 >= 2 } })
    }

    /// With views spread evenly over 07:00–23:00 for a week, the eighth budget day
    /// (from 07:00, the usual first view) has B = 30 + 2√66 = 46 (96 views a day; no
    /// pushes seen, so no reserve), released as ⌊46 · F⌋ + 1 with F the share of the
    /// waking day passed: each two-hour block gets 46 · 2/16 ≈ 5.75 grants (within one),
    /// and none at night, when no view is near.
    @Test func flatViewProfileSpendsEvenlyThroughTheWakingDay() throws {
        let policy = try makePredictive()
        let views = dailyViews(days: 0 ..< 9, hours: 7 ..< 23, every: 10 * bpMinute)
        let outcomes = driveTimeline(policy, views, from: 0, until: 8 * bpDay + 7 * bpHour, interval: 5 * bpMinute)
        let start = 7 * bpDay + 7 * bpHour
        let day7 = outcomes.filter { $0.0 >= start && $0.0 < start + bpDay && $0.1 == .grant }.map { $0.0 - start }
        #expect(policy.budget(of: 0) == 46)
        #expect(policy.reserve(of: 0) == 0)
        #expect(day7.count == 46)
        // 23:30 to 05:00: no view in the last 30 minutes, and the next two hours are
        // forecast to hold far less than half a view.
        #expect(day7.filter { $0 >= 16 * bpHour + 30 * bpMinute && $0 < 22 * bpHour }.isEmpty, "night: \(day7)")
        for block in stride(from: Int64(0), to: 16, by: 2) {
            let n = day7.filter { $0 >= block * bpHour && $0 < (block + 2) * bpHour }.count
            #expect(n >= 5 && n <= 7, "block \(block + 7):00: \(n) grants: \(day7.map { Double($0) / Double(bpHour) })")
        }
    }

    /// The forecast: after a week of one view every 10 minutes over 07:00–23:00, the
    /// person's, the instance's and the weekday's profiles all give hour 12 and hour 13
    /// (6 views a day each of 96) the share
    /// Q = 43/696, q = (42 + 50 Q)/722, q(d) = (6 + 100 q)/196 = 0.0624744,
    /// so the views expected from 12:00 in the two-hour lookahead are 96 · 2 · q(d) = 11.995;
    /// from 05:00 (hours 5 and 6, no views: Q = 1/696) they are 96 · 2 · (100 · 50/696/722)/196 = 0.0098.
    @Test func expectedViewsFollowTheShrunkProfile() throws {
        let policy = try makePredictive()
        policy.begin(instances: 1)
        for case .view(let i, let t) in dailyViews(days: 0 ..< 7, hours: 7 ..< 23, every: 10 * bpMinute) {
            policy.didView(instance: i, at: t)
        }
        let q: Double = (42 + 50 * 43.0 / 696) / 722
        let qd: Double = (6 + 100 * q) / 196
        let qNight: Double = 100 * (50 / 696.0) / 722 / 196
        let noon: Double = 96 * 2 * qd
        let dawn: Double = 96 * 2 * qNight
        #expect(abs(noon - 11.995) < 0.001 && abs(dawn - 0.0098) < 0.0001)
        // Asked at 05:00 first: the forecast of day 7 is made when the day is first seen.
        #expect(!policy.aboutToBeSeen(0, at: 7 * bpDay + 5 * bpHour))
        #expect(abs(policy.expectedViews(0, at: 7 * bpDay + 5 * bpHour) - dawn) < 1e-9)
        #expect(abs(policy.expectedViews(0, at: 7 * bpDay + 12 * bpHour) - noon) < 1e-9)
        // 04:30–06:30 (half of hour 4, hour 5, half of hour 6) holds no views either.
        #expect(abs(policy.expectedViews(0, at: 7 * bpDay + 4 * bpHour + 30 * bpMinute) - dawn) < 1e-9)
        // 06:30–08:30: half of hour 6 (no views), hour 7 and half of hour 8 (views).
        let sixThirty: Double = 96 * 1.5 * qd + dawn / 4
        #expect(abs(policy.expectedViews(0, at: 7 * bpDay + 6 * bpHour + 30 * bpMinute) - sixThirty) < 1e-9)
    }

    /// Views only in the evening (18:00–22:00) for a week: on the eighth day a timeline
    /// request at 10:00 or 15:00 (under half a view forecast in the next two hours) waits
    /// `poll` (10 minutes) as `no_view_expected`; one at 16:30, with the first evening
    /// hour inside the lookahead, is granted at once; and so is one at 10:20 twenty
    /// minutes after a stray view (the instance is on show), but not 35 minutes after it.
    @Test func requestsWaitForAViewAndAreGrantedWhenOneIsNear() throws {
        let policy = try makePredictive()
        policy.begin(instances: 1)
        for case .view(let i, let t) in dailyViews(days: 0 ..< 7, hours: 18 ..< 22, every: 5 * bpMinute) {
            policy.didView(instance: i, at: t)
        }
        let day = 7 * bpDay
        #expect(policy.decide(instance: 0, reason: .timeline, at: day + 10 * bpHour)
                == .deferUntil(day + 10 * bpHour + 10 * bpMinute, because: .noViewExpected))
        #expect(policy.expectedViews(0, at: day + 10 * bpHour) < 0.05)
        #expect(policy.decide(instance: 0, reason: .timeline, at: day + 15 * bpHour)
                == .deferUntil(day + 15 * bpHour + 10 * bpMinute, because: .noViewExpected))
        #expect(policy.decide(instance: 0, reason: .timeline, at: day + 16 * bpHour + 30 * bpMinute) == .grant)
        #expect(policy.expectedViews(0, at: day + 16 * bpHour + 30 * bpMinute) > 5)
        policy.didView(instance: 0, at: day + 10 * bpHour)
        #expect(policy.decide(instance: 0, reason: .timeline, at: day + 10 * bpHour + 20 * bpMinute) == .grant)
        #expect(policy.decide(instance: 0, reason: .timeline, at: day + 10 * bpHour + 35 * bpMinute)
                == .deferUntil(day + 10 * bpHour + 45 * bpMinute, because: .noViewExpected))
        // A push far from any view is granted: the content has just changed.
        #expect(policy.decide(instance: 0, reason: .background, at: day + 11 * bpHour) == .grant)
    }

    /// With a lookahead of 0 the window ahead is empty: no view is expected in it, however
    /// many the instance has a day, so only a recent view makes a timeline request near
    /// one (the same week of evening views as above: a request at 19:00 with no view in
    /// the last 30 minutes waits; one 10 minutes after a view is granted).
    @Test func aZeroLookaheadExpectsNoView() throws {
        let policy = try makePredictive(["lookahead": .duration(0)])
        policy.begin(instances: 1)
        for case .view(let i, let t) in dailyViews(days: 0 ..< 7, hours: 18 ..< 22, every: 5 * bpMinute) {
            policy.didView(instance: i, at: t)
        }
        let day = 7 * bpDay
        #expect(!policy.aboutToBeSeen(0, at: day + 19 * bpHour))
        #expect(policy.expectedViews(0, at: day + 19 * bpHour) == 0)
        #expect(policy.decide(instance: 0, reason: .timeline, at: day + 19 * bpHour)
                == .deferUntil(day + 19 * bpHour + 10 * bpMinute, because: .noViewExpected))
        policy.didView(instance: 0, at: day + 19 * bpHour + 5 * bpMinute)
        #expect(policy.decide(instance: 0, reason: .timeline, at: day + 19 * bpHour + 15 * bpMinute) == .grant)
    }

    /// On day 0 (no history: the budget released evenly over 24 h from midnight, B = 40,
    /// reserve round(0.2 · 40) = 8) at 00:01 ⌊40 · 1/1440⌋ + 1 = 1 is released: a push may
    /// run the reserve ahead of it, so 9 background requests are granted and the tenth
    /// waits as `not_yet_released`. Without a reserve, one push is granted, and a
    /// timeline request (on the first day, with no forecast, as near a view) waits for
    /// the release.
    @Test func pushesSpendTheReserveAheadOfTheRelease() throws {
        let policy = try makePredictive()
        policy.begin(instances: 1)
        #expect(policy.reserve(of: 0) == 8)
        for k in 0 ..< 9 {
            #expect(policy.decide(instance: 0, reason: .background, at: bpMinute + Int64(k)) == .grant, "push \(k)")
        }
        #expect(policy.decide(instance: 0, reason: .background, at: bpMinute + 9)
                == .deferUntil(bpMinute + 9 + 10 * bpMinute, because: .notYetReleased))
        let none = try makePredictive(["push_reserve": .number(0)])
        none.begin(instances: 1)
        #expect(none.decide(instance: 0, reason: .background, at: bpMinute) == .grant)
        #expect(none.decide(instance: 0, reason: .background, at: bpMinute + 1) != .grant)
        #expect(none.decide(instance: 0, reason: .timeline, at: bpMinute + 2)
                == .deferUntil(bpMinute + 2 + 10 * bpMinute, because: .notYetReleased))
    }

    /// From day 1 the reserve is the pushes per day seen so far (rounded up), at most
    /// round(push_reserve · B): 3 background requests on day 0 → a reserve of 3 on
    /// day 1 and ⌈3 / 2⌉ = 2 on day 2; 30 → capped at round(0.2 · 30) = 6.
    @Test func theReserveFollowsThePushesSeen() throws {
        let policy = try makePredictive()
        policy.begin(instances: 2)
        #expect(policy.reserve(of: 0) == 8)
        for k in 0 ..< 3 { _ = policy.decide(instance: 0, reason: .background, at: bpHour + Int64(k)) }
        for k in 0 ..< 30 { _ = policy.decide(instance: 1, reason: .background, at: bpHour + Int64(k)) }
        // 30 views a day make the budget 30 (so the cap round(0.2 · 30) = 6).
        for day in 0 ..< 3 as Range<Int64> {
            for k in 0 ..< 30 as Range<Int64> {
                policy.didView(instance: 0, at: day * bpDay + 2 * bpHour + k * 30 * bpMinute)
                policy.didView(instance: 1, at: day * bpDay + 2 * bpHour + k * 30 * bpMinute)
            }
            if day == 1 {
                #expect(policy.budget(of: 0) == 30 && policy.budget(of: 1) == 30)
                #expect(policy.reserve(of: 0) == 3)
                #expect(policy.reserve(of: 1) == 6)
            }
        }
        #expect(policy.reserve(of: 0) == 2)  // 3 over 2 days, rounded up
    }

    /// Once the budget day's whole budget is spent, a request waits for the next budget
    /// day's start: on day 0 (B = 5, reserve 1, released evenly over 24 h) five pushes at
    /// 23:40 are granted (⌊5 · 0.986⌋ + 1 = 5 released) and the sixth waits until 24:00.
    @Test func aSpentBudgetWaitsForTheNextBudgetDay() throws {
        let policy = try makePredictive(["initial_per_day": .number(5)])
        policy.begin(instances: 1)
        let late = 23 * bpHour + 40 * bpMinute
        for k in 0 ..< 5 { #expect(policy.decide(instance: 0, reason: .background, at: late + Int64(k)) == .grant) }
        #expect(policy.decide(instance: 0, reason: .background, at: late + 5) == .deferUntil(bpDay, because: .quotaExhausted))
        #expect(policy.decide(instance: 0, reason: .timeline, at: late + 6) == .deferUntil(bpDay, because: .quotaExhausted))
    }

    @Test func beginResetsStateAndFreeReloadsCostNothing() throws {
        let events = randomBudgetEvents(seed: 41, instances: 3, until: 5 * bpDay, meanGap: 2 * bpMinute, free: 0.2)
        let policy = try makePredictive(["initial_per_day": .number(6), "per_instance_max": .number(10)])
        let first = driveBudget(policy, instances: 3, events)
        _ = driveBudget(policy, instances: 5, randomBudgetEvents(seed: 42, instances: 5, until: 3 * bpDay, meanGap: bpMinute))
        #expect(driveBudget(policy, instances: 3, events) == first)
        let withoutFree = events.filter { if case .freeReload = $0 { false } else { true } }
        #expect(driveBudget(try makePredictive(["initial_per_day": .number(6), "per_instance_max": .number(10)]),
                            instances: 3, withoutFree) == first)
        #expect(first.contains { !$0.granted } && first.contains(where: \.granted))
    }
}
