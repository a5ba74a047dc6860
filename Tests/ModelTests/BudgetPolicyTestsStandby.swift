import Testing
import WidgetSimModel

// standby_buckets: quotas per rolling window by App Standby bucket.

@Suite struct BudgetPolicyStandbyBucketsTests {
    /// Distinct quotas (4, 3, 2, 1), so the number of grants reveals the bucket.
    static let distinct: [String: ParameterValue] = [
        "active_quota": .number(4), "working_set_quota": .number(3), "frequent_quota": .number(2),
        "rare_quota": .number(1),
    ]

    static func make(_ values: [String: ParameterValue] = [:]) throws -> StandbyBucketsBudget {
        try #require(try makeBudget("standby_buckets", values) as? StandbyBucketsBudget)
    }

    @Test func bucketsChangeExactlyAtTheThresholds() throws {
        typealias B = StandbyBucketsBudget.Bucket
        let cases: [(Int64?, B)] = [
            (0, .active), (12 * bpHour - 1, .active), (12 * bpHour, .workingSet), (24 * bpHour - 1, .workingSet),
            (24 * bpHour, .frequent), (48 * bpHour - 1, .frequent), (48 * bpHour, .rare), (30 * bpDay, .rare),
            (nil, .rare),
        ]
        for (elapsed, bucket) in cases {
            let policy = try Self.make(Self.distinct)
            policy.begin(instances: 2)
            let used: Int64 = 5 * bpDay
            if elapsed != nil { policy.didUseApp(instance: 0, at: used) }
            let now = used + (elapsed ?? 0)
            #expect(policy.bucket(of: 0, at: now) == bucket, "elapsed \(elapsed.map(DurationText.format) ?? "never")")
            #expect(policy.bucket(of: 1, at: now) == .rare)
            // Ten requests at that instant: the bucket's quota is granted.
            let granted = (0 ..< 10).filter { _ in policy.decide(instance: 0, reason: .timeline, at: now) == .grant }
            #expect(granted.count == 4 - bucket.rawValue, "elapsed \(elapsed.map(DurationText.format) ?? "never")")
        }
    }

    @Test(arguments: [UInt64(51), 52, 53])
    func grantsIffUnderTheBucketsQuota(seed: UInt64) throws {
        let retry = bpMinute
        var values = Self.distinct
        values["timeline_retry"] = .duration(retry)
        let policy = try Self.make(values)
        let quota = [4, 3, 2, 1]
        let window = [10 * bpMinute, 2 * bpHour, 8 * bpHour, bpDay]
        // App uses are rare so that every bucket occurs.
        let events = randomBudgetEvents(
            seed: seed, instances: 3, until: 15 * bpDay, meanGap: bpMinute, views: 0, uses: 0.001)
        policy.begin(instances: 3)
        var lastUse = [Int64?](repeating: nil, count: 3)
        var grants = [[Int64]](repeating: [], count: 3)
        var refusedIn = [Int](repeating: 0, count: 4)
        for e in events {
            switch e {
            case .useApp(let i, let t):
                lastUse[i] = t
                policy.didUseApp(instance: i, at: t)
            case .request(let i, let reason, let t):
                let b: Int = switch lastUse[i].map({ t - $0 }) {
                case .some(let e) where e < 12 * bpHour: 0
                case .some(let e) where e < 24 * bpHour: 1
                case .some(let e) where e < 48 * bpHour: 2
                default: 3
                }
                #expect(policy.bucket(of: i, at: t).rawValue == b)
                let counted = Array(grants[i].reversed().prefix { $0 > t - window[b] }.reversed())
                let decision = policy.decide(instance: i, reason: reason, at: t)
                if counted.count < quota[b] {
                    #expect(decision == .grant, "\(e)")
                    grants[i].append(t)
                } else {
                    refusedIn[b] += 1
                    let free = counted[counted.count - quota[b]] + window[b]
                    #expect(decision == (reason == .timeline ? .deferUntil(max(t + retry, free), because: StandbyBucketsBudget.Bucket(rawValue: b)!.refusal) : .deny(because: StandbyBucketsBudget.Bucket(rawValue: b)!.refusal)), "\(e)")
                }
            default: policy.didReload(instance: e.instance, charged: false, at: e.time)
            }
        }
        #expect(refusedIn.allSatisfy { $0 > 0 }, "\(refusedIn)")
    }

    @Test func defaultsAllowTwentyPerTenMinutesWhenActive() throws {
        let events = [BudgetEvent.useApp(0, 0)] + budgetRequests(every: 10_000, until: bpHour)
        let outcomes = driveBudget(try Self.make(["timeline_retry": .duration(bpMinute)]), instances: 1, events)
        let grants = grantTimes(outcomes)
        #expect(grants.count == 6 * 20)
        for g in grants { #expect(grantsInWindow(grants, in: 10 * bpMinute, endingAt: g) <= 20) }
        // The 21st request of the first window waits for the first grant to leave it.
        #expect(outcomes[20].decision == .deferUntil(600_000, because: .bucketQuotaActive))
        #expect(outcomes[20].time == 200_000)
        #expect(outcomes[60].granted) // 600 s: the grant at 0 has left the window
    }

    @Test func rareWaitsADayForTheOldestGrant() throws {
        let policy = try Self.make()
        policy.begin(instances: 1)
        for k in 0 ..< 10 { #expect(policy.decide(instance: 0, reason: .timeline, at: Int64(k) * bpMinute) == .grant) }
        #expect(policy.decide(instance: 0, reason: .timeline, at: 10 * bpMinute) == .deferUntil(bpDay, because: .bucketQuotaRare))
        #expect(policy.decide(instance: 0, reason: .background, at: 10 * bpMinute) == .deny(because: .bucketQuotaRare))
        #expect(policy.decide(instance: 0, reason: .timeline, at: bpDay - 1) != .grant)
        #expect(policy.decide(instance: 0, reason: .timeline, at: bpDay) == .grant)
    }

    @Test func grantsCountAcrossABucketChange() throws {
        // 20 grants while active; at 12 h the working set allows 10 per 2 h, so the
        // request waits until only 9 of them remain in its window.
        let policy = try Self.make(["timeline_retry": .duration(bpMinute)])
        policy.begin(instances: 1)
        policy.didUseApp(instance: 0, at: 0)
        let start = 12 * bpHour - 20 * bpMinute
        for k in 0 ..< 20 {
            #expect(policy.decide(instance: 0, reason: .timeline, at: start + Int64(k) * bpMinute) == .grant)
        }
        // Grants at start + 0 … 19 min; the 10th latest is at start + 10 min.
        let refused = policy.decide(instance: 0, reason: .timeline, at: 12 * bpHour)
        #expect(refused == .deferUntil(start + 10 * bpMinute + 2 * bpHour, because: .bucketQuotaWorkingSet))
    }

    @Test func aQuotaOfZeroIsUnlimited() throws {
        let events = [BudgetEvent.useApp(0, 0)] + budgetRequests(every: 10, until: bpMinute)
        let outcomes = driveBudget(try Self.make(["active_quota": .number(0)]), instances: 1, events)
        #expect(outcomes.allSatisfy { $0.granted })
        #expect(outcomes.count == 6000)
    }
}
