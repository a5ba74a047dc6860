import WidgetSimSampling

/// `relevance`: a member is a candidate when its current relevance score is positive (a
/// score ≤ 0, or none, never rotates) and its percentile within its own history of
/// scores (`StackHistory.percentile`) is at least `threshold`. Candidates come first, the
/// highest percentile first; everyone else follows in the person's order. Equal
/// percentiles keep the person's order. A peak (a score at the highest of the member's
/// history, lower scores in it) is at percentile 1, so it is a candidate at any
/// threshold: a widget alternating a peak and a baseline rotates in at its peaks in the
/// fourth week as in the first (MODEL §5).
///
/// Scores are compared only with the same widget's past scores, so the ranking does not
/// change when one widget's scores are all multiplied by a positive constant.
///
/// Source: WidgetKit `TimelineEntryRelevance` — a score means something only relative to
/// the entries the same widget gave before (Apple documentation).
public final class RelevanceRanking: RankingPolicy {
    public static let threshold = ParameterSpec(
        "threshold", .number(0 ... 1), default: .number(0.8),
        "least percentile, within the member's own past scores, of a current score that rotates")

    public static let descriptor = RankingPolicyDescriptor(
        name: "relevance",
        summary: "Members whose current relevance is in the top of their own history (percentile ≥ threshold) first, by percentile; then the person's order.",
        source: "WidgetKit TimelineEntryRelevance: scores are relative to the widget's own past entries (Apple documentation)",
        parameters: [threshold],
        make: { p in RelevanceRanking(threshold: p.number(threshold)) })

    let threshold: Double
    @exclusivity(unchecked) private var scratch: [Double] = []

    public init(threshold: Double) {
        self.threshold = threshold
    }

    /// It reads the history alone.
    public var observes: RankingObservations { [] }

    public func begin(members: Int, stream: RandomStream) {
        scratch.reserveCapacity(members)
    }

    /// Member `m`'s percentile when it is a candidate, else −∞ (behind every candidate).
    func score(_ m: Int, history: StackHistory) -> Double {
        guard let r = history.currentRelevance[m], r > 0 else { return -.infinity }
        let p = history.percentile(member: m, score: r)
        return p >= threshold ? p : -.infinity
    }

    public func rank(_ view: ViewContext, history: StackHistory, order: inout [Int]) {
        order.rankDescending(by: { m in score(m, history: history) }, scratch: &scratch)
    }
}
