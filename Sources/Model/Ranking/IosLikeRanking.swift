import WidgetSimKernel
import WidgetSimSampling

/// `ios_like` *(unofficial)*: the Smart Rotate scoring of iOS, as calibrated on a
/// decompiled iOS 26.1. Calibration only: this is not documented Apple behaviour. The
/// quotas, hold and cool-down are the system's (`RotationGovernor`), applied to every
/// ranking alike; this policy only proposes.
///
/// It proposes the person's order unless a member qualifies. Member m (not the person's
/// first) is a candidate when all hold:
///
/// - its current relevance is > 0 and it has at least `min_history` past scores;
/// - its percentile within its own scores is ≥ 1 − f, with f = min(1, soft /
///   entriesPerDay), soft the soft rotation quota of its score diversity
///   (`RotationGovernor.quota`) and entriesPerDay = (past scores) / max(1, days since the
///   person's first view), compared up to 1e-12 of rounding: only about the top
///   soft-quota-per-day fraction of its own scores pass (the unofficial filter gates on
///   the soft quota).
///
/// One candidate goes first; several toss a coin weighted by percentile (one uniform
/// from the policy's stream, drawn only when there are ≥ 2 candidates; equal weights
/// when all percentiles are 0). The others follow in the person's order.
///
/// Source: decompiled iOS 26.1 (unofficial); MODEL §5.
public final class IosLikeRanking: RankingPolicy {
    public static let minHistory = ParameterSpec(
        "min_history", .count(0 ... 1_000_000), default: .number(10),
        "past relevance scores a member needs before it may rotate")

    public static let descriptor = RankingPolicyDescriptor(
        name: "ios_like",
        summary: "Person's order; a member goes first when its score is in the top soft-quota-per-day share of its own history (quotas, hold and cool-down are the rotation governor's).",
        source: "decompiled iOS 26.1 Smart Rotate (unofficial: calibration only)",
        unofficial: true,
        parameters: [minHistory],
        make: { p in IosLikeRanking(minHistory: p.count(minHistory)) })

    let minHistory: Int

    @exclusivity(unchecked) private var stream: RandomStream?
    /// Time of the person's first view, or nil before it.
    @exclusivity(unchecked) private(set) var firstView: SimTime?
    /// `distinctScores` of each member as of `distinctAt[m]` past scores: a member's
    /// history only grows, so the count is recomputed (O(history)) only after it does.
    @exclusivity(unchecked) private var distinct: [Int] = []
    @exclusivity(unchecked) private var distinctAt: [Int] = []
    @exclusivity(unchecked) private var candidates: [Int] = []
    @exclusivity(unchecked) private var weights: [Double] = []

    public init(minHistory: Int) {
        precondition(minHistory >= 0)
        self.minHistory = minHistory
    }

    /// It reads the history alone.
    public var observes: RankingObservations { [] }

    public func begin(members: Int, stream: RandomStream) {
        self.stream = stream
        firstView = nil
        distinct.resetRankingState(count: members, to: 0)
        distinctAt.resetRankingState(count: members, to: 0)
        candidates.reserveCapacity(members)
        weights.reserveCapacity(members)
    }

    /// Member `m`'s share of past scores at or below its current one when it is a
    /// candidate, else nil.
    func eligibility(_ m: Int, days: Double, history: StackHistory) -> Double? {
        guard let r = history.currentRelevance[m], r > 0 else { return nil }
        let n = history.relevanceCount(member: m)
        guard n >= minHistory else { return nil }
        let pct = history.shareAtOrBelow(member: m, score: r)
        // f = soft / entriesPerDay grows with `soft`: a score that fails with the
        // largest soft quota fails with every one, before the O(history) diversity count.
        func passes(soft: Int) -> Bool { pct >= 1 - min(1, Double(soft) * days / Double(n)) - 1e-12 }  // up to rounding
        guard passes(soft: RotationGovernor.quota(distinct: .max).soft) else { return nil }
        if distinctAt[m] != n {
            distinct[m] = history.distinctScores(member: m)
            distinctAt[m] = n
        }
        guard passes(soft: RotationGovernor.quota(distinct: distinct[m]).soft) else { return nil }
        return pct
    }

    public func rank(_ view: ViewContext, history: StackHistory, order: inout [Int]) {
        guard let stream else { preconditionFailure("rank before begin") }
        let now = view.time
        let first = firstView ?? now
        firstView = first
        let days = max(1, Double(now - first) / Double(Milliseconds.day))
        candidates.removeAll(keepingCapacity: true)
        weights.removeAll(keepingCapacity: true)
        for m in 1 ..< max(1, order.count) {
            if let pct = eligibility(m, days: days, history: history) {
                candidates.append(m)
                weights.append(pct)
            }
        }
        guard !candidates.isEmpty else { return }
        var pick = candidates[0]
        if candidates.count >= 2 {
            var total = 0.0
            for w in weights { total += w }
            if !(total > 0) {
                for i in weights.indices { weights[i] = 1 }
                total = Double(weights.count)
            }
            let i = weights.withUnsafeBufferPointer { stream.choose(weights: $0, total: total) }
            pick = candidates[i]
        }
        order.moveToFront(pick)
    }
}
