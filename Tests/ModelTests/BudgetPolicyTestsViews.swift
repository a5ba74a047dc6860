import Testing
import WidgetSimModel

// view_weighted and ios_like: budgets that follow each instance's views.

/// `views` views of `instance` on each bpDay in `days`, spread over the bpDay's first hours.
func dailyViews(_ instance: Int, _ views: Int, days: Range<Int>) -> [BudgetEvent] {
    days.flatMap { d in (0 ..< views).map { BudgetEvent.view(instance, Int64(d) * bpDay + Int64($0) * 1000) } }
}

/// Removes the views of instance 1 on odd days and all views of instance 2, so
/// instances of one random stream see different view rates.
func skewViews(_ events: [BudgetEvent]) -> [BudgetEvent] {
    events.filter {
        guard case .view(let i, let t) = $0 else { return true }
        return i == 0 || (i == 1 && (t / bpDay) % 2 == 0) || i > 2
    }
}

@Suite struct BudgetPolicyViewWeightedTests {
    /// With rolling 24-hour windows, the rule these tests restate (`budget_day: person`
    /// has tests of its own).
    static func make(_ values: [String: ParameterValue]) throws -> ViewWeightedBudget {
        try #require(try makeBudget("view_weighted", values.merging(["budget_day": .text("rolling")]) { a, _ in a })
            as? ViewWeightedBudget)
    }

    @Test(arguments: [UInt64(7), 8, 9])
    func grantsIffUnderTheViewBudgetAndSpaced(seed: UInt64) throws {
        let (low, high, vfm, learning, spacing, retry) = (3, 30, 100, bpDay + 7 * bpHour, 5 * bpMinute, bpMinute)
        let policy = try Self.make([
            "min_per_day": .number(Double(low)), "max_per_day": .number(Double(high)),
            "views_for_max": .number(Double(vfm)), "learning_period": .duration(learning),
            "min_spacing": .duration(spacing), "timeline_retry": .duration(retry),
        ])
        let events = skewViews(
            randomBudgetEvents(seed: seed, instances: 3, until: 12 * bpDay, meanGap: 3 * bpMinute, views: 0.5))
        policy.begin(instances: 3)
        var views = [[Int64: Int]](repeating: [:], count: 3)
        var grants = [[Int64]](repeating: [], count: 3)
        var budgetsSeen = Set<Int>()
        var refusals = (spacing: 0, budget: 0)
        for e in events {
            switch e {
            case .view(let i, let t):
                views[i][t / bpDay, default: 0] += 1
                policy.didView(instance: i, at: t)
            case .request(let i, let reason, let t):
                let d = t / bpDay, n = min(7, d)
                let total = (0 ..< n).reduce(0) { $0 + views[i][d - 1 - $1, default: 0] }
                let viewsForMax = vfm * Int(n)
                let b = t < learning ? high : n == 0 ? low : low + (high - low) * min(total, viewsForMax) / viewsForMax
                #expect(policy.budget(of: i, at: t) == b)
                #expect((low ... high).contains(b))
                budgetsSeen.insert(b)
                let spacingEnd = grants[i].last.flatMap { t - $0 < spacing ? $0 + spacing : nil }
                let full = grantsInWindow(grants[i], in: bpDay, endingAt: t) >= b
                let decision = policy.decide(instance: i, reason: reason, at: t)
                if spacingEnd == nil && !full {
                    #expect(decision == .grant, "\(e)")
                    grants[i].append(t)
                } else {
                    if spacingEnd != nil { refusals.spacing += 1 } else { refusals.budget += 1 }
                    // Spacing alone: retried when it ends; a spent budget: after the retry delay.
                    let why: RefusalReason = full ? (t < learning ? .learningPeriod : .quotaExhausted) : .minSpacing
                    let expected: BudgetDecision =
                        reason != .timeline ? .deny(because: why)
                        : !full ? .deferUntil(spacingEnd!, because: why)
                        : .deferUntil(max(t + retry, spacingEnd ?? t), because: why)
                    #expect(decision == expected, "\(e)")
                }
            default: break
            }
        }
        #expect(refusals.spacing > 50 && refusals.budget > 50)
        #expect(budgetsSeen.contains(low) && budgetsSeen.contains(high) && budgetsSeen.count > 3)
        for g in grants {
            #expect(zip(g, g.dropFirst()).allSatisfy { $1 - $0 >= spacing })
            for t in g { #expect(grantsInWindow(g, in: bpDay, endingAt: t) <= high) }
        }
    }

    @Test func learningPeriodGrantsTheMaximum() throws {
        let outcomes = driveBudget(try Self.make([:]), instances: 1, budgetRequests(every: bpMinute, until: 3 * bpDay))
        for d in 0 ..< 3 {
            let g = grantTimes(outcomes).filter { $0 / bpDay == Int64(d) }
            #expect(g.count == 70, "day \(d)")
            #expect(g.first == Int64(d) * bpDay && g.last == Int64(d) * bpDay + 69 * 5 * bpMinute)
        }
    }

    @Test func budgetFollowsTheWeeksAverageViews() throws {
        // Views on days 0…6, dense requests on bpDay 7 only: bpDay 7's grants are its budget.
        let perDay = [50, 0, 33, 500, 100]
        var events = perDay.enumerated().flatMap { dailyViews($0.offset, $0.element, days: 0 ..< 7) }
        events.sort { $0.time < $1.time }
        for i in perDay.indices { events += budgetRequests(i, every: bpMinute, from: 7 * bpDay, until: 8 * bpDay) }
        events.sort { $0.time < $1.time }
        let policy = try Self.make(["learning_period": .duration(0)])
        let outcomes = driveBudget(policy, instances: perDay.count, events)
        let expected = [30, 5, 21, 70, 55] // 5 + ⌊65 × min(1, v / 130)⌋
        for i in perDay.indices {
            #expect(grantTimes(outcomes, instance: i).count == expected[i], "instance \(i)")
            #expect(policy.budget(of: i, at: 7 * bpDay) == expected[i])
        }
    }

    @Test func averageUsesOnlyTheWholeDaysAvailableAndAtMostSeven() throws {
        let policy = try Self.make(["learning_period": .duration(0)])
        policy.begin(instances: 3)
        for e in dailyViews(0, 100, days: 0 ..< 1) + dailyViews(1, 700, days: 0 ..< 1) {
            policy.didView(instance: e.instance, at: e.time)
        }
        #expect(policy.budget(of: 0, at: 0) == 5) // bpDay 0 after learning: min
        #expect(policy.budget(of: 0, at: bpDay) == 55) // 100 / 1 bpDay: 5 + ⌊65 × 100 / 130⌋
        #expect(policy.budget(of: 0, at: 2 * bpDay) == 30) // 100 / 2 days
        #expect(policy.budget(of: 1, at: 7 * bpDay + 1) == 55) // 700 / 7
        #expect(policy.budget(of: 1, at: 8 * bpDay) == 5) // bpDay 0 has left the week
        for e in dailyViews(2, 100, days: 8 ..< 9) { policy.didView(instance: e.instance, at: e.time) }
        #expect(policy.budget(of: 2, at: 8 * bpDay + bpHour) == 5) // today's views count tomorrow
        #expect(policy.budget(of: 2, at: 9 * bpDay) == 12) // 100 / 7 = 14.28 → 5 + ⌊65 × 0.1098⌋
    }

    @Test func learningPeriodEndsOnTime() throws {
        let policy = try Self.make(["learning_period": .duration(12 * bpHour)])
        policy.begin(instances: 1)
        #expect(policy.budget(of: 0, at: 12 * bpHour - 1) == 70)
        #expect(policy.budget(of: 0, at: 12 * bpHour) == 5)
    }

    @Test func spacingRefusalRetriesAtItsEnd() throws {
        let policy = try Self.make(["timeline_retry": .duration(bpMinute), "max_per_day": .number(40)])
        policy.begin(instances: 1)
        #expect(policy.decide(instance: 0, reason: .timeline, at: 0) == .grant)
        #expect(policy.decide(instance: 0, reason: .timeline, at: 2 * bpMinute) == .deferUntil(5 * bpMinute, because: .minSpacing))
        #expect(policy.decide(instance: 0, reason: .timeline, at: 5 * bpMinute - 1) == .deferUntil(5 * bpMinute, because: .minSpacing))
        #expect(policy.decide(instance: 0, reason: .timeline, at: 5 * bpMinute) == .grant)
        // Budget spent, spacing kept: no earliest, the plain retry.
        for k in 2 ..< 40 {
            #expect(policy.decide(instance: 0, reason: .timeline, at: Int64(k) * 5 * bpMinute) == .grant)
        }
        #expect(policy.decide(instance: 0, reason: .timeline, at: 5 * bpHour) == .deferUntil(5 * bpHour + bpMinute, because: .learningPeriod))
    }

    /// With the default 15-minute timeline retry, a request refused for spacing alone
    /// comes back when the spacing ends: requests every minute get grants 5 minutes
    /// apart, not 16 (a background request refused for spacing is still dropped).
    @Test func defaultRetryStillHonoursTheFiveMinuteSpacing() throws {
        let policy = try Self.make(["max_per_day": .number(1000), "min_per_day": .number(1000)])
        policy.begin(instances: 1)
        #expect(policy.decide(instance: 0, reason: .timeline, at: 0) == .grant)
        #expect(policy.decide(instance: 0, reason: .timeline, at: bpMinute) == .deferUntil(5 * bpMinute, because: .minSpacing))
        #expect(policy.decide(instance: 0, reason: .background, at: bpMinute) == .deny(because: .minSpacing))
        #expect(policy.decide(instance: 0, reason: .timeline, at: 5 * bpMinute) == .grant)
    }

    @Test func maxBelowMinIsRaisedToMin() throws {
        let policy = try Self.make([
            "min_per_day": .number(50), "max_per_day": .number(10), "min_spacing": .duration(0),
        ])
        #expect(policy.maxPerDay == 50)
        let outcomes = driveBudget(policy, instances: 1, budgetRequests(every: bpMinute, until: bpDay))
        #expect(grantTimes(outcomes).count == 50)
    }
}

/// ios_like with days from midnight, the rule the tests below restate (`budget_day:
/// person` has tests of its own).
func makeMidnightIOSLike(_ values: [String: ParameterValue] = [:]) throws -> any BudgetPolicy {
    try makeBudget("ios_like", values.merging(["budget_day": .text("midnight")]) { a, _ in a })
}

@Suite struct BudgetPolicyIOSLikeTests {
    struct Setting {
        var initial = 40, linear = 30, instanceMax = 50, total = 750
        var values: [String: ParameterValue] {
            ["initial_per_day": .number(Double(initial)), "linear_up_to": .number(Double(linear)),
             "per_instance_max": .number(Double(instanceMax)), "total_per_day": .number(Double(total))]
        }

        /// The rule, restated: every instance's balance for `bpDay` from the views before it.
        func budgets(forDay d: Int, views: [[Int: Int]]) -> [Int] {
            let n = min(7, d)
            var b = views.map { v -> Int in
                var x = initial
                if n > 0 {
                    let avg = Double((1 ... n).reduce(0) { $0 + v[d - $1, default: 0] }) / Double(n)
                    x = Int(avg <= Double(linear) ? avg : Double(linear) + 2 * (avg - Double(linear)).squareRoot())
                }
                return min(instanceMax, max(1, x))
            }
            let sum = b.reduce(0, +)
            if sum > total { b = b.map { max(1, $0 * total / sum) } }
            return b
        }
    }

    static let settings = [
        Setting(), Setting(total: 100), Setting(initial: 5, linear: 10, instanceMax: 20, total: 30),
    ]

    @Test(arguments: 0 ..< settings.count)
    func eachPeriodGrantsMinOfRequestsAndBudget(_ k: Int) throws {
        let s = Self.settings[k]
        let events = skewViews(
            randomBudgetEvents(
                seed: 40 + UInt64(k), instances: 5, until: 11 * bpDay, meanGap: 2 * bpMinute, views: 0.5))
        let outcomes = driveBudget(try makeMidnightIOSLike(s.values), instances: 5, events)
        var views = [[Int: Int]](repeating: [:], count: 5)
        for case .view(let i, let t) in events { views[i][Int(t / bpDay), default: 0] += 1 }
        var budgetsSeen = Set<Int>()
        for d in 0 ..< 11 {
            let b = s.budgets(forDay: d, views: views)
            budgetsSeen.formUnion(b)
            var grantedToday = 0
            for i in 0 ..< 5 {
                let today = outcomes.filter { $0.instance == i && $0.time / bpDay == Int64(d) }
                let granted = today.filter(\.granted).count
                #expect(granted == min(today.count, b[i]), "day \(d) instance \(i)")
                #expect(granted <= s.instanceMax)
                // Grants come first; then every request is refused with the 900 s retry.
                #expect(today.prefix(granted).allSatisfy { $0.granted })
                for o in today.dropFirst(granted) { #expect(o.decision.retryTime == o.time + 15 * bpMinute) }
                grantedToday += granted
            }
            #expect(grantedToday <= max(s.total, 5))
        }
        #expect(budgetsSeen.contains(1) && budgetsSeen.count >= 3, "\(budgetsSeen.sorted())")
    }

    @Test func dayZeroGivesTheInitialBudgetAndRefillsAtTheBoundary() throws {
        let policy = try makeMidnightIOSLike()
        let events = [.request(1, .timeline, 0)] + budgetRequests(every: bpMinute, until: bpDay)
        let outcomes = driveBudget(policy, instances: 2, events)
        #expect(grantTimes(outcomes, instance: 0).count == 40)
        #expect(grantTimes(outcomes, instance: 1).count == 1)
        #expect(policy.decide(instance: 0, reason: .timeline, at: bpDay - 1) == .deferUntil(bpDay - 1 + 900_000, because: .quotaExhausted))
        #expect(policy.decide(instance: 0, reason: .background, at: bpDay - 1) == .deferUntil(bpDay - 1 + 900_000, because: .quotaExhausted))
        // No views on bpDay 0: from bpDay 1 the budget is the floor of 1, for both instances.
        #expect(policy.decide(instance: 1, reason: .timeline, at: bpDay) == .grant)
        #expect(policy.decide(instance: 0, reason: .timeline, at: bpDay + 1) == .grant)
        #expect(policy.decide(instance: 0, reason: .timeline, at: bpDay + 2) != .grant)
        #expect(policy.decide(instance: 0, reason: .timeline, at: 2 * bpDay) == .grant)
    }

    @Test func budgetFromViewsIsLinearThenSquareRootThenClamped() throws {
        let perDay = [20, 46, 34, 200, 0, 31]
        let expected = [20, 38, 34, 50, 1, 32] // 30 + 2√16; 30 + 2√4; clamp 50; floor 1; 30 + 2√1
        var events = perDay.enumerated().flatMap { dailyViews($0.offset, $0.element, days: 0 ..< 7) }
        for i in perDay.indices { events += budgetRequests(i, every: bpMinute, from: 7 * bpDay, until: 8 * bpDay) }
        events.sort { $0.time < $1.time }
        let outcomes = driveBudget(try makeMidnightIOSLike(), instances: perDay.count, events)
        for i in perDay.indices {
            #expect(grantTimes(outcomes, instance: i).count == expected[i], "\(perDay[i]) views a day")
        }
    }

    @Test func dailyBudgetFormula() throws {
        let policy = try #require(try makeMidnightIOSLike() as? IOSLikeBudget)
        #expect(policy.dailyBudget(views: 0, days: 0) == 40)
        #expect(policy.dailyBudget(views: 60, days: 2) == 30)
        #expect(policy.dailyBudget(views: 7 * 46, days: 7) == 38)
        #expect(policy.dailyBudget(views: 7 * 39, days: 7) == 36)
        #expect(policy.dailyBudget(views: 7 * 31 + 3, days: 7) == 32) // 30 + 2√1.43 = 32.39
        #expect(policy.dailyBudget(views: 10_000, days: 1) == 50)
        #expect(policy.dailyBudget(views: 3, days: 7) == 1)
        let capped = try #require(try makeMidnightIOSLike(["initial_per_day": .number(80)]) as? IOSLikeBudget)
        #expect(capped.dailyBudget(views: 0, days: 0) == 50)
    }

    @Test func averageCoversOnlyTheDaysSoFar() throws {
        // 20 views on bpDay 0, 40 on bpDay 1: on bpDay 2 the average is 30 (not 60 / 7).
        var events = dailyViews(0, 20, days: 0 ..< 1) + dailyViews(0, 40, days: 1 ..< 2)
        events += budgetRequests(every: bpMinute, from: 2 * bpDay, until: 3 * bpDay)
        #expect(grantTimes(driveBudget(try makeMidnightIOSLike(), instances: 1, events)).count == 30)
    }

    @Test func aViewAtTheBoundaryCountsInTheNewDay() throws {
        // 46 views at exactly 24 h: bpDay 1 has no history (budget 1), bpDay 2 averages 23.
        let events = (0 ..< 46).map { _ in BudgetEvent.view(0, bpDay) }
            + budgetRequests(every: bpMinute, from: bpDay, until: 3 * bpDay)
        let grants = grantTimes(driveBudget(try makeMidnightIOSLike(), instances: 1, events))
        #expect(grants.filter { $0 < 2 * bpDay }.count == 1)
        #expect(grants.filter { $0 >= 2 * bpDay }.count == 23)
    }

    @Test func totalCapScalesEveryInstanceDown() throws {
        for (total, each) in [(750, 37), (10, 1), (400, 20)] { // ⌊40 × total / 800⌋, at least 1
            let events = (0 ..< 20).flatMap { budgetRequests($0, every: bpMinute, until: 2 * bpHour) }
                .sorted { $0.time < $1.time }
            let policy = try makeMidnightIOSLike(["total_per_day": .number(Double(total))])
            let outcomes = driveBudget(policy, instances: 20, events)
            for i in 0 ..< 20 { #expect(grantTimes(outcomes, instance: i).count == each, "total \(total)") }
        }
    }

    @Test func retriesCanBeDropped() throws {
        let policy = try makeMidnightIOSLike(["initial_per_day": .number(1), "background_retry": .text("drop")])
        policy.begin(instances: 1)
        #expect(policy.decide(instance: 0, reason: .background, at: 0) == .grant)
        #expect(policy.decide(instance: 0, reason: .background, at: 1) == .deny(because: .quotaExhausted))
        #expect(policy.decide(instance: 0, reason: .timeline, at: 2) == .deferUntil(2 + 900_000, because: .quotaExhausted))
    }
}
