import Testing
import WidgetSimKernel
@testable import WidgetSimModel
import WidgetSimSampling

// Exact orders of every ranking policy on stack histories built by hand, and the
// registry. Property tests (permutations, determinism, invariance, convergence) are in
// RankingPolicyPropertyTests.swift; `ios_like` has RankingPolicyIosLikeTests.swift.

let rkMinute = Milliseconds.minute
let rkHour = Milliseconds.hour
let rkDay = Milliseconds.day

/// A fresh policy from the registry, with `values` over the defaults.
func makeRanking(_ name: String, _ values: [String: ParameterValue] = [:], members: Int, seed: UInt = 1) -> any RankingPolicy {
    let p = RankingPolicies.named(name)!.make(PolicyParameters(values))
    p.begin(members: members, stream: RandomStream(kind: .taus2, seed: seed))
    return p
}

/// The order `policy` gives at one view, starting from the person's order.
func rankOnce(
    _ policy: any RankingPolicy, _ history: StackHistory, time: Int64, hour: Int = 0, weekday: Int = 0,
    lambda: [Double]? = nil
) -> [Int] {
    var order = Array(0 ..< history.members)
    let interest = lambda ?? Array(repeating: 0, count: history.members)
    MemberInterest.withValues(interest) { interest in
        policy.rank(
            ViewContext(time: time, hour: hour, weekday: weekday, groundTruthInterest: interest),
            history: history, order: &order)
    }
    return order
}

/// Records a donation in `history` and tells `policy`, as the engine does.
func donateTo(_ history: StackHistory, _ policy: any RankingPolicy, member: Int, at t: Int64, hour: Int = 0, weekday: Int = 0) {
    history.recordDonation(member: member, at: t, hour: hour, weekday: weekday)
    policy.observeDonation(member: member, at: t, hour: hour, weekday: weekday)
}

func stackHistory(members: Int) -> StackHistory {
    let h = StackHistory()
    h.reset(members: members)
    return h
}

/// Members sorted by score, highest first, ties to the lower index: the reference rule.
func referenceOrder(_ scores: [Double]) -> [Int] {
    Array(scores.indices).sorted { scores[$0] != scores[$1] ? scores[$0] > scores[$1] : $0 < $1 }
}

@Suite struct RankingPolicyRegistryTests {
    @Test func namesInOrderAndUnique() {
        let names = RankingPolicies.all.map(\.name)
        #expect(names == [
            "static", "most_recent_donation", "donation_frequency", "time_of_day", "relevance",
            "hybrid", "ios_like", "thompson", "empirical_bayes", "oracle",
        ])
        #expect(Set(names).count == names.count)
        for d in RankingPolicies.all {
            #expect(RankingPolicies.named(d.name)?.name == d.name)
            #expect(!d.summary.isEmpty && !d.source.isEmpty, "\(d.name)")
            #expect(Set(d.parameters.map(\.name)).count == d.parameters.count, "\(d.name)")
        }
        #expect(RankingPolicies.named("nope") == nil)
    }

    @Test func onlyIosLikeIsUnofficial() {
        #expect(RankingPolicies.all.filter(\.unofficial).map(\.name) == ["ios_like"])
        #expect(RankingPolicies.named("ios_like")!.source.contains("unofficial"))
    }

    @Test func defaultsPassTheirOwnValidation() {
        for d in RankingPolicies.all {
            for spec in d.parameters {
                #expect(spec.problem(with: spec.defaultValue) == nil, "\(d.name).\(spec.name)")
            }
            let p = d.make(PolicyParameters())
            p.begin(members: 3, stream: RandomStream(kind: .taus2, seed: 1))
            #expect(rankOnce(p, stackHistory(members: 3), time: 0).sorted() == [0, 1, 2], "\(d.name)")
        }
    }

    @Test func parameterKindsAndDefaults() {
        func spec(_ policy: String, _ name: String) -> ParameterSpec { RankingPolicies.named(policy)!.parameter(named: name)! }
        #expect(spec("donation_frequency", "half_life").defaultValue == .duration(7 * rkDay))
        #expect(spec("donation_frequency", "half_life").problem(with: .duration(59_999)) != nil)
        #expect(spec("donation_frequency", "half_life").problem(with: .duration(rkMinute)) == nil)
        #expect(spec("time_of_day", "smoothing").defaultValue == .number(1))
        #expect(spec("time_of_day", "weekday_weight").defaultValue == .number(0.5))
        #expect(spec("time_of_day", "feedback_weight").defaultValue == .number(1))
        #expect(spec("time_of_day", "feedback_weight").problem(with: .number(1001)) != nil)
        #expect(spec("relevance", "threshold").defaultValue == .number(0.8))
        #expect(spec("relevance", "threshold").problem(with: .number(1.01)) != nil)
        #expect(spec("hybrid", "smoothing").defaultValue == .number(1))
        #expect(spec("hybrid", "relevance_weight").defaultValue == .number(2))
        #expect(spec("ios_like", "min_history").defaultValue == .number(10))
        #expect(RotationLimits.holdMin.defaultValue == .duration(900_000))
        #expect(RotationLimits.holdMax.defaultValue == .duration(1_800_000))
        #expect(RotationLimits.cooldown.defaultValue == .duration(rkHour))
        #expect(spec("thompson", "prior_alpha").defaultValue == .number(1))
        #expect(spec("thompson", "prior_beta").problem(with: .number(0.001)) != nil)
        #expect(spec("thompson", "by_hour").defaultValue == .flag(true))
    }

    /// With nothing learned, every deterministic policy keeps the person's order (ties
    /// go to the lower member index).
    @Test func emptyHistoryKeepsThePersonsOrder() {
        for d in RankingPolicies.all where d.name != "thompson" {
            let p = d.make(PolicyParameters())
            p.begin(members: 6, stream: RandomStream(kind: .taus2, seed: 1))
            let h = stackHistory(members: 6)
            #expect(rankOnce(p, h, time: 1000, hour: 9, weekday: 2, lambda: Array(repeating: 0.3, count: 6)) == Array(0 ..< 6), "\(d.name)")
        }
    }
}

@Suite struct RankingPolicyExactOrderTests {
    @Test func mostRecentDonation() {
        let h = stackHistory(members: 5)
        let p = makeRanking("most_recent_donation", members: 5)
        #expect(rankOnce(p, h, time: 0) == [0, 1, 2, 3, 4])
        donateTo(h, p, member: 1, at: 50)
        donateTo(h, p, member: 3, at: 100)
        donateTo(h, p, member: 4, at: 100)
        #expect(rankOnce(p, h, time: 200) == [3, 4, 1, 0, 2])
        donateTo(h, p, member: 1, at: 300)
        #expect(rankOnce(p, h, time: 400) == [1, 3, 4, 0, 2])
        donateTo(h, p, member: 2, at: 400)
        #expect(rankOnce(p, h, time: 400) == [2, 1, 3, 4, 0])
    }

    /// One donation at 0, a half-life later: exactly half.
    @Test func donationFrequencyHalfLife() {
        let h = stackHistory(members: 2)
        let p = DonationFrequencyRanking(halfLifeMs: 3 * rkHour)
        p.begin(members: 2, stream: RandomStream(kind: .taus2, seed: 1))
        donateTo(h, p, member: 0, at: 0)
        #expect(p.score(0, at: 0) == 1)
        #expect(p.score(0, at: 3 * rkHour) == 0.5)
        #expect(p.score(0, at: 9 * rkHour) == 0.125)
        #expect(p.score(1, at: 9 * rkHour) == 0)
    }

    /// Member 0: donations at 0 and at H; member 1: one at 2H; member 2: three at 0.
    /// At 3H: 2^-3 + 2^-2 = 0.375, 2^-1 = 0.5, 3 × 2^-3 = 0.375 → [1, 0, 2, 3], with the
    /// 0–2 tie to the lower index. At 2.5H the ratio member 1 / member 0 is exactly 4/3.
    @Test func donationFrequencyScoresAndOrder() {
        let halfLife = 6 * rkHour
        func setUp() -> (StackHistory, DonationFrequencyRanking) {
            let h = stackHistory(members: 4)
            let p = DonationFrequencyRanking(halfLifeMs: halfLife)
            p.begin(members: 4, stream: RandomStream(kind: .taus2, seed: 1))
            donateTo(h, p, member: 0, at: 0)
            donateTo(h, p, member: 2, at: 0)
            donateTo(h, p, member: 2, at: 0)
            donateTo(h, p, member: 2, at: 0)
            donateTo(h, p, member: 0, at: halfLife)
            donateTo(h, p, member: 1, at: 2 * halfLife)
            return (h, p)
        }
        let (h, p) = setUp()
        #expect(rankOnce(p, h, time: 3 * halfLife) == [1, 0, 2, 3])
        #expect(p.score(0, at: 3 * halfLife) == 0.375)
        #expect(p.score(1, at: 3 * halfLife) == 0.5)
        #expect(p.score(2, at: 3 * halfLife) == 0.375)

        let (h2, q) = setUp()
        let t = 5 * halfLife / 2
        #expect(rankOnce(q, h2, time: t) == [1, 0, 2, 3])
        let s0 = q.score(0, at: t), s1 = q.score(1, at: t), s2 = q.score(2, at: t)
        #expect(abs(s1 / s0 - 4.0 / 3) < 1e-12)
        #expect(abs(s2 / s0 - 1) < 1e-12)
        #expect(abs(s1 - 0.5.squareRoot() * 1) < 1e-12)  // 2^-0.5
    }

    /// Three old donations against one recent one: the half-life decides.
    @Test func donationFrequencyHalfLifeParameterDecides() {
        for (halfLife, expected) in [(7 * rkDay, [0, 1]), (rkDay, [1, 0])] {
            let h = stackHistory(members: 2)
            let p = makeRanking("donation_frequency", ["half_life": .duration(halfLife)], members: 2)
            for _ in 0 ..< 3 { donateTo(h, p, member: 0, at: 0) }
            donateTo(h, p, member: 1, at: 10 * rkDay)
            // 3 × 2^(−10/7) ≈ 1.11 > 1; 3 × 2^(−10) < 1.
            #expect(rankOnce(p, h, time: 10 * rkDay) == expected, "half-life \(halfLife)")
        }
    }

    /// Smoothing 1, weights 0: score = 1 + donations in the same local hour, earlier days
    /// and earlier today, whatever the swipes and weekdays; ties to the lower index.
    @Test func timeOfDayCountsDonationsInTheSameHour() {
        let members = 5
        let h = stackHistory(members: members)
        let p = TimeOfDayRanking(smoothing: 1, weekdayWeight: 0, feedbackWeight: 0)
        p.begin(members: members, stream: RandomStream(kind: .taus2, seed: 1))
        let events = RandomStream(kind: .taus2, seed: 77)
        var byHour = Array(repeating: 0, count: members * 24)
        var t: Int64 = 0
        var ties = 0
        for _ in 0 ..< 3000 {
            t += Int64(events.exponential(mean: Double(10 * rkMinute)))
            let hour = Int(t / rkHour % 24), weekday = Int(t / rkDay % 7)
            if events.bernoulli(0.4) {
                let m = events.uniformInt(members)
                donateTo(h, p, member: m, at: t, hour: hour, weekday: weekday)
                byHour[m * 24 + hour] += 1
            } else {
                let swipedTo = events.uniformInt(members)
                h.recordView(top: 0, swipedTo: swipedTo, tapped: nil, hour: hour, weekday: weekday)
            }
            let scores = (0 ..< members).map { 1 + Double(byHour[$0 * 24 + hour]) }
            for m in 0 ..< members {
                #expect(p.score(m, hour: hour, weekday: weekday, history: h) == scores[m])
            }
            let order = rankOnce(p, h, time: t, hour: hour, weekday: weekday)
            #expect(order == referenceOrder(scores))
            if Set(scores).count < members { ties += 1 }
        }
        #expect(ties > 100)  // the tie rule was exercised
    }

    @Test func timeOfDayByHand() {
        let h = stackHistory(members: 3)
        let p = TimeOfDayRanking(smoothing: 1, weekdayWeight: 0, feedbackWeight: 0)
        p.begin(members: 3, stream: RandomStream(kind: .taus2, seed: 1))
        for _ in 0 ..< 5 { donateTo(h, p, member: 0, at: 0, hour: 10, weekday: 0) }
        donateTo(h, p, member: 2, at: rkDay + 9 * rkHour, hour: 9, weekday: 0)
        donateTo(h, p, member: 2, at: 2 * rkDay + 9 * rkHour, hour: 9, weekday: 1)
        donateTo(h, p, member: 1, at: 2 * rkDay + 9 * rkHour, hour: 9, weekday: 1)
        donateTo(h, p, member: 1, at: 2 * rkDay + 9 * rkHour, hour: 9, weekday: 1)
        // Hour 9: 1, 3, 3 → tie of 1 and 2 to the lower index; hour 10: 0 first.
        #expect(rankOnce(p, h, time: 3 * rkDay, hour: 9, weekday: 0) == [1, 2, 0])
        #expect(rankOnce(p, h, time: 3 * rkDay, hour: 10, weekday: 0) == [0, 1, 2])

        // Weekday weight 0.5: on Monday (0) member 2's Monday donation adds 0.5 → 2 first;
        // on Tuesday member 1's two add 1 against member 2's 0.5 → 1 first.
        let w = TimeOfDayRanking(smoothing: 1, weekdayWeight: 0.5, feedbackWeight: 0)
        w.begin(members: 3, stream: RandomStream(kind: .taus2, seed: 1))
        #expect(rankOnce(w, h, time: 3 * rkDay, hour: 9, weekday: 0) == [2, 1, 0])
        #expect(w.score(2, hour: 9, weekday: 0, history: h) == 3.5)
        #expect(rankOnce(w, h, time: 3 * rkDay, hour: 9, weekday: 1) == [1, 2, 0])
        #expect(w.score(1, hour: 9, weekday: 1, history: h) == 4)

        // Feedback: three swipes to member 0 at 9 on Monday, weight 1 → 1 + 3 + 0.5·3 = 5.5.
        for _ in 0 ..< 3 { h.recordView(top: 1, swipedTo: 0, tapped: nil, hour: 9, weekday: 0) }
        let f = TimeOfDayRanking(smoothing: 1, weekdayWeight: 0.5, feedbackWeight: 1)
        f.begin(members: 3, stream: RandomStream(kind: .taus2, seed: 1))
        #expect(f.score(0, hour: 9, weekday: 0, history: h) == 5.5)
        #expect(rankOnce(f, h, time: 3 * rkDay, hour: 9, weekday: 0) == [0, 2, 1])
        // With feedback weight 0 the swipes do not count.
        #expect(rankOnce(w, h, time: 3 * rkDay, hour: 9, weekday: 0) == [2, 1, 0])
    }

    @Test func relevanceCandidatesByPercentile() {
        let h = stackHistory(members: 5)
        for m in 1 ... 3 { for s in 1 ... 10 { h.recordRelevance(member: m, score: Double(s)) } }
        for s in 1 ... 10 { h.recordRelevance(member: 4, score: -Double(s)) }
        for s in 1 ... 10 { h.recordRelevance(member: 0, score: Double(s)) }
        h.currentRelevance = [nil, 9, 10, 5, -1]
        let p = makeRanking("relevance", members: 5)
        // Mid-rank percentiles among 1…10: 2 (0.95), 1 (0.85); 3 (0.45) is below 0.8;
        // 4 has a score ≤ 0; 0 has none.
        #expect(rankOnce(p, h, time: 0) == [2, 1, 0, 3, 4])
        // Member 0 at its own top ties member 2 → lower index first.
        h.currentRelevance[0] = 10
        #expect(rankOnce(p, h, time: 0) == [0, 2, 1, 3, 4])
        // 8.5 is the 0.8 percentile exactly: a candidate (≥); 7.5 (0.7) is not.
        h.currentRelevance = [nil, 7.5, nil, 8.5, nil]
        #expect(rankOnce(p, h, time: 0) == [3, 0, 1, 2, 4])
        // 8, at its own rank, is the 0.75 percentile: not a candidate at 0.8.
        h.currentRelevance = [nil, 7.5, nil, 8, nil]
        #expect(rankOnce(p, h, time: 0) == [0, 1, 2, 3, 4])
        // Threshold 0.5: member 1 (pct 0.7) and 3 (0.75) both in, 3 first.
        let q = makeRanking("relevance", ["threshold": .number(0.5)], members: 5)
        h.currentRelevance = [nil, 7.5, nil, 8, nil]
        #expect(rankOnce(q, h, time: 0) == [3, 1, 0, 2, 4])
        // A score of 0 never rotates, even at threshold 0.
        let z = makeRanking("relevance", ["threshold": .number(0)], members: 5)
        h.currentRelevance = [nil, 0, nil, nil, 0.1]
        #expect(rankOnce(z, h, time: 0) == [4, 0, 1, 2, 3])
    }

    /// Counts at hour 9: 4, 2, 1 (smoothing 1) → prior 4/7, 2/7, 1/7.
    @Test func hybridPriorTimesRelevance() {
        let h = stackHistory(members: 3)
        let p = HybridRanking(smoothing: 1, relevanceWeight: 2)
        p.begin(members: 3, stream: RandomStream(kind: .taus2, seed: 1))
        for _ in 0 ..< 2 { donateTo(h, p, member: 0, at: 0, hour: 9) }
        h.recordView(top: 1, swipedTo: 0, tapped: nil, hour: 9, weekday: 0)
        donateTo(h, p, member: 1, at: 0, hour: 9)
        for _ in 0 ..< 9 { donateTo(h, p, member: 2, at: 0, hour: 15) }
        for m in 0 ..< 3 { for s in 1 ... 10 { h.recordRelevance(member: m, score: Double(s)) } }
        h.currentRelevance = [nil, nil, nil]
        #expect(rankOnce(p, h, time: 0, hour: 9) == [0, 1, 2])
        #expect(p.score(0, hour: 9, total: 7, history: h) == 4.0 / 7)
        // Member 1 at pct 0.5: 2/7 × 2 = 4/7, ties member 0 → lower index.
        h.currentRelevance = [nil, 5, nil]
        #expect(rankOnce(p, h, time: 0, hour: 9) == [0, 1, 2])
        // pct 0.6: 2/7 × 2.2 > 4/7.
        h.currentRelevance = [nil, 6, nil]
        #expect(rankOnce(p, h, time: 0, hour: 9) == [1, 0, 2])
        // Member 2 at pct 1: 1/7 × 3 is between 4/7 and member 1's 2/7 with weight 2, and
        // 1/7 × 6 beats everyone with weight 5.
        h.currentRelevance = [nil, nil, 10]
        #expect(rankOnce(p, h, time: 0, hour: 9) == [0, 2, 1])
        let q = makeRanking("hybrid", ["relevance_weight": .number(5)], members: 3)
        #expect(rankOnce(q, h, time: 0, hour: 9) == [2, 0, 1])
        // A score ≤ 0 counts as percentile 0.
        h.currentRelevance = [nil, nil, 0]
        #expect(rankOnce(q, h, time: 0, hour: 9) == [0, 1, 2])
        // At hour 15 member 2's nine donations dominate.
        h.currentRelevance = [nil, nil, nil]
        #expect(rankOnce(p, h, time: 0, hour: 15) == [2, 0, 1])
        // Smoothing 0 and nothing at this hour: a uniform prior, so relevance decides.
        let u = makeRanking("hybrid", ["smoothing": .number(0)], members: 3)
        h.currentRelevance = [nil, 6, 10]
        #expect(rankOnce(u, h, time: 0, hour: 3) == [2, 1, 0])
    }

    @Test func oracleFollowsGroundTruth() {
        let h = stackHistory(members: 4)
        let p = makeRanking("oracle", members: 4)
        #expect(rankOnce(p, h, time: 0, lambda: [0.1, 0.5, 0.5, 0.9]) == [3, 1, 2, 0])
        #expect(rankOnce(p, h, time: 0, lambda: [0.7, 0, 0.2, 0.1]) == [0, 2, 3, 1])
    }

    @Test func staticNeverMoves() {
        let h = stackHistory(members: 4)
        let p = makeRanking("static", members: 4)
        h.currentRelevance = [nil, 5, 7, 9]
        for m in 1 ..< 4 { donateTo(h, p, member: m, at: 10) }
        #expect(rankOnce(p, h, time: 0, lambda: [0, 1, 2, 3]) == [0, 1, 2, 3])
    }
}

@Suite struct ThompsonRankingTests {
    @Test func observeCountsSuccessesAndFailures() {
        let p = ThompsonRanking(alpha: 1, beta: 1, byHour: true)
        p.begin(members: 3, stream: RandomStream(kind: .taus2, seed: 1))
        let h = stackHistory(members: 3)
        p.observe(ViewOutcome(time: 0, hour: 9, weekday: 0, top: 0, swipedTo: 2, tapped: false), history: h)
        p.observe(ViewOutcome(time: 0, hour: 9, weekday: 0, top: 1, swipedTo: nil, tapped: true), history: h)
        p.observe(ViewOutcome(time: 0, hour: 10, weekday: 0, top: 1, swipedTo: nil, tapped: false), history: h)
        p.observe(ViewOutcome(time: 0, hour: 10, weekday: 0, top: 0, swipedTo: 1, tapped: true), history: h)
        #expect(p.successes[2 * 24 + 9] == 1 && p.failures[0 * 24 + 9] == 1)
        #expect(p.successes[1 * 24 + 9] == 1 && p.failures[1 * 24 + 9] == 0)
        #expect(p.successes[1 * 24 + 10] == 1 && p.failures[0 * 24 + 10] == 1)
        #expect(p.successes.reduce(0, +) == 3 && p.failures.reduce(0, +) == 2)

        let flat = ThompsonRanking(alpha: 1, beta: 1, byHour: false)
        flat.begin(members: 3, stream: RandomStream(kind: .taus2, seed: 1))
        flat.observe(ViewOutcome(time: 0, hour: 9, weekday: 0, top: 0, swipedTo: 2, tapped: false), history: h)
        flat.observe(ViewOutcome(time: 0, hour: 17, weekday: 0, top: 0, swipedTo: 2, tapped: false), history: h)
        #expect(flat.successes == [0, 0, 2] && flat.failures == [2, 0, 0])
    }

    /// `begin` starts a person from scratch and sizes the state for the new stack.
    @Test func beginForgetsThePreviousPerson() {
        let p = ThompsonRanking(alpha: 1, beta: 1, byHour: true)
        p.begin(members: 3, stream: RandomStream(kind: .taus2, seed: 1))
        p.observe(ViewOutcome(time: 0, hour: 9, weekday: 0, top: 0, swipedTo: 2, tapped: false), history: stackHistory(members: 3))
        p.begin(members: 5, stream: RandomStream(kind: .taus2, seed: 1))
        #expect(p.successes.count == 5 * 24 && p.successes.allSatisfy { $0 == 0 } && p.failures.allSatisfy { $0 == 0 })
    }
}
