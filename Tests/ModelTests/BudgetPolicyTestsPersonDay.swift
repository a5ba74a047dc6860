import Testing
import WidgetSimModel

// view_weighted and ios_like with budget days that follow the person's day.

/// Views every 10 minutes from 07:00 to 23:00 (96 a day) on `days`.
func wakingViews(_ instance: Int, days: Range<Int>) -> [BudgetEvent] {
    days.flatMap { d in
        (0 ..< 96).map { BudgetEvent.view(instance, Int64(d) * bpDay + 7 * bpHour + Int64($0) * 10 * bpMinute) }
    }
}

@Suite struct BudgetPolicyPersonDayTests {
    /// (policy, parameters, the day's budget B with 96 views a day)
    static let cases: [(String, [String: ParameterValue], Int)] = [
        ("ios_like", [:], 46),  // 30 + 2 √66 = 46.2
        ("view_weighted", ["learning_period": .duration(0), "min_spacing": .duration(0)], 53),  // 5 + ⌊65 × 96 / 130⌋
    ]

    /// The default days are greedy: three days of views from 07:00 to 23:00, then
    /// requests every minute from midnight. Budget day 2 (from 07:00 on day 2) has its
    /// whole budget left: B grants at once from 00:00, none after them until 07:00;
    /// budget day 3 starts at 07:00 and grants its B at once again, nothing after.
    @Test(arguments: 0 ..< cases.count)
    func budgetDaysAreGreedyFromTheFirstView(_ k: Int) throws {
        let (name, values, b) = Self.cases[k]
        var events = wakingViews(0, days: 0 ..< 3)
        events += budgetRequests(every: bpMinute, from: 3 * bpDay, until: 4 * bpDay + 7 * bpHour)
        events.sort { $0.time < $1.time }
        let grants = grantTimes(driveBudget(try makeBudget(name, values), instances: 1, events))
        let start = 3 * bpDay + 7 * bpHour
        #expect(grants.filter { $0 < start } == (0 ..< b).map { 3 * bpDay + Int64($0) * bpMinute }, "\(name)")
        #expect(grants.filter { $0 >= start } == (0 ..< b).map { start + Int64($0) * bpMinute }, "\(name)")
    }

    /// Paced release (`budget_day: paced`): three days of views from 07:00 to 23:00,
    /// then requests every minute: the budget day starts at 07:00 (the first view after
    /// the night), and by τ after it ⌊B τ / 16 h⌋ + 1 of B are released (views are even
    /// over 16 hours), so the grants follow the waking day and the whole budget is spent
    /// by 23:00, none at night.
    @Test(arguments: 0 ..< cases.count)
    func pacedBudgetIsReleasedThroughTheWakingDay(_ k: Int) throws {
        let (name, greedy, b) = Self.cases[k]
        let values = greedy.merging(["budget_day": .text("paced")]) { a, _ in a }
        var events = wakingViews(0, days: 0 ..< 3)
        events += budgetRequests(every: bpMinute, from: 3 * bpDay, until: 4 * bpDay + 7 * bpHour)
        events.sort { $0.time < $1.time }
        let grants = grantTimes(driveBudget(try makeBudget(name, values), instances: 1, events))
        let start = 3 * bpDay + 7 * bpHour
        #expect(grants.filter { $0 >= start && $0 < start + bpDay }.count == b)
        for h in 1 ... 16 {
            let by = grants.filter { $0 >= start && $0 < start + Int64(h) * bpHour }.count
            let released = min(b, b * h / 16 + 1)
            #expect(by <= released && by >= min(b, b * h / 16), "\(name): \(by) grants \(h) h after 07:00")
        }
        // Night of day 4 until 07:00: the new day has not begun, nothing left.
        #expect(grants.filter { $0 >= start + 16 * bpHour && $0 < start + bpDay }.isEmpty)
    }

    /// The rule before, kept for comparison: with midnight (ios_like) or rolling
    /// (view_weighted) days, requests every minute spend the budget at once.
    @Test func theRuleBeforeSpendsTheBudgetAtOnce() throws {
        var events = wakingViews(0, days: 0 ..< 3)
        events += budgetRequests(every: bpMinute, from: 3 * bpDay, until: 4 * bpDay)
        events.sort { $0.time < $1.time }
        let ios = grantTimes(driveBudget(try makeMidnightIOSLike(), instances: 1, events))
            .filter { $0 >= 3 * bpDay }
        #expect(ios.count == 46 && ios.last! < 3 * bpDay + bpHour)
    }

    /// Paced, a request refused because the released part is spent is retried when the
    /// next grant is released, not after the 15-minute retry: with views even from 07:00
    /// to 23:00 and k grants spent, that is 07:00 + k · 16 h / B (about 21 and 18 minutes
    /// apart here, never 15). A request at that time is granted.
    @Test(arguments: 0 ..< cases.count)
    func pacedRefusalRetriesAtTheRelease(_ k: Int) throws {
        let (name, greedy, b) = Self.cases[k]
        let values = greedy.merging(["budget_day": .text("paced")]) { a, _ in a }
        let start = 3 * bpDay + 7 * bpHour
        let policy = try makeBudget(name, values)
        var events = wakingViews(0, days: 0 ..< 3)
        events += budgetRequests(every: bpMinute, from: start, until: start + bpHour)
        // By 08:00, ⌊B / 16⌋ + 1 granted; each later request is asked at the time its
        // refusal gave, and granted there.
        var spent = grantTimes(driveBudget(policy, instances: 1, events)).count
        #expect(spent == b / 16 + 1)
        var now = start + bpHour
        var retries = 0
        while spent < b && now < start + 16 * bpHour {
            guard case .deferUntil(let at, let why) = policy.decide(instance: 0, reason: .timeline, at: now) else {
                Issue.record("\(name): expected a deferral at \(now)")
                return
            }
            #expect(why == .notYetReleased)
            let release = start + (Int64(spent) * 16 * bpHour + Int64(b) - 1) / Int64(b)
            #expect(at >= release && at <= release + 1000, "\(name): retry at \(at), released at \(release)")
            #expect(policy.decide(instance: 0, reason: .timeline, at: at) == .grant, "\(name) at \(at)")
            spent += 1
            now = at + 1
            retries += 1
        }
        #expect(retries > 20)
    }

    /// Before any view the day starts at the run's start; paced, the budget is released
    /// evenly over 24 hours: ios_like's 40 on day 0 are not all spent by 03:20.
    @Test func dayZeroReleasesEvenly() throws {
        let grants = grantTimes(driveBudget(try makeBudget("ios_like", ["budget_day": .text("paced")]), instances: 1,
                                            budgetRequests(every: bpMinute, until: bpDay)))
        #expect(grants.count == 40)
        for h in 1 ... 24 {
            let by = grants.filter { $0 < Int64(h) * bpHour }.count
            #expect(by <= min(40, 40 * h / 24 + 1) && by >= min(40, 40 * h / 24), "\(by) grants by \(h):00")
        }
    }

    /// The day starts at the median first view of the previous days: first views at
    /// 06:00, 07:00 and 09:00 put it at 07:00; one budget day's grants never exceed B.
    @Test func theDayStartsAtTheMedianFirstView() throws {
        var events: [BudgetEvent] = []
        for (d, first) in [6, 9, 7].enumerated() {
            events += (0 ..< 60).map { BudgetEvent.view(0, Int64(d) * bpDay + Int64(first) * bpHour + Int64($0) * 10 * bpMinute) }
        }
        // One request just before and one at 07:00 on day 3, after the rest of day 2's budget is spent.
        events += budgetRequests(every: bpMinute, from: 3 * bpDay, until: 3 * bpDay + 7 * bpHour - bpMinute)
        events += [.request(0, .timeline, 3 * bpDay + 7 * bpHour - 1), .request(0, .timeline, 3 * bpDay + 7 * bpHour)]
        let outcomes = driveBudget(try makeBudget("ios_like"), instances: 1, events)
        #expect(outcomes[outcomes.count - 2].decision != .grant)
        #expect(outcomes[outcomes.count - 1].decision == .grant)
    }
}
