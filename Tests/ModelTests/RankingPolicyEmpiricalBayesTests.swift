import Testing
@testable import WidgetSimModel
import WidgetSimSampling

// `empirical_bayes`: the person's order without evidence, a widget with overwhelming
// evidence first, the levels of the hierarchy computed by hand, and the relevance boost.

@Suite struct EmpiricalBayesRankingTests {
    /// No donations, swipes, taps or relevance: the order is the person's, at every
    /// hour and weekday and for every stack size, whatever the prior strengths.
    @Test(arguments: [
        [:],
        ["stack_prior": .number(0), "hour_prior": .number(0), "weekday_prior": .number(0)],
        ["stack_prior": .number(1e6), "hour_prior": .number(0.5), "weekday_prior": .number(300)],
    ] as [[String: ParameterValue]])
    func withoutEvidenceRanksAsStatic(values: [String: ParameterValue]) {
        for members in 1 ... 10 {
            let history = stackHistory(members: members)
            let policy = makeRanking("empirical_bayes", values, members: members)
            for weekday in 0 ..< 7 {
                for hour in 0 ..< 24 {
                    let lambda = (0 ..< members).map { Double(($0 * 7 + hour) % 5) }
                    #expect(rankOnce(policy, history, time: 0, hour: hour, weekday: weekday, lambda: lambda)
                        == Array(0 ..< members))
                }
            }
        }
    }

    /// A widget that always gives the same relevance, or sits at its usual baseline,
    /// gets no boost: still the person's order.
    @Test func usualRelevanceLeavesTheOrder() {
        let history = stackHistory(members: 4)
        for _ in 0 ..< 20 {
            history.recordRelevance(member: 2, score: 1)
            history.recordRelevance(member: 3, score: 5)
        }
        history.currentRelevance = [nil, nil, 1, 5]
        let policy = makeRanking("empirical_bayes", members: 4)
        #expect(rankOnce(policy, history, time: 0, hour: 8) == [0, 1, 2, 3])
    }

    /// A score at the top of the widget's own history multiplies its probability by
    /// 1 + relevance_weight · (2 · pct − 1): with no evidence, member 2 (stack share
    /// (1/3) / (25/12) = 0.16) boosted by 1 + 2 · (2 · 0.975 − 1) = 2.9 scores 0.464:
    /// above member 1 (0.24), below member 0 (0.48). With weight 3 (× 3.85 = 0.616) it
    /// passes member 0 too.
    @Test func highRelevanceLiftsAWidget() {
        let history = stackHistory(members: 4)
        for _ in 0 ..< 19 { history.recordRelevance(member: 2, score: 1) }
        history.recordRelevance(member: 2, score: 10)
        history.currentRelevance = [nil, nil, 10, nil]
        #expect(history.percentile(member: 2, score: 10) == 0.975)
        #expect(rankOnce(makeRanking("empirical_bayes", members: 4), history, time: 0) == [0, 2, 1, 3])
        #expect(rankOnce(makeRanking("empirical_bayes", ["relevance_weight": .number(3)], members: 4), history, time: 0)
            == [2, 0, 1, 3])
        history.currentRelevance = [nil, nil, 0, nil]  // a score ≤ 0 never lifts
        #expect(rankOnce(makeRanking("empirical_bayes", ["relevance_weight": .number(3)], members: 4), history, time: 0)
            == [0, 1, 2, 3])
    }

    /// Overwhelming evidence (donations, swipes or taps) for the last member at one
    /// hour and weekday puts it first there.
    @Test(arguments: ["donation", "swipe", "tap"])
    func overwhelmingEvidenceAtAnHourRanksThatWidgetFirst(kind: String) {
        let members = 6
        let history = stackHistory(members: members)
        let policy = makeRanking("empirical_bayes", members: members)
        for k in 0 ..< 2000 {
            let t = Int64(k) * rkMinute
            switch kind {
            case "donation": donateTo(history, policy, member: 5, at: t, hour: 9, weekday: 2)
            case "swipe":
                history.recordView(top: 0, swipedTo: 5, tapped: nil, hour: 9, weekday: 2)
                policy.observe(ViewOutcome(time: t, hour: 9, weekday: 2, top: 0, swipedTo: 5, tapped: false), history: history)
            default:
                history.recordView(top: 5, swipedTo: nil, tapped: 5, hour: 9, weekday: 2)
                policy.observe(ViewOutcome(time: t, hour: 9, weekday: 2, top: 5, swipedTo: nil, tapped: true), history: history)
            }
            // Ordinary evidence for the person's first member at other hours.
            if k % 10 == 0 { donateTo(history, policy, member: 0, at: t, hour: 15, weekday: 2) }
        }
        #expect(rankOnce(policy, history, time: 2000 * rkMinute, hour: 9, weekday: 2).first == 5)
        #expect(rankOnce(policy, history, time: 2000 * rkMinute, hour: 15, weekday: 2).first == 0)
    }

    /// The three levels by hand, for 3 members (stack shares 6/11, 3/11, 2/11), stack
    /// prior 40, hour prior 4, weekday prior 8 and one donation to member 2 at hour 5 of
    /// weekday 0:
    ///   all-hours:  (0 + 40·6/11)/41 = 0.532, 0.266, (1 + 40·2/11)/41 = 0.202
    ///   hour 5:     4·0.532/5 = 0.426, 0.213, (1 + 4·0.202)/5 = 0.361
    ///   weekday 0:  8·0.426/9 = 0.378, 0.189, (1 + 8·0.361)/9 = 0.432
    /// so member 2 is first at hour 5 of weekday 0, second at hour 5 of other weekdays.
    @Test func levelsOfTheHierarchy() throws {
        let values: [String: ParameterValue] = [
            "stack_prior": .number(40), "hour_prior": .number(4), "weekday_prior": .number(8),
        ]
        let history = stackHistory(members: 3)
        let policy = makeRanking("empirical_bayes", values, members: 3)
        donateTo(history, policy, member: 2, at: 0, hour: 5, weekday: 0)
        #expect(rankOnce(policy, history, time: 1, hour: 5, weekday: 0) == [2, 0, 1])
        #expect(rankOnce(policy, history, time: 1, hour: 5, weekday: 1) == [0, 2, 1])
        #expect(rankOnce(policy, history, time: 1, hour: 6, weekday: 0) == [0, 1, 2])
        let eb = try #require(policy as? EmpiricalBayesRanking)
        #expect(abs(eb.probability(2, hour: 5, weekday: 0) - (1 + 8 * (1 + 4 * (1 + 80.0 / 11) / 41) / 5) / 9) < 1e-12)
    }
}
