import Testing
@testable import WidgetSimModel
import WidgetSimSampling

/// `ios_like` proposing under the rotation governor (`rotation_limits: ios`): the rules
/// one at a time on hand-built histories, then a 30-day drive checked against an
/// independent re-statement of every rule.
@Suite struct RankingPolicyIosLikeTests {
    static let fixedHold = RotationLimits(holdMinMs: 900_000, holdMaxMs: 900_000)

    func policy(_ values: [String: ParameterValue] = [:], members: Int = 3, seed: UInt = 1) -> IosLikeRanking {
        let p = RankingPolicies.named("ios_like")!.make(PolicyParameters(values)) as! IosLikeRanking
        p.begin(members: members, stream: RandomStream(kind: .taus2, seed: seed))
        return p
    }

    func governor(_ limits: RotationLimits = fixedHold, members: Int = 3, seed: UInt = 1) -> RotationGovernor {
        let g = RotationGovernor(limits: limits)
        g.begin(members: members, stream: RandomStream(kind: .taus2, seed: seed))
        return g
    }

    func record(_ h: StackHistory, member: Int, _ scores: [Double]) {
        for s in scores { h.recordRelevance(member: member, score: s) }
    }

    @Test func distinctScoresCountsTheDistinctValuesRecorded() {
        let h = StackHistory()
        h.reset(members: 2)
        let draws = RandomStream(kind: .taus2, seed: 7)
        var seen: [Set<Double>] = [[], []]
        for k in 0 ..< 2_000 {
            // Few levels, so most scores repeat one recorded before; -0.0 equals 0.0.
            let m = k % 2
            var s = Double(draws.uniformInt(12)) / 4 - 1
            if s == 0 && draws.uniform() < 0.5 { s = -0.0 }
            h.recordRelevance(member: m, score: s)
            seen[m].insert(s == 0 ? 0 : s)
            #expect(h.distinctScores(member: m) == seen[m].count)
        }
        #expect(h.distinctScores(member: 0) == 12 && h.distinctScores(member: 1) == 12)
        h.reset(members: 2)
        #expect(h.distinctScores(member: 0) == 0)
    }

    /// Two distinct scores: soft 1, hard 2 per rolling 24 h; holds of exactly 900 s; 1 h
    /// of cool-down counted from the end of the hold.
    @Test func quotaHoldAndCooldownByHand() {
        let h = stackHistory(members: 3)
        record(h, member: 1, [1, 2, 1, 2, 1, 2, 1, 2, 1, 2])
        h.currentRelevance = [nil, 2, nil]
        let p = policy(), g = governor()
        let rotated = [1, 0, 2], home = [0, 1, 2]
        #expect(governed(p, g, h, time: 0) == rotated)
        #expect(g.held == 1 && g.holdUntil == 900_000)
        h.currentRelevance[1] = nil  // held whatever the relevance does
        #expect(governed(p, g, h, time: 899_999) == rotated)
        #expect(g.holding)
        h.currentRelevance[1] = 2
        #expect(governed(p, g, h, time: 900_000) == home)
        #expect(g.cooldownUntil[1] == 4_500_000)
        #expect(g.veto(1, at: 4_499_999, history: h) == .coolingDown)
        #expect(governed(p, g, h, time: 4_499_999) == home)
        // Second rotation: one done ≥ soft, allowed because 2 is the historical maximum.
        #expect(governed(p, g, h, time: 4_500_000) == rotated)
        #expect(governed(p, g, h, time: 5_399_999) == rotated)
        #expect(governed(p, g, h, time: 9_000_000) == home)
        // Hard quota reached until the first rotation leaves the 24 h window.
        #expect(g.veto(1, at: rkDay - 1, history: h) == .rotationQuota)
        #expect(governed(p, g, h, time: rkDay - 1) == home)
        #expect(governed(p, g, h, time: rkDay) == rotated)
    }

    /// A member whose current entry carries no relevance is held to its own quotas like
    /// any other: with three distinct scores in its history (soft quota 3), one rotation
    /// in the last 24 h does not veto it.
    @Test func noCurrentRelevanceKeepsTheSoftQuotaOfTheHistory() {
        let h = stackHistory(members: 3)
        record(h, member: 1, [1, 2, 3])
        h.currentRelevance = [nil, 3, nil]
        let g = governor()
        #expect(g.choose([1, 0, 2], home: 0, at: 0, history: h).top == 1)
        #expect(g.choose([0, 1, 2], home: 0, at: 900_000, history: h).top == 0)  // the hold ends, then the cool-down
        h.currentRelevance[1] = nil
        #expect(g.rotations(of: 1, at: 5_000_000) == 1 && g.quota(of: 1, history: h).soft == 3)
        #expect(g.veto(1, at: 5_000_000, history: h) == nil)
        // With two distinct scores (soft quota 1) the same rotation does veto it.
        let two = stackHistory(members: 3)
        record(two, member: 1, [1, 2])
        two.currentRelevance = [nil, 2, nil]
        let g2 = governor()
        #expect(g2.choose([1, 0, 2], home: 0, at: 0, history: two).top == 1)
        #expect(g2.choose([0, 1, 2], home: 0, at: 900_000, history: two).top == 0)
        two.currentRelevance[1] = nil
        #expect(g2.veto(1, at: 5_000_000, history: two) == .rotationQuota)
    }

    /// Three distinct scores: soft 3, hard 4. From day 2.5 on, 10 scores and 4 per day
    /// let every score pass the percentile filter, so only the quotas decide.
    @Test func softQuotaNeedsTheHistoricalMaximum() {
        let h = stackHistory(members: 3)
        record(h, member: 1, [1, 1, 1, 1, 1, 1, 1, 1, 2, 3])
        let p = policy(), g = governor()
        #expect(governed(p, g, h, time: 0) == [0, 1, 2])  // the person's first view
        h.currentRelevance = [nil, 2, nil]
        let t0 = 3 * rkDay, gap: Int64 = 4_500_000
        for k in 0 ..< 3 {
            #expect(governed(p, g, h, time: t0 + Int64(k) * gap) == [1, 0, 2], "rotation \(k + 1)")
        }
        #expect(governed(p, g, h, time: t0 + 3 * gap) == [0, 1, 2])  // 2 < max 3
        h.currentRelevance[1] = 3
        #expect(governed(p, g, h, time: t0 + 3 * gap + 1) == [1, 0, 2])
        #expect(governed(p, g, h, time: t0 + 4 * gap + 1) == [0, 1, 2])  // hard 4 reached
        #expect(governed(p, g, h, time: t0 + rkDay) == [1, 0, 2])  // the first left the window
    }

    /// 100 distinct scores 1…100: soft 5, hard 6. After d days of the person's, 100 / d
    /// entries a day: percentile ≥ 1 − 5d/100 passes (the gate uses the soft quota: 94
    /// passed with the hard one after a day).
    @Test(arguments: [
        (1.0, 95.0, true), (1.0, 94.0, false), (2.0, 90.0, true), (2.0, 89.5, false),
        (1.5, 93.0, true), (1.5, 92.5, false), (0.25, 95.0, true), (0.25, 94.5, false),
    ])
    func percentileFilterScalesWithEntriesPerDay(days: Double, score: Double, rotates: Bool) {
        let h = stackHistory(members: 3)
        record(h, member: 1, (1 ... 100).map(Double.init))
        let p = policy()
        _ = rankOnce(p, h, time: 0)
        h.currentRelevance = [nil, score, nil]
        let order = rankOnce(p, h, time: Int64(days * Double(rkDay)))
        #expect(order == (rotates ? [1, 0, 2] : [0, 1, 2]))
    }

    @Test func needsMinHistoryAndAPositiveScore() {
        let h = stackHistory(members: 3)
        record(h, member: 1, Array(repeating: 5, count: 9))
        h.currentRelevance = [nil, 5, nil]
        #expect(rankOnce(policy(), h, time: 0) == [0, 1, 2])
        #expect(rankOnce(policy(["min_history": .number(9)]), h, time: 0) == [1, 0, 2])
        record(h, member: 1, [5])
        #expect(rankOnce(policy(), h, time: 0) == [1, 0, 2])

        let n = stackHistory(members: 3)
        record(n, member: 2, (1 ... 10).map { -Double($0) } + [0])
        n.currentRelevance = [nil, nil, -1]
        #expect(rankOnce(policy(), n, time: 0) == [0, 1, 2])
        n.currentRelevance = [nil, nil, 0]
        #expect(rankOnce(policy(), n, time: 0) == [0, 1, 2])
    }

    /// Member 0 is already on top: it is never a candidate, so member 1, the only one,
    /// rotates without a coin toss, whatever the seed.
    @Test func thePersonsFirstIsNeverACandidate() {
        let h = stackHistory(members: 3)
        for m in 0 ..< 2 { record(h, member: m, (1 ... 10).map(Double.init)) }
        h.currentRelevance = [10, 10, nil]
        for seed in 1 ... 20 {
            #expect(rankOnce(policy(members: 3, seed: UInt(seed)), h, time: 0) == [1, 0, 2])
        }
    }

    /// Two candidates: one uniform of the policy's stream picks by percentile weight; one
    /// uniform of the governor's stream gives the hold.
    @Test func weightedCoinTossAndHoldDraw() {
        let h = stackHistory(members: 4)
        for m in 1 ... 2 { record(h, member: m, (1 ... 10).map(Double.init)) }
        h.currentRelevance = [nil, 5, 10, nil]  // percentiles 0.5 and 1 pass 1 − 5/10
        var picks2 = 0
        let n = 3000
        for seed in 1 ... n {
            let p = policy([:], members: 4, seed: UInt(seed))
            let g = governor(RotationLimits(), members: 4, seed: UInt(seed + 7))
            let order = governed(p, g, h, time: 0)
            let replica = RandomStream(kind: .taus2, seed: UInt(seed))
            let pick = replica.uniform() * 1.5 < 0.5 ? 1 : 2
            let hold = 900_000 + Int64(RandomStream(kind: .taus2, seed: UInt(seed + 7)).uniform() * 900_001)
            #expect(order == (pick == 1 ? [1, 0, 2, 3] : [2, 0, 1, 3]))
            #expect(g.holdUntil == hold)
            if pick == 2 { picks2 += 1 }
        }
        let sd = (Double(n) * 2 / 9).squareRoot()
        #expect(abs(Double(picks2) - Double(n) * 2 / 3) < rankingZ * sd)
    }

    /// While a hold lasts nobody else rotates; the first view after it may rotate another.
    @Test func anotherMemberMayRotateWhenTheHoldEnds() {
        let h = stackHistory(members: 3)
        for m in 1 ... 2 { record(h, member: m, (1 ... 10).map(Double.init)) }
        h.currentRelevance = [nil, 10, nil]
        let p = policy(), g = governor()
        #expect(governed(p, g, h, time: 0) == [1, 0, 2])
        h.currentRelevance = [nil, 10, 10]
        #expect(governed(p, g, h, time: 899_999).first == 1)  // held, whatever is proposed
        #expect(governed(p, g, h, time: 900_000).first == 2)
        #expect(governed(p, g, h, time: 1_800_000).first == 0)
    }

    /// 30 days, views every few minutes, relevance changing every half hour on average
    /// with scores of 2, 4, many and many (with negatives and zeros) distinct values.
    /// Every rotation is checked against the rules restated here; every view against the
    /// hold (rotated member on top, the person's order below it, else the person's order).
    @Test(arguments: [UInt(1), 2, 3])
    func thirtyDaysRespectQuotasHoldsAndCooldowns(seed: UInt) {
        let members = 5
        let h = stackHistory(members: members)
        let p = policy([:], members: members, seed: seed + 1000)
        let g = governor(RotationLimits(), members: members, seed: seed + 2000)
        let events = RandomStream(kind: .taus2, seed: seed)
        // Score sets by member: 0 anything; 1 two values; 2 four; 3 continuous; 4 with ≤ 0.
        func draw(_ m: Int) -> Double? {
            let u = events.uniform(), v = events.uniform()
            if u < 0.1 { return nil }
            switch m {
            case 1: return v < 0.5 ? 1 : 2
            case 2: return Double(1 + Int(v * 4))
            case 4: return Double(Int(v * 12) - 2)
            default: return (v * 10_000).rounded() / 100 + 0.01
            }
        }
        var scores = Array(repeating: [Double](), count: members)  // recorded, sorted
        var nextChange = (0 ..< members).map { _ in Int64(events.exponential(mean: Double(30 * rkMinute))) }
        var starts = Array(repeating: [Int64](), count: members)
        var lastHold: (member: Int, start: Int64, until: Int64)?
        var holdEnd = Array(repeating: Int64.min / 2, count: members)  // each member's last hold
        var previousTop = 0
        var maxInWindow = Array(repeating: 0, count: members)
        var firstView: Int64?
        var t: Int64 = 0
        var views = 0
        let end = 30 * rkDay
        while t < end {
            t += 1 + Int64(events.exponential(mean: Double(3 * rkMinute)))
            for m in 0 ..< members where nextChange[m] <= t {
                let s = draw(m)
                if let s {
                    h.recordRelevance(member: m, score: s)
                    scores[m].insert(s, at: scores[m].firstIndex { $0 > s } ?? scores[m].count)
                }
                h.currentRelevance[m] = s
                nextChange[m] = t + 1 + Int64(events.exponential(mean: Double(30 * rkMinute)))
            }
            firstView = firstView ?? t
            let order = governed(p, g, h, time: t)
            views += 1
            let top = order[0]
            if top != 0 && top != previousTop {
                // A rotation of `top` starts: it must pass every rule, as restated here.
                let m = top
                let r = h.currentRelevance[m] ?? -1
                let distinct = Set(scores[m]).count
                let (soft, hard) = distinct <= 2 ? (1, 2) : distinct <= 5 ? (3, 4) : (5, 6)
                let before = starts[m].filter { $0 > t - rkDay }.count
                #expect(before + 1 <= hard, "member \(m) at \(t): \(before + 1) rotations in 24 h, hard \(hard)")
                if before >= soft { #expect(r >= scores[m].last ?? .infinity, "member \(m) beyond soft quota below its maximum") }
                #expect(r > 0 && scores[m].count >= 10)
                let days = max(1, Double(t - firstView!) / Double(rkDay))
                let pct = Double(scores[m].filter { $0 <= r }.count) / Double(scores[m].count)
                #expect(pct >= 1 - min(1, Double(soft) * days / Double(scores[m].count)) - 1e-9)
                if let last = lastHold {
                    #expect(t >= last.until, "a rotation during another's hold")
                }
                #expect(t >= holdEnd[m] + rkHour, "cool-down of member \(m)")
                #expect(g.held == m)
                let hold = g.holdUntil - t
                #expect(hold >= 900_000 && hold <= 1_800_000, "hold of \(hold) ms")
                starts[m].append(t)
                maxInWindow[m] = max(maxInWindow[m], before + 1)
                lastHold = (m, t, g.holdUntil)
                holdEnd[m] = g.holdUntil
            }
            // Every view: the held member on top while its hold lasts; after it, the
            // person's first or a new rotation.
            if let last = lastHold, t < last.until {
                #expect(top == last.member)
            } else {
                #expect(top == 0, "at \(t) after a hold ending \(lastHold?.until ?? -1)")
            }
            previousTop = top
        }
        // Cool-down between holds of one member, checked on the whole record too.
        for m in 0 ..< members {
            for (a, b) in zip(starts[m], starts[m].dropFirst()) { #expect(b - a >= 900_000 + rkHour) }
        }
        // The drive exercised the rules: every quota class was reached; the person's first never rotated.
        #expect(views > 30 * 400)
        #expect(starts[0].isEmpty)
        #expect(maxInWindow[1] == 2, "two-value member: \(maxInWindow[1])")
        #expect(maxInWindow[2] == 4, "four-value member: \(maxInWindow[2])")
        #expect(maxInWindow[3] >= 5, "continuous member: \(maxInWindow[3])")
        #expect(starts.map(\.count).reduce(0, +) > 100)
    }
}

/// `ios_like` proposes, the governor decides: the order the stack shows (its top first,
/// then the proposal).
func governed(_ p: IosLikeRanking, _ g: RotationGovernor, _ h: StackHistory, time: Int64) -> [Int] {
    var order = rankOnce(p, h, time: time)
    let top = g.choose(order, at: time, history: h).top
    order.moveToFront(top)
    return order
}
