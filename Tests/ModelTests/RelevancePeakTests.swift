import Testing
@testable import WidgetSimModel
import WidgetSimSampling

/// A relevance peak (MODEL §5): a score equal to the highest of a widget's own history,
/// when lower scores exist, is at the top of that history however often it occurred.
@Suite struct RelevancePeakTests {
    /// A widget alternating a peak and a baseline: its peak is a peak (percentile 1),
    /// its baseline the middle of the lower half; a widget that always gives one score
    /// stays in the middle.
    @Test(arguments: [1, 2, 10, 1000])
    func alternatingPeakStaysAtTheTop(pairs: Int) {
        let h = stackHistory(members: 2)
        h.recordRelevance(member: 0, score: 1)  // the opening baseline
        for _ in 0 ..< pairs {
            h.recordRelevance(member: 0, score: 10)
            h.recordRelevance(member: 0, score: 1)
            h.recordRelevance(member: 1, score: 3)
        }
        #expect(h.percentile(member: 0, score: 10) == 1)
        #expect(h.percentile(member: 0, score: 1) == 0.5 * Double(pairs + 1) / Double(2 * pairs + 1))
        #expect(h.percentile(member: 1, score: 3) == 0.5)
        // Above the highest score is a peak too; a score below every one is not.
        #expect(h.percentile(member: 0, score: 20) == 1)
        #expect(h.percentile(member: 0, score: 0.5) == 0)
    }

    /// Several levels: only the highest is a peak; the others keep their mid-rank.
    @Test func onlyTheHighestLevelIsAPeak() {
        let h = stackHistory(members: 1)
        for s in [1.0, 1, 1, 1, 2, 2, 5, 10, 10] { h.recordRelevance(member: 0, score: s) }
        #expect(h.percentile(member: 0, score: 10) == 1)
        #expect(h.percentile(member: 0, score: 5) == 6.5 / 9)
        #expect(h.percentile(member: 0, score: 2) == 5.0 / 9)
    }

    /// Every ranking that reads relevance puts an alternating widget's peak ahead, with
    /// as long a history as four weeks give, as with a short one.
    @Test(arguments: ["relevance", "hybrid", "empirical_bayes", "ios_like"], [1, 4 * 28])
    func everyRelevanceRankingProposesAPeak(name: String, pairs: Int) {
        let h = stackHistory(members: 3)
        // Member 0 gives a constant score, member 1 alternates, member 2 gives none.
        for m in 0 ..< 2 { h.recordRelevance(member: m, score: 1) }
        for _ in 0 ..< max(pairs, 10) {
            h.recordRelevance(member: 0, score: 1)
            h.recordRelevance(member: 1, score: 10)
            h.recordRelevance(member: 1, score: 1)
        }
        h.currentRelevance = [1, 10, nil]
        // empirical_bayes: a peak's whole boost (× 1 + 2) lifts member 1 (stack share 3/11)
        // past member 0 (6/11); half of it would only tie.
        let values: [String: ParameterValue] = name == "empirical_bayes"
            ? ["relevance_delay": .duration(0), "relevance_weight": .number(2)] : [:]
        // ios_like counts days from the person's first view: 28 days of 4 peaks and 4 baselines.
        let p = makeRanking(name, values, members: 3)
        _ = rankOnce(p, h, time: 0)
        let order = rankOnce(p, h, time: Int64(pairs / 4 + 1) * rkDay)
        #expect(order.first == 1, "\(name): \(order)")
        // At its baseline it is not put ahead.
        h.currentRelevance = [1, 1, nil]
        #expect(rankOnce(p, h, time: Int64(pairs / 4 + 1) * rkDay + 1).first == 0, "\(name)")
    }
}
