import WidgetSimKernel
import WidgetSimSampling

/// The limits the system puts on Smart Stack rotation, whatever the ranking policy
/// (MODEL §5): `stack: rotation_limits:` and its parameters.
public struct RotationLimits: Sendable, Hashable {
    public enum Mode: String, CaseIterable, Sendable {
        /// The iOS rules: quotas, hold, cool-down, the ≤ 0 relevance veto.
        case ios
        /// No limits: the ranking's first member is on top (to study a ranking alone).
        case none
    }

    public static let holdMin = ParameterSpec(
        "hold_min", .duration(minimumMs: Milliseconds.second), default: .duration(900 * Milliseconds.second),
        "shortest time a rotated-in widget stays on top")
    public static let holdMax = ParameterSpec(
        "hold_max", .duration(minimumMs: Milliseconds.second), default: .duration(1800 * Milliseconds.second),
        "longest time a rotated-in widget stays on top (read as hold_min when below it)")
    public static let cooldown = ParameterSpec(
        "cooldown", .duration(minimumMs: 0), default: .duration(Milliseconds.hour),
        "time after a hold ends (or the person swipes it away) before that widget may rotate in again")
    public static let parameters = [holdMin, holdMax, cooldown]

    public var mode: Mode
    public var holdMinMs: Int64
    public var holdMaxMs: Int64
    public var cooldownMs: Int64

    public init(
        mode: Mode = .ios, holdMinMs: Int64 = 900 * Milliseconds.second,
        holdMaxMs: Int64 = 1800 * Milliseconds.second, cooldownMs: Int64 = Milliseconds.hour
    ) {
        self.mode = mode
        self.holdMinMs = holdMinMs
        self.holdMaxMs = max(holdMinMs, holdMaxMs)
        self.cooldownMs = cooldownMs
    }

    public static let none = RotationLimits(mode: .none)
}

/// What the rotation governor decided at a view (`RotationGovernor.choose`).
public struct RotationChoice: Sendable, Hashable {
    /// The member put on top.
    public let top: Int
    /// Why the governor kept the members the proposed order put ahead of `top` off the
    /// top: `.held` for every one of them while a rotated-in member's hold lasts;
    /// otherwise, for the person's wanted member when it was one of them, the first
    /// limit it failed (`RotationGovernor.veto`). Nil when no hold lasts and the wanted
    /// member is on top, behind it (the ranking's choice) or none.
    public let refused: MissedViewReason?

    public init(top: Int, refused: MissedViewReason?) {
        self.top = top
        self.refused = refused
    }
}

/// The rotation governor (MODEL §5): between the ranking policy and the screen. At each
/// view of a stack with Smart Rotate on, the ranking proposes an order; the governor
/// puts on top the first member of that order it allows, under these rules (mode `ios`):
///
/// - the person's first member (member 0, or the first already added when earlier ones
///   are not yet in the stack) is the stack's own top: showing it is not a rotation, and
///   it is always allowed;
/// - any other member on top was *rotated in*: it stays there for a hold drawn uniformly
///   in [`hold_min`, `hold_max`] (whole ms, one uniform of the governor's stream per
///   rotation), whatever the ranking proposes, unless the person swipes away from it;
///   when the hold ends (or at the swipe) it leaves the top at the next view and cools
///   down for `cooldown`;
/// - a member may be rotated in only if its current relevance is not ≤ 0 (a member with
///   no relevance is not vetoed), it is not cooling down, it rotated in fewer than its
///   hard quota of times in (now − 24 h, now], and, once at its soft quota, only with a
///   current score at least its historical maximum. The quotas (soft/hard 1/2, 3/4, 5/6)
///   follow the diversity of the member's own past scores: ≤ 2 distinct, ≤ 5, more.
///
/// Mode `none` puts the ranking's first member on top. Smart Rotate off never rotates
/// (the engine shows member 0 and asks nobody).
///
/// Source: the quotas, hold and cool-down are calibration from a decompiled iOS 26.1
/// (unofficial); MODEL §5.
public final class RotationGovernor {
    /// Rotation times kept per member: the largest hard quota.
    static let ringSize = 6

    /// (soft, hard) rotations per rolling 24 h for a member with `distinct` past scores
    /// (unofficial, decompiled iOS 26.1).
    public static func quota(distinct: Int) -> (soft: Int, hard: Int) {
        if distinct <= 2 { return (1, 2) }
        if distinct <= 5 { return (3, 4) }
        return (5, 6)
    }

    public let limits: RotationLimits
    @exclusivity(unchecked) private var stream: RandomStream?
    /// The member on top at the latest view, or nil before the first.
    @exclusivity(unchecked) public private(set) var current: Int?
    /// The member held on top until `holdUntil` (exclusive), or nil.
    @exclusivity(unchecked) public private(set) var held: Int?
    @exclusivity(unchecked) public private(set) var holdUntil: SimTime = 0
    /// The stack's own top at the latest `choose`.
    @exclusivity(unchecked) public private(set) var home = 0
    /// Whether the latest `choose` kept a held member on top, and whether it rotated one in.
    @exclusivity(unchecked) public private(set) var holding = false
    @exclusivity(unchecked) public private(set) var rotatedIn = false
    /// Each member may rotate in again from this time on.
    @exclusivity(unchecked) public private(set) var cooldownUntil: [SimTime] = []
    // The state read at every view and written at every rotation is kept in flat
    // buffers (no copy-on-write check per write), indexed by members `begin` sized them
    // for; the public entry points check the member against `cooldownUntil`.
    /// The last `ringSize` rotation-in times of each member, `.min` where none.
    private let rotationTimes = FlatBuffer<SimTime>(repeating: .min)
    private let ringNext = FlatBuffer<Int>(repeating: 0)
    /// The latest rotation-in time of each member, `.min` where none: when it is more
    /// than 24 h ago, so is every one in the ring, and no rotation counts.
    private let latestRotation = FlatBuffer<SimTime>(repeating: .min)
    /// The time of each member's most recent rotation in (the newest in its ring), `.min`
    /// where none.
    private let newestRotation = FlatBuffer<SimTime>(repeating: .min)
    /// From this time on a member is neither cooling down nor rotated in during the last
    /// 24 h: max(`cooldownUntil`, `latestRotation` + 24 h).
    private let openFrom = FlatBuffer<SimTime>(repeating: .min)
    /// Distinct past scores of each member as of `distinctAt[m]` scores (a member's
    /// history only grows, so it is recounted only after it does).
    @exclusivity(unchecked) private var distinct: [Int] = []
    @exclusivity(unchecked) private var distinctAt: [Int] = []
    /// From this time on, `chooseWithoutRelevance` may take its shortcut: the time of the
    /// latest rotation in (`.min` before the first) while each came at or after the one
    /// before it (views come in time order: each member's newest rotation is then also
    /// its latest), `.max` once one did not or in mode `none` (no view is at `.max`).
    @exclusivity(unchecked) private var shortcutFrom: SimTime

    public init(limits: RotationLimits) {
        self.limits = limits
        shortcutFrom = limits.mode == .ios ? .min : .max
    }

    public func begin(members: Int, stream: RandomStream) {
        self.stream = stream
        current = nil
        held = nil
        holdUntil = 0
        holding = false
        shortcutFrom = limits.mode == .ios ? .min : .max
        cooldownUntil.resetRankingState(count: members, to: .min)
        rotationTimes.reset(count: members * Self.ringSize, to: .min)
        ringNext.reset(count: members, to: 0)
        latestRotation.reset(count: members, to: .min)
        newestRotation.reset(count: members, to: .min)
        openFrom.reset(count: members, to: .min)
        distinct.resetRankingState(count: members, to: 0)
        distinctAt.resetRankingState(count: members, to: -1)
    }

    /// Rotations in of `m` in (now − 24 h, now].
    public func rotations(of m: Int, at now: SimTime) -> Int {
        precondition(cooldownUntil.indices.contains(m), "no member \(m)")
        let since = now - Milliseconds.day
        var n = 0
        for i in m * Self.ringSize ..< (m + 1) * Self.ringSize where rotationTimes[i] > since && rotationTimes[i] <= now {
            n += 1
        }
        return n
    }

    /// The soft and hard quota of `m` now.
    public func quota(of m: Int, history: StackHistory) -> (soft: Int, hard: Int) {
        let n = history.relevanceCount(member: m)
        if distinctAt[m] != n {
            distinct[m] = history.distinctScores(member: m)
            distinctAt[m] = n
        }
        return Self.quota(distinct: distinct[m])
    }

    /// The first limit that keeps `m` from being rotated in at `now`, or nil when it may
    /// be (the stack's own top, `home` of the latest `choose`, always may).
    @inline(__always)
    public func veto(_ m: Int, at now: SimTime, history: StackHistory) -> MissedViewReason? {
        if m == home { return nil }
        precondition(cooldownUntil.indices.contains(m), "no member \(m)")
        let r = history.currentRelevance[m]
        if let r, r <= 0 { return .vetoedScore }
        if now >= openFrom[m] { return nil }
        if now < cooldownUntil[m] { return .coolingDown }
        // Every soft quota is at least 1: a member with no rotation in the window passes
        // without counting them or the O(history) diversity count; one with a rotation
        // in the window, no score in its history (so a soft quota of 1) and none now is
        // at its soft quota with no score to pass it.
        let since = now - Milliseconds.day
        if latestRotation[m] <= since { return nil }
        if r == nil && history.relevanceCount(member: m) == 0 && newestRotation[m] > since && newestRotation[m] <= now {
            return .rotationQuota
        }
        return quotaVeto(m, r, at: now, history: history)
    }

    /// `veto`'s quota rules, for a member that may have rotated in during the last 24 h.
    private func quotaVeto(_ m: Int, _ r: Double?, at now: SimTime, history: StackHistory) -> MissedViewReason? {
        let done = rotations(of: m, at: now)
        if done == 0 { return nil }
        let (soft, hard) = quota(of: m, history: history)
        if done >= hard { return .rotationQuota }
        if done >= soft {
            guard let r, let top = history.maximumScore(member: m), r >= top else { return .rotationQuota }
        }
        return nil
    }

    /// The member to put on top at `now`, given the ranking's proposed `order`, and why
    /// the person's `wanted` member is not there when the governor kept it off; `home`
    /// is the stack's own top (the person's first member, or the first one already
    /// added when earlier ones are not yet in the stack); `wanted` −1 when the person
    /// wants no member.
    public func choose(
        _ order: [Int], home: Int = 0, wanted: Int = -1, at now: SimTime, history: StackHistory
    ) -> RotationChoice {
        order.withUnsafeBufferPointer { choose($0, home: home, wanted: wanted, at: now, history: history) }
    }

    /// `choose` over an order in memory the caller owns. Kept out of line, so that
    /// `chooseWithoutRelevance`, which falls back on it, stays small enough to be made in
    /// line at the view.
    @inline(never)
    func choose(
        _ order: UnsafeBufferPointer<Int>, home: Int, wanted: Int, at now: SimTime, history: StackHistory
    ) -> RotationChoice {
        rotatedIn = false
        self.home = home
        guard limits.mode == .ios else {
            precondition(!order.isEmpty, "the order holds every member")
            current = order[0]
            return RotationChoice(top: order[0], refused: nil)
        }
        if let h = keptHeld(at: now) { return RotationChoice(top: h, refused: .held) }
        var refused: MissedViewReason? = nil
        for m in order {
            guard let why = veto(m, at: now, history: history) else {
                return RotationChoice(top: put(m, home: home, at: now), refused: refused)
            }
            if m == wanted { refused = why }
        }
        preconditionFailure("the home member is always allowed and always in the order")
    }

    /// `choose` for a stack none of whose members has any relevance, now or in its
    /// history (the caller knows it: no member's timelines carry relevance). Then no
    /// member is vetoed for its score, every soft quota is 1, and a member rotated in
    /// during the last 24 h is at it with no score to pass it: a member other than `home`
    /// may rotate in exactly when it is open (`openFrom`), provided its newest rotation is
    /// its latest and none is after `now` (every rotation came in time order, the latest
    /// at or before `now`: `shortcutFrom`), in mode `ios`. One comparison per member
    /// instead of `veto`; when that proviso does not hold, the general `choose`. A member
    /// that is not open is cooling down, or else at its soft quota of 1 with no score to
    /// pass it: the reason given when it is `wanted`.
    @inline(__always)
    func chooseWithoutRelevance(_ order: UnsafeBufferPointer<Int>, home: Int, wanted: Int, at now: SimTime,
                                history: StackHistory) -> RotationChoice {
        assert(now < .max, "no view is at .max")
        guard now >= shortcutFrom else {
            return choose(order, home: home, wanted: wanted, at: now, history: history)
        }
        assert(history.currentRelevance.allSatisfy { $0 == nil }
               && (0 ..< history.members).allSatisfy { history.relevanceCount(member: $0) == 0 },
               "chooseWithoutRelevance with relevance")
        rotatedIn = false
        self.home = home
        if let h = keptHeld(at: now) { return RotationChoice(top: h, refused: .held) }
        var refused: MissedViewReason? = nil
        for m in order {
            if m == home || now >= openFrom[m] {
                assert(m == order.first { veto($0, at: now, history: history) == nil }, "not the general choice")
                return RotationChoice(top: put(m, home: home, at: now), refused: refused)
            }
            if m == wanted {
                refused = now < cooldownUntil[m] ? .coolingDown : .rotationQuota
                assert(refused == veto(m, at: now, history: history), "not the general reason")
            }
        }
        preconditionFailure("the home member is always allowed and always in the order")
    }

    /// The held member when its hold lasts at `now` (`holding`); otherwise nil, and a hold
    /// that ended is closed: its member cools down from the hold's end.
    @inline(__always)
    private func keptHeld(at now: SimTime) -> Int? {
        if let h = held {
            if now < holdUntil {
                holding = true
                current = h
                return h
            }
            cooldownUntil[h] = holdUntil + limits.cooldownMs
            reopen(h)
            held = nil
        }
        holding = false
        return nil
    }

    /// Puts the allowed member `m` on top at `now`: a rotation in unless it is `home`.
    @inline(__always)
    private func put(_ m: Int, home: Int, at now: SimTime) -> Int {
        if m != home { rotateIn(m, at: now) }
        current = m
        return m
    }

    /// The person swiped away from the top at `now`: a hold ends there.
    public func swiped(at now: SimTime) {
        guard limits.mode == .ios, let h = held else { return }
        cooldownUntil[h] = now + limits.cooldownMs
        reopen(h)
        held = nil
    }

    /// Sets `openFrom` of `m` after its cool-down or its rotations changed.
    private func reopen(_ m: Int) {
        openFrom[m] = max(cooldownUntil[m], latestRotation[m] + Milliseconds.day)
    }

    private func rotateIn(_ m: Int, at now: SimTime) {
        guard let stream else { preconditionFailure("choose before begin") }
        shortcutFrom = now >= shortcutFrom ? now : .max
        rotationTimes[m * Self.ringSize + ringNext[m]] = now
        latestRotation[m] = max(latestRotation[m], now)
        newestRotation[m] = now
        reopen(m)
        ringNext[m] = (ringNext[m] + 1) % Self.ringSize
        let span = limits.holdMaxMs - limits.holdMinMs
        held = m
        rotatedIn = true
        holdUntil = now + limits.holdMinMs + min(span, Int64(stream.uniform() * Double(span + 1)))
    }
}
