import Testing
@testable import WidgetSimModel
import WidgetSimSampling

// `empirical_bayes`: the person's order without evidence, a widget with overwhelming
// evidence first, the levels of the hierarchy and the hour lift computed by hand, the
// relevance boost and its delay, the recency factor, feedback counted only at a weight,
// and the push lift learned from the evidence after pushes.

@Suite struct EmpiricalBayesRankingTests {
    /// No donations, swipes, taps or relevance: the order is the person's, at every
    /// hour and weekday and for every stack size, whatever the prior strengths.
    @Test(arguments: [
        [:],
        ["stack_prior": .number(0), "hour_prior": .number(0), "weekday_prior": .number(0)],
        ["stack_prior": .number(1e6), "hour_prior": .number(0.5), "weekday_prior": .number(300)],
        ["hour_lift_prior": .number(0)],
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
    /// 1 + relevance_weight · (2 · pct − 1), a peak (its highest score, lower ones in
    /// its history) at pct 1: with no evidence, member 2 (stack share (1/3) / (25/12) =
    /// 0.16) boosted with weight 1.5 by 1 + 1.5 · (2 · 1 − 1) = 2.5 scores 0.4: above
    /// member 1 (0.24), below member 0 (0.48). With weight 3 (× 4 = 0.64) it passes
    /// member 0 too.
    /// (Without a delay, so the score counts at the first view that shows it.)
    @Test func highRelevanceLiftsAWidget() {
        let history = stackHistory(members: 4)
        for _ in 0 ..< 19 { history.recordRelevance(member: 2, score: 1) }
        history.recordRelevance(member: 2, score: 10)
        history.currentRelevance = [nil, nil, 10, nil]
        #expect(history.percentile(member: 2, score: 10) == 1)
        let now: [String: ParameterValue] = ["relevance_delay": .duration(0), "relevance_weight": .number(1.5)]
        #expect(rankOnce(makeRanking("empirical_bayes", now, members: 4), history, time: 0) == [0, 2, 1, 3])
        let strong = now.merging(["relevance_weight": .number(3)]) { $1 }
        #expect(rankOnce(makeRanking("empirical_bayes", strong, members: 4), history, time: 0) == [2, 0, 1, 3])
        history.currentRelevance = [nil, nil, 0, nil]  // a score ≤ 0 never lifts
        #expect(rankOnce(makeRanking("empirical_bayes", strong, members: 4), history, time: 0) == [0, 1, 2, 3])
    }

    /// A score lifts its widget only once it has been in force for `relevance_delay`
    /// (20 min by default), dated midway between the last view without it and the first
    /// with it: with the weight-3 boost above, member 2's high score first shows at
    /// 10 min after a view at 0 showing its baseline, so it is dated 5 min and lifts
    /// member 2 from 25 min on (counting from the first view that shows it, it would
    /// wait until 30 min). A new score starts the wait again, and with no delay the lift
    /// is immediate.
    @Test func aNewScoreWaitsForTheDelay() {
        let history = stackHistory(members: 4)
        for _ in 0 ..< 19 { history.recordRelevance(member: 2, score: 1) }
        history.recordRelevance(member: 2, score: 10)
        let policy = makeRanking("empirical_bayes", ["relevance_weight": .number(3)], members: 4)
        history.currentRelevance = [nil, nil, 1, nil]
        #expect(rankOnce(policy, history, time: 0) == [0, 1, 2, 3])
        history.currentRelevance = [nil, nil, 10, nil]
        #expect(rankOnce(policy, history, time: 10 * rkMinute) == [0, 1, 2, 3])
        #expect(rankOnce(policy, history, time: 24 * rkMinute) == [0, 1, 2, 3])
        #expect(rankOnce(policy, history, time: 25 * rkMinute) == [2, 0, 1, 3])
        history.currentRelevance = [nil, nil, 1, nil]
        #expect(rankOnce(policy, history, time: 30 * rkMinute) == [0, 1, 2, 3])
        history.currentRelevance = [nil, nil, 10, nil]
        // Last view without it at 30 min, first with it at 50 min: dated 40 min.
        #expect(rankOnce(policy, history, time: 50 * rkMinute) == [0, 1, 2, 3])
        #expect(rankOnce(policy, history, time: 59 * rkMinute) == [0, 1, 2, 3])
        #expect(rankOnce(policy, history, time: 60 * rkMinute) == [2, 0, 1, 3])
        let immediate = makeRanking(
            "empirical_bayes", ["relevance_weight": .number(3), "relevance_delay": .duration(0)], members: 4)
        #expect(rankOnce(immediate, history, time: 30 * rkMinute) == [2, 0, 1, 3])
    }

    /// At the person's first view there is no earlier view to date a score from: it is
    /// dated at that view, and a new person starts without the previous one's views.
    @Test func aScoreAtTheFirstViewIsDatedThere() {
        let history = stackHistory(members: 4)
        for _ in 0 ..< 19 { history.recordRelevance(member: 2, score: 1) }
        history.recordRelevance(member: 2, score: 10)
        let policy = makeRanking("empirical_bayes", ["relevance_weight": .number(3)], members: 4)
        history.currentRelevance = [nil, nil, 10, nil]
        #expect(rankOnce(policy, history, time: 100 * rkMinute) == [0, 1, 2, 3])
        #expect(rankOnce(policy, history, time: 119 * rkMinute) == [0, 1, 2, 3])
        #expect(rankOnce(policy, history, time: 120 * rkMinute) == [2, 0, 1, 3])
        // The next person: views of the previous one do not date this one's scores.
        policy.begin(members: 4, stream: RandomStream(kind: .taus2, seed: 1))
        #expect(rankOnce(policy, history, time: 200 * rkMinute) == [0, 1, 2, 3])
        #expect(rankOnce(policy, history, time: 219 * rkMinute) == [0, 1, 2, 3])
        #expect(rankOnce(policy, history, time: 220 * rkMinute) == [2, 0, 1, 3])
    }

    /// The latest evidence multiplies a member's score by 1 + w · 2^(−age/half-life).
    /// Two members, one donation to member 1 at hour 0: its posterior is 0.344877 against
    /// member 0's 0.655123 (stack shares 2/3, 1/3 through the default priors), a ratio of
    /// 1.899582. Member 0 has no evidence at hour 0 and member 1 all of its own, so the
    /// hour lift (k = 400) is (k/24 / k) / ((1 + k/24) / (1 + k)) = 0.945755 for member 0
    /// and 1 for member 1: a ratio of 1.796539. With w = 1.5 and a 10-min half-life the
    /// factor passes it while 2^(−a/10 min) > 0.531026, that is for a < 9.13 min. The
    /// default w = 0.25 (at most × 1.25) does not. (Hour prior 512 and k = 400 here.)
    @Test func recentEvidenceLiftsAMember() throws {
        let history = stackHistory(members: 2)
        let priors: [String: ParameterValue] = ["hour_prior": .number(512), "hour_lift_prior": .number(400)]
        let policy = makeRanking(
            "empirical_bayes", priors.merging(["recency_weight": .number(1.5)]) { $1 }, members: 2)
        let usual = makeRanking("empirical_bayes", priors, members: 2)
        let t0 = 3 * rkHour
        donateTo(history, policy, member: 1, at: t0)
        usual.observeDonation(member: 1, at: t0, hour: 0, weekday: 0)
        let eb = try #require(policy as? EmpiricalBayesRanking)
        let ratio = eb.probability(0, hour: 0, weekday: 0) / eb.probability(1, hour: 0, weekday: 0)
        #expect(abs(ratio - 1.899582) < 1e-6)
        #expect(abs(eb.hourLift(0, hour: 0) - 0.945755) < 1e-6)
        #expect(eb.hourLift(1, hour: 0) == 1)
        #expect(rankOnce(policy, history, time: t0) == [1, 0])
        #expect(rankOnce(policy, history, time: t0 + 9 * rkMinute) == [1, 0])
        #expect(rankOnce(policy, history, time: t0 + 10 * rkMinute) == [0, 1])
        #expect(rankOnce(usual, history, time: t0) == [0, 1])
        // A swipe renews the factor, though by default it does not count in the estimates.
        history.recordView(top: 0, swipedTo: 1, tapped: nil, hour: 0, weekday: 0)
        policy.observe(
            ViewOutcome(time: t0 + 30 * rkMinute, hour: 0, weekday: 0, top: 0, swipedTo: 1, tapped: false),
            history: history)
        #expect(abs(eb.probability(0, hour: 0, weekday: 0) / eb.probability(1, hour: 0, weekday: 0) - ratio) < 1e-12)
        #expect(rankOnce(policy, history, time: t0 + 31 * rkMinute) == [1, 0])
    }

    /// Swipes and taps can end only on a member the stack did not show on top (or on the
    /// one it did), so by default (`feedback_weight` and `tap_weight` 0) they leave the
    /// estimates and the hour lift as they were; at a weight they count like donations.
    @Test func feedbackCountsOnlyAtAWeight() throws {
        let history = stackHistory(members: 3)
        let plain = makeRanking("empirical_bayes", ["recency_weight": .number(0)], members: 3)
        let weighted = makeRanking(
            "empirical_bayes", ["recency_weight": .number(0), "feedback_weight": .number(1), "tap_weight": .number(1)],
            members: 3)
        for k in 0 ..< 3000 {
            let outcome = ViewOutcome(
                time: Int64(k) * rkMinute, hour: 9, weekday: 2, top: 0, swipedTo: 2, tapped: k % 2 == 0)
            history.recordView(top: 0, swipedTo: 2, tapped: k % 2 == 0 ? 2 : nil, hour: 9, weekday: 2)
            plain.observe(outcome, history: history)
            weighted.observe(outcome, history: history)
        }
        let p = try #require(plain as? EmpiricalBayesRanking)
        let fresh = try #require(makeRanking("empirical_bayes", members: 3) as? EmpiricalBayesRanking)
        for m in 0 ..< 3 {
            #expect(p.probability(m, hour: 9, weekday: 2) == fresh.probability(m, hour: 9, weekday: 2))
            #expect(p.hourLift(m, hour: 9) == 1)
        }
        #expect(rankOnce(plain, history, time: 3000 * rkMinute, hour: 9, weekday: 2) == [0, 1, 2])
        #expect(rankOnce(weighted, history, time: 3000 * rkMinute, hour: 9, weekday: 2).first == 2)
    }

    /// The hour lift moves a member the strong priors keep in place. Member 0 has 100
    /// donations at hour 15 and member 1 100 at hour 9, all on weekday 0. At hour 9 of
    /// weekday 3 the estimates are still 0.5577 and 0.4423 (stack prior 81920, hour prior
    /// 512), but member 1's lift there is ((100 + k/24) / (100 + k)) / ((100 + k/24) /
    /// (200 + k)) = 600/500 = 1.2 and member 0's (k/24 / (100 + k)) / ((100 + k/24) /
    /// (200 + k)) = 0.1714 (k = 400): member 1 is first. Without the lift (k → ∞) the
    /// order stays the person's; at hour 15 member 0 is first either way.
    @Test func theHourLiftMovesAMemberAtItsHour() throws {
        let history = stackHistory(members: 2)
        let policy = makeRanking(
            "empirical_bayes", ["recency_weight": .number(0), "hour_prior": .number(512), "hour_lift_prior": .number(400)],
            members: 2)
        let without = makeRanking(
            "empirical_bayes", ["recency_weight": .number(0), "hour_prior": .number(512),
                                "hour_lift_prior": .number(1_000_000)], members: 2)
        for k in 0 ..< 100 {
            for p in [policy, without] {
                donateTo(history, p, member: 0, at: Int64(k) * rkHour, hour: 15, weekday: 0)
                donateTo(history, p, member: 1, at: Int64(k) * rkHour + rkMinute, hour: 9, weekday: 0)
            }
        }
        let eb = try #require(policy as? EmpiricalBayesRanking)
        #expect(abs(eb.probability(0, hour: 9, weekday: 3) - (512 * (81920 * 2.0 / 3 + 100) / 82120) / 612) < 1e-12)
        #expect(abs(eb.hourLift(1, hour: 9) - 1.2) < 1e-12)
        #expect(abs(eb.hourLift(0, hour: 9) - (400.0 / 24 / 500) / ((100 + 400.0 / 24) / 600)) < 1e-12)
        #expect(rankOnce(policy, history, time: 200 * rkHour, hour: 9, weekday: 3) == [1, 0])
        #expect(rankOnce(without, history, time: 200 * rkHour, hour: 9, weekday: 3) == [0, 1])
        #expect(rankOnce(policy, history, time: 200 * rkHour, hour: 15, weekday: 3) == [0, 1])
    }

    /// Overwhelming evidence (donations; swipes or taps at their weight) for the last
    /// member at one hour and weekday puts it first there.
    @Test(arguments: ["donation", "swipe", "tap"])
    func overwhelmingEvidenceAtAnHourRanksThatWidgetFirst(kind: String) {
        let members = 6
        let history = stackHistory(members: members)
        let weights: [String: ParameterValue] =
            kind == "donation" ? [:] : ["feedback_weight": .number(1), "tap_weight": .number(1)]
        let policy = makeRanking("empirical_bayes", weights, members: members)
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
            "recency_weight": .number(0),
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

    /// Three members; on each of 20 days a push reaches member 2's app at 10:00 and
    /// member 2 donates 5 minutes later, while members 0 and 1 donate at 14:00 and 16:00,
    /// far from any push. Member 2's own evidence all came in its push windows (e_in 20,
    /// e_out 0) and no one else's did (o_in 0, o_out 40), so r = 1/41 and its push lift
    /// is ((20 + 10 · r) / 10) / r = 83 (`push_lift_prior` 10): within 30 minutes of a
    /// push at 19:50 on day 20 it goes first, though at 20:00 no one has evidence and
    /// the estimates are still the stack order (shares 6/11, 3/11, 2/11, × 1.01 at
    /// most); 30 minutes after the push it is last again. Not told of pushes, or with
    /// no window, the same evidence leaves the person's order.
    @Test func aPushLiftsAMemberWhosePushesBringThePerson() throws {
        let history = stackHistory(members: 3)
        let values: [String: ParameterValue] = ["recency_weight": .number(0)]
        let policy = makeRanking("empirical_bayes", values, members: 3)
        let untold = makeRanking("empirical_bayes", values, members: 3)
        let closed = makeRanking("empirical_bayes", values.merging(["push_window": .duration(0)]) { $1 }, members: 3)
        for day in 0 ..< 20 {
            let t = Int64(day) * rkDay
            for p in [policy, closed] { p.observePush(member: 2, at: t + 10 * rkHour) }
            for p in [policy, untold, closed] {
                donateTo(history, p, member: 2, at: t + 10 * rkHour + 5 * rkMinute, hour: 10)
                donateTo(history, p, member: 0, at: t + 14 * rkHour, hour: 14)
                donateTo(history, p, member: 1, at: t + 16 * rkHour, hour: 16)
            }
        }
        let eb = try #require(policy as? EmpiricalBayesRanking)
        #expect(abs(eb.pushLiftFactor(2) - (20 + 10.0 / 41) / 10 * 41) < 1e-9)
        #expect(abs(eb.pushLiftFactor(2) - 83) < 1e-9)
        let push = 20 * rkDay + 19 * rkHour + 50 * rkMinute
        for p in [policy, closed] { p.observePush(member: 2, at: push) }
        let at = { (p: any RankingPolicy, minutes: Int64) in
            rankOnce(p, history, time: push + minutes * rkMinute, hour: minutes < 10 ? 19 : 20)
        }
        #expect(at(policy, 10) == [2, 0, 1])
        #expect(at(policy, 29) == [2, 0, 1])
        #expect(at(policy, 30) == [0, 1, 2])
        #expect(at(untold, 10) == [0, 1, 2])
        #expect(at(closed, 10) == [0, 1, 2])
    }

    /// An app whose pushes bring no one: member 1's pushes come at 12:00 on 20 days and
    /// its donations at 16:00, so its estimated lift is (0 + 10 · r) / (20 + 10) / r =
    /// 1/3 (r from everyone else's evidence, none in its windows: 1/21). A push never
    /// lowers a member by default (`push_lift_min` 1), so the order stays the person's;
    /// with `push_lift_min` 0, while a push's window lasts member 1 falls behind member 2
    /// (shares 3/11 · 1/3 against 2/11). With `push_lift` 100 before any evidence, a
    /// first push puts it first.
    @Test func pushesThatBringNoOneDoNotLift() throws {
        let history = stackHistory(members: 3)
        let policy = makeRanking("empirical_bayes", ["recency_weight": .number(0)], members: 3)
        let falling = makeRanking("empirical_bayes", ["recency_weight": .number(0), "push_lift_min": .number(0)], members: 3)
        for day in 0 ..< 20 {
            let t = Int64(day) * rkDay
            for p in [policy, falling] {
                p.observePush(member: 1, at: t + 12 * rkHour)
                donateTo(history, p, member: 1, at: t + 16 * rkHour, hour: 16)
                donateTo(history, p, member: 0, at: t + 14 * rkHour, hour: 14)
            }
        }
        let eb = try #require(policy as? EmpiricalBayesRanking)
        let fell = try #require(falling as? EmpiricalBayesRanking)
        #expect(abs(fell.pushLiftFactor(1) - 1.0 / 3) < 1e-9)
        #expect(eb.pushLiftFactor(1) == 1)
        for p in [policy, falling] { p.observePush(member: 1, at: 20 * rkDay + 20 * rkHour) }
        let view = 20 * rkDay + 20 * rkHour + rkMinute
        #expect(rankOnce(policy, history, time: view, hour: 20) == [0, 1, 2])
        #expect(rankOnce(falling, history, time: view, hour: 20) == [0, 2, 1])
        #expect(rankOnce(falling, history, time: 20 * rkDay + 21 * rkHour, hour: 21) == [0, 1, 2])
        let eager = makeRanking("empirical_bayes", ["push_lift": .number(100)], members: 3)
        eager.observePush(member: 1, at: 0)
        #expect(rankOnce(eager, stackHistory(members: 3), time: rkMinute) == [1, 0, 2])
    }
}
