import WidgetSimKernel
import WidgetSimSampling

/// `ios_like` *(unofficial)*: the Smart Rotate filter of iOS, as calibrated on a
/// decompiled iOS 26.1. Calibration only: this is not documented Apple behaviour.
///
/// The stack shows the person's order unless a member has been rotated to the top.
/// Each member has rotation quotas per rolling 24 h, by the diversity of its past
/// relevance scores (`StackHistory.distinctScores`): ≤ 2 distinct values → soft 1 /
/// hard 2; ≤ 5 → 3 / 4; otherwise 5 / 6. At a view, member m (not the person's first)
/// is a candidate when all hold:
///
/// - no rotation is being held, and m is not in cool-down;
/// - its current relevance is > 0 and it has at least `min_history` past scores;
/// - its percentile within its own scores is ≥ 1 − f, with f = min(1, soft /
///   entriesPerDay) and entriesPerDay = (past scores) / max(1, days since the person's
///   first view), compared up to 1e-12 of rounding: only about the top
///   soft-quota-per-day fraction of its own scores pass (the unofficial filter gates on
///   the soft quota);
/// - it rotated fewer than `hard` times in (now − 24 h, now], and if at least `soft`
///   times, its current score is ≥ its historical maximum.
///
/// One candidate rotates; several toss a coin weighted by percentile (one uniform from
/// the policy's stream, drawn only when there are ≥ 2 candidates; equal weights when
/// all percentiles are 0). A rotation is held for a duration drawn uniformly in
/// [`hold_min`, `hold_max`] (whole milliseconds, one more uniform from the same stream;
/// a `hold_max` below `hold_min` reads as `hold_min`): the member stays on top, the
/// person's order below it, whatever its relevance does. When the hold ends the stack
/// returns to the person's order and the member is in cool-down for `cooldown`, counted
/// from the end of the hold; another member may rotate at the first view after the hold.
/// Rotation times are kept in a ring of 6 per member (the largest hard quota).
///
/// Source: decompiled iOS 26.1 (unofficial); MODEL §5.
public final class IosLikeRanking: RankingPolicy {
    public static let minHistory = ParameterSpec(
        "min_history", .count(0 ... 1_000_000), default: .number(10),
        "past relevance scores a member needs before it may rotate")
    public static let holdMin = ParameterSpec(
        "hold_min", .duration(minimumMs: Milliseconds.second), default: .duration(900 * Milliseconds.second),
        "shortest time a rotated member stays on top")
    public static let holdMax = ParameterSpec(
        "hold_max", .duration(minimumMs: Milliseconds.second), default: .duration(1800 * Milliseconds.second),
        "longest time a rotated member stays on top (at least hold_min)")
    public static let cooldown = ParameterSpec(
        "cooldown", .duration(minimumMs: 0), default: .duration(Milliseconds.hour),
        "time after a hold ends before the same member may rotate again")

    public static let descriptor = RankingPolicyDescriptor(
        name: "ios_like",
        summary: "Person's order; a member rotates to the top when its score is in the top soft-quota-per-day share of its own history, within soft/hard quotas per 24 h (1/2, 3/4, 5/6 by score diversity), held 900–1800 s, then cool-down.",
        source: "decompiled iOS 26.1 Smart Rotate (unofficial: calibration only)",
        unofficial: true,
        parameters: [minHistory, holdMin, holdMax, cooldown],
        make: { p in
            IosLikeRanking(
                minHistory: p.count(minHistory), holdMinMs: p.duration(holdMin),
                holdMaxMs: p.duration(holdMax), cooldownMs: p.duration(cooldown))
        })

    /// Rotation times kept per member: the largest hard quota, so the count in any 24 h
    /// is exact up to the point where it matters.
    static let ringSize = 6

    /// (soft, hard) rotations per rolling 24 h for a member with `distinct` past scores.
    static func quota(distinct: Int) -> (soft: Int, hard: Int) {
        if distinct <= 2 { return (1, 2) }
        if distinct <= 5 { return (3, 4) }
        return (5, 6)
    }

    let minHistory: Int
    let holdMinMs: Int64
    let holdMaxMs: Int64
    let cooldownMs: Int64

    private var stream: RandomStream?
    /// Time of the person's first view, or nil before it.
    private(set) var firstView: SimTime?
    /// The member held on top, or nil; it stays there until `holdUntil` (exclusive).
    private(set) var held: Int?
    private(set) var holdUntil: SimTime = 0
    /// Each member may rotate again from this time on.
    private(set) var cooldownUntil: [SimTime] = []
    /// The last `ringSize` rotation times of each member at `m * ringSize ..< (m + 1) *
    /// ringSize`; `.min` where none.
    private var rotationTimes: [SimTime] = []
    /// `distinctScores` of each member as of `distinctAt[m]` past scores: a member's
    /// history only grows, so the count is recomputed (O(history)) only after it does.
    private var distinct: [Int] = []
    private var distinctAt: [Int] = []
    private var ringNext: [Int] = []
    private var candidates: [Int] = []
    private var weights: [Double] = []

    public init(minHistory: Int, holdMinMs: Int64, holdMaxMs: Int64, cooldownMs: Int64) {
        precondition(minHistory >= 0 && holdMinMs > 0 && cooldownMs >= 0)
        self.minHistory = minHistory
        self.holdMinMs = holdMinMs
        self.holdMaxMs = max(holdMinMs, holdMaxMs)
        self.cooldownMs = cooldownMs
    }

    public func begin(members: Int, stream: RandomStream) {
        self.stream = stream
        firstView = nil
        held = nil
        holdUntil = 0
        cooldownUntil.resetRankingState(count: members, to: .min)
        rotationTimes.resetRankingState(count: members * Self.ringSize, to: .min)
        ringNext.resetRankingState(count: members, to: 0)
        distinct.resetRankingState(count: members, to: 0)
        distinctAt.resetRankingState(count: members, to: 0)
        candidates.reserveCapacity(members)
        weights.reserveCapacity(members)
    }

    /// Rotations of `m` in (now − 24 h, now].
    func rotations(of m: Int, at now: SimTime) -> Int {
        let since = now - Milliseconds.day
        var n = 0
        for i in m * Self.ringSize ..< (m + 1) * Self.ringSize where rotationTimes[i] > since && rotationTimes[i] <= now {
            n += 1
        }
        return n
    }

    /// Member `m`'s share of past scores at or below its current one when it may
    /// rotate at `now`, else nil.
    func eligibility(_ m: Int, at now: SimTime, days: Double, history: StackHistory) -> Double? {
        guard now >= cooldownUntil[m] else { return nil }
        guard let r = history.currentRelevance[m], r > 0 else { return nil }
        let n = history.relevanceCount(member: m)
        guard n >= minHistory else { return nil }
        let pct = history.shareAtOrBelow(member: m, score: r)
        // f = soft / entriesPerDay grows with `soft`: a score that fails with the
        // largest soft quota fails with every one, before the O(history) diversity count.
        func passes(soft: Int) -> Bool { pct >= 1 - min(1, Double(soft) * days / Double(n)) - 1e-12 }  // up to rounding
        guard passes(soft: Self.quota(distinct: .max).soft) else { return nil }
        if distinctAt[m] != n {
            distinct[m] = history.distinctScores(member: m)
            distinctAt[m] = n
        }
        let (soft, hard) = Self.quota(distinct: distinct[m])
        guard passes(soft: soft) else { return nil }
        let done = rotations(of: m, at: now)
        guard done < hard else { return nil }
        if done >= soft {
            guard let top = history.maximumScore(member: m), r >= top else { return nil }
        }
        return pct
    }

    public func rank(_ view: ViewContext, history: StackHistory, order: inout [Int]) {
        guard let stream else { preconditionFailure("rank before begin") }
        let now = view.time
        let first = firstView ?? now
        firstView = first
        if let h = held {
            if now < holdUntil {
                order.moveToFront(h)
                return
            }
            cooldownUntil[h] = holdUntil + cooldownMs
            held = nil
        }
        let days = max(1, Double(now - first) / Double(Milliseconds.day))
        candidates.removeAll(keepingCapacity: true)
        weights.removeAll(keepingCapacity: true)
        for m in 1 ..< max(1, order.count) {
            if let pct = eligibility(m, at: now, days: days, history: history) {
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
        let span = holdMaxMs - holdMinMs
        let hold = holdMinMs + min(span, Int64(stream.uniform() * Double(span + 1)))
        let slot = pick * Self.ringSize + ringNext[pick]
        rotationTimes[slot] = now
        ringNext[pick] = (ringNext[pick] + 1) % Self.ringSize
        held = pick
        holdUntil = now + hold
        order.moveToFront(pick)
    }
}
