import WidgetSimSampling

/// `hybrid`: a behaviour prior times a relevance boost. At local hour h, member m has
///
///     p_m = (smoothing + D[m, h] + S[m, h]) / Σ_k (smoothing + D[k, h] + S[k, h])
///     score_m = p_m × (1 + relevance_weight × pct_m)
///
/// with D the donations and S the swipes that ended on the member at hour h, and pct_m
/// the percentile of its current relevance within its own past scores (0 when it has no
/// current score or a score ≤ 0; 1 at a peak, `StackHistory.percentile`). Highest
/// first; equal scores keep the person's order. When the sum is 0 (smoothing 0 and no counts at this hour) the prior is uniform.
///
/// Source: the Smart Stack combines learned behaviour with the relevance apps give
/// their entries (Apple, WWDC21 "Add intelligence to your widgets"); the product form
/// is this project's.
public final class HybridRanking: RankingPolicy {
    public static let smoothing = ParameterSpec(
        "smoothing", .number(0 ... 1000), default: .number(1),
        "pseudo-count added to every member's behaviour count")
    public static let relevanceWeight = ParameterSpec(
        "relevance_weight", .number(0 ... 1000), default: .number(2),
        "how much a top-percentile relevance multiplies the behaviour prior (1 + weight × percentile)")

    public static let descriptor = RankingPolicyDescriptor(
        name: "hybrid",
        summary: "Behaviour prior by hour (donations + swipes, smoothed) × (1 + relevance_weight × relevance percentile).",
        source: "Smart Stack combines learned behaviour with entry relevance (Apple, WWDC21 \"Add intelligence to your widgets\")",
        parameters: [smoothing, relevanceWeight],
        make: { p in HybridRanking(smoothing: p.number(smoothing), relevanceWeight: p.number(relevanceWeight)) })

    let smoothing: Double
    let relevanceWeight: Double
    @exclusivity(unchecked) private var scratch: [Double] = []

    public init(smoothing: Double, relevanceWeight: Double) {
        self.smoothing = smoothing
        self.relevanceWeight = relevanceWeight
    }

    /// It reads the history alone.
    public var observes: RankingObservations { [] }

    public func begin(members: Int, stream: RandomStream) {
        scratch.reserveCapacity(members)
    }

    func count(_ m: Int, hour: Int, history: StackHistory) -> Double {
        let i = m * 24 + hour
        return smoothing + Double(history.donationsByHourFlat[i] + history.swipesToByHour[i])
    }

    /// The sum of every member's count at `hour`: the prior's denominator.
    func total(hour: Int, history: StackHistory) -> Double {
        var t = 0.0
        for m in 0 ..< history.members { t += count(m, hour: hour, history: history) }
        return t
    }

    /// Member `m`'s score, given the prior's denominator `total`.
    func score(_ m: Int, hour: Int, total: Double, history: StackHistory) -> Double {
        let prior = total > 0 ? count(m, hour: hour, history: history) / total : 1 / Double(history.members)
        var pct = 0.0
        if let r = history.currentRelevance[m], r > 0 { pct = history.percentile(member: m, score: r) }
        return prior * (1 + relevanceWeight * pct)
    }

    public func rank(_ view: ViewContext, history: StackHistory, order: inout [Int]) {
        let hour = view.hour
        let t = total(hour: hour, history: history)
        order.rankDescending(by: { m in score(m, hour: hour, total: t, history: history) }, scratch: &scratch)
    }
}
