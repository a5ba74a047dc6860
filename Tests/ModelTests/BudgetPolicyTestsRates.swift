import Testing
import WidgetSimModel

// fixed_interval, daily_quota and token_bucket.

@Suite struct BudgetPolicyFixedIntervalTests {
    @Test(arguments: [UInt64(1), 2, 3])
    func grantsExactlyWhenTheIntervalHasPassed(seed: UInt64) throws {
        let interval = 20 * bpMinute, retry = bpMinute
        let policy = try makeBudget("fixed_interval", [
            "interval": .duration(interval), "timeline_retry": .duration(retry),
        ])
        let events = randomBudgetEvents(seed: seed, instances: 3, until: 4 * bpDay, meanGap: 4 * bpMinute)
        let outcomes = driveBudget(policy, instances: 3, events)
        var last: [Int64?] = [nil, nil, nil]
        var refused = 0
        for o in outcomes {
            if let l = last[o.instance], o.time - l < interval {
                refused += 1
                let expected: BudgetDecision =
                    o.reason == .timeline ? .deferUntil(max(o.time + retry, l + interval), because: .minSpacing) : .deny(because: .minSpacing)
                #expect(o.decision == expected, "\(o)")
            } else {
                #expect(o.granted, "\(o)")
                last[o.instance] = o.time
            }
        }
        #expect(refused > 100)
        for i in 0 ..< 3 {
            let g = grantTimes(outcomes, instance: i)
            #expect(zip(g, g.dropFirst()).allSatisfy { $1 - $0 >= interval })
        }
    }

    @Test func retriesAtTheExactEarliestGrant() throws {
        let policy = try makeBudget("fixed_interval", ["timeline_retry": .duration(bpMinute)])
        policy.begin(instances: 1)
        #expect(policy.decide(instance: 0, reason: .timeline, at: 10) == .grant)
        #expect(policy.decide(instance: 0, reason: .timeline, at: 5 * bpMinute) == .deferUntil(30 * bpMinute + 10, because: .minSpacing))
        #expect(policy.decide(instance: 0, reason: .timeline, at: 30 * bpMinute + 9) == .deferUntil(31 * bpMinute + 9, because: .minSpacing))
        #expect(policy.decide(instance: 0, reason: .timeline, at: 30 * bpMinute + 10) == .grant)
        #expect(policy.decide(instance: 0, reason: .background, at: 30 * bpMinute + 11) == .deny(because: .minSpacing))

        let slow = try makeBudget("fixed_interval", ["timeline_retry": .duration(40 * bpMinute)])
        slow.begin(instances: 1)
        #expect(slow.decide(instance: 0, reason: .timeline, at: 0) == .grant)
        #expect(slow.decide(instance: 0, reason: .timeline, at: 5 * bpMinute) == .deferUntil(45 * bpMinute, because: .minSpacing))
    }

    @Test func theDefaultIntervalIsHalfAnHour() throws {
        let events = budgetRequests(every: bpMinute, until: bpDay)
        let outcomes = driveBudget(try makeBudget("fixed_interval"), instances: 1, events)
        #expect(grantTimes(outcomes) == stride(from: 0, to: bpDay, by: Int(30 * bpMinute)).map { $0 })
    }
}

@Suite struct BudgetPolicyDailyQuotaTests {
    @Test(arguments: [UInt64(4), 5, 6])
    func neverMoreThanNInAnyRolling24Hours(seed: UInt64) throws {
        let n = 5, retry = 10 * bpMinute
        let policy = try makeBudget("daily_quota", ["per_day": .number(Double(n)), "timeline_retry": .duration(retry)])
        let events = randomBudgetEvents(seed: seed, instances: 3, until: 8 * bpDay, meanGap: 40 * bpMinute)
        let outcomes = driveBudget(policy, instances: 3, events)
        for i in 0 ..< 3 {
            let mine = outcomes.filter { $0.instance == i }
            let grants = grantTimes(mine)
            // Every window ending at a grant holds at most N grants.
            for g in grants { #expect(grantsInWindow(grants, in: bpDay, endingAt: g) <= n) }
            // A refused request would have been the (N+1)th; a granted one would not.
            var earlier: [Int64] = []
            for o in mine {
                let before = grantsInWindow(earlier, in: bpDay, endingAt: o.time)
                if o.granted { earlier.append(o.time) }
                if o.granted {
                    #expect(before < n, "\(o)")
                } else {
                    #expect(before == n, "\(o)")
                    #expect(o.decision == (o.reason == .timeline ? .deferUntil(o.time + retry, because: .quotaExhausted) : .deny(because: .quotaExhausted)), "\(o)")
                }
            }
            #expect(mine.contains { !$0.granted } && grants.count > 2 * n)
        }
    }

    @Test func fortyEightADayWithRequestsEveryTenMinutes() throws {
        let events = budgetRequests(every: 10 * bpMinute, until: 3 * bpDay)
        let outcomes = driveBudget(try makeBudget("daily_quota"), instances: 1, events)
        let grants = grantTimes(outcomes)
        #expect(grants.count == 3 * 48)
        let expected = (0 ..< 3).flatMap { d in (0 ..< 48).map { Int64(d) * bpDay + Int64($0) * 10 * bpMinute } }
        #expect(grants == expected)
        for g in grants where g >= bpDay { #expect(grantsInWindow(grants, in: bpDay, endingAt: g) == 48) }
    }

    @Test func grantsTheNextRequestOnceTheOldestLeavesTheWindow() throws {
        let policy = try makeBudget("daily_quota", ["per_day": .number(3)])
        policy.begin(instances: 1)
        for t in [0, bpHour, 2 * bpHour] { #expect(policy.decide(instance: 0, reason: .timeline, at: t) == .grant) }
        #expect(policy.decide(instance: 0, reason: .timeline, at: bpDay - 1) == .deferUntil(bpDay - 1 + 15 * bpMinute, because: .quotaExhausted))
        #expect(policy.decide(instance: 0, reason: .timeline, at: bpDay) == .grant)
        #expect(policy.decide(instance: 0, reason: .background, at: bpDay + 1) == .deny(because: .quotaExhausted))
        #expect(policy.decide(instance: 0, reason: .timeline, at: bpDay + bpHour - 1) != .grant)
        #expect(policy.decide(instance: 0, reason: .timeline, at: bpDay + bpHour) == .grant)
    }
}

@Suite struct BudgetPolicyTokenBucketTests {
    /// (capacity, refill per bpHour) as numerators over a common denominator, so the
    /// expected count is computed in integers.
    static let buckets: [(c: Int64, r: Int64, den: Int64)] = [(10, 2, 1), (35, 7, 10), (2, 59, 1), (3, 3, 1)]

    @Test(arguments: 0 ..< buckets.count)
    func denseStreamGrantsCapacityPlusRefill(_ k: Int) throws {
        let (c, r, den) = Self.buckets[k]
        let policy = try makeBudget("token_bucket", [
            "capacity": .number(Double(c) / Double(den)), "refill_per_hour": .number(Double(r) / Double(den)),
        ])
        let outcomes = driveBudget(policy, instances: 1, budgetRequests(every: bpMinute, until: 2 * bpDay + 1))
        // Never full after the start, so after the request at t the grants are
        // min(requests so far, ⌊C + r·t / 1 h⌋).
        var granted: Int64 = 0
        for (n, o) in outcomes.enumerated() {
            if o.granted { granted += 1 }
            let bound = (c * bpHour + r * o.time) / (den * bpHour)
            #expect(granted == min(Int64(n + 1), bound), "at \(o.time)")
        }
        #expect(granted == (c * bpHour + r * 2 * bpDay) / (den * bpHour))
    }

    @Test func refusalRetriesWhenOneTokenIsBack() throws {
        for (rate, back) in [(2.0, 30 * bpMinute), (3, 20 * bpMinute), (7, 514_286)] {
            let policy = try makeBudget("token_bucket", [
                "capacity": .number(1), "refill_per_hour": .number(rate), "timeline_retry": .duration(1000),
            ])
            policy.begin(instances: 1)
            #expect(policy.decide(instance: 0, reason: .timeline, at: 0) == .grant)
            #expect(policy.decide(instance: 0, reason: .timeline, at: 1000) == .deferUntil(back, because: .tokensEmpty), "rate \(rate)")
            #expect(policy.decide(instance: 0, reason: .timeline, at: back - 1) != .grant, "rate \(rate)")
            #expect(policy.decide(instance: 0, reason: .timeline, at: back) == .grant, "rate \(rate)")
            #expect(policy.decide(instance: 0, reason: .background, at: back) == .deny(because: .tokensEmpty))
        }
    }

    @Test func aFullBucketHoldsOnlyItsCapacity() throws {
        for (capacity, burst) in [(10.0, 10), (2.5, 2)] {
            let policy = try makeBudget("token_bucket", ["capacity": .number(capacity)])
            let dense = budgetRequests(every: 1, from: 10 * bpDay, until: 10 * bpDay + 30)
            let outcomes = driveBudget(policy, instances: 2, dense)
            #expect(grantTimes(outcomes).count == burst, "capacity \(capacity)")
            #expect(grantTimes(outcomes) == (0 ..< Int64(burst)).map { 10 * bpDay + $0 })
        }
    }
}
