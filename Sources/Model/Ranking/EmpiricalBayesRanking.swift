import Foundation
import WidgetSimKernel
import WidgetSimSampling

/// `empirical_bayes`: a hierarchy of Dirichlet-multinomial estimates of which member the
/// person wants, from the weekday and hour down to the person's own stack order, times a
/// lift for the hour, a boost for relevance that is high for that widget and has
/// lasted, a factor for fresh evidence and a lift just after a push to the member's app.
/// It starts as the person's order and leaves it only as evidence accumulates.
///
/// Evidence: every donation counts 1 for its member, every swipe that ends on a member
/// `feedback_weight`, every tap on a member `tap_weight` (both 0 by default), each in the
/// local hour h and the weekday-and-hour (d, h) of the event. Donations come from app
/// sessions, whatever the stack shows; a swipe or a tap can only end on a member the
/// stack did not already show on top (or on the one it did), so counted like donations
/// they would count against whatever the stack shows most, the person's first member
/// above all, and the more so the more the ranking shows it. With c(m) the member's
/// evidence summed in a cell and C its total over members, the posterior means are
///
///     q0(m)      = (1 / (m + 1)) / Σ_k 1 / (k + 1)                     the stack order
///     qall(m)    = (c_all(m)  + stack_prior   · q0(m))   / (C_all  + stack_prior)
///     qh(m)      = (c_h(m)    + hour_prior    · qall(m)) / (C_h    + hour_prior)
///     qdh(m)     = (c_dh(m)   + weekday_prior · qh(m))   / (C_dh   + weekday_prior)
///     lift(m, h) = [(c_h(m) + k / 24) / (c_all(m) + k)] / [(C_h + k / 24) / (C_all + k)]
///     score(m)   = qdh(m) · lift(m, h) · (1 + relevance_weight · boost(m)) · recency(m) · push(m)
///
/// with k = `hour_lift_prior`. The lift is how much more of the member's own evidence
/// falls in this hour than of everyone's, each share smoothed toward a flat day: the
/// strong priors that keep the estimates near the stack order (rotations are scarce
/// and a small lead is not worth one) also keep them from learning when in the day a
/// member is wanted, such as the person's first widget at its own peak, when a rotation
/// of another member is a loss; the lift carries that on its own strength.
///
/// boost(m) = max(0, 2 · pct(m) − 1), pct the mid-rank percentile of the member's
/// current relevance within its own past scores (0 with no current score or one ≤ 0; 1
/// at a peak, `StackHistory.percentile`, so a widget at its highest score gets the
/// whole boost): only a score high *for that widget* lifts it, so a widget that always gives the same
/// score, or sits at its usual baseline, gets no boost. The boost counts only once the
/// current score has been in force for `relevance_delay`: a rotated-in widget is held
/// for the governor's 15–30 minutes and may rotate in only a few times a day, so a
/// rotation spent on a score that has just appeared is spent before the person turns
/// to that widget (a meeting's relevance starts well before the meeting). A ranking
/// sees a score only at views, so a new score is taken to have begun midway between
/// the last view that showed the member's previous score and the first that shows the
/// new one (at that first view when it is the person's first): views come minutes
/// apart, and counting from the first view that shows it would wait on average half a
/// gap between views too long, and by as much as a whole gap.
///
/// recency(m) = 1 + recency_weight · 2^(−a / recency_half_life), a the age of the
/// member's latest donation, swipe or tap, whatever their weights (1 with none):
/// interest comes in bursts, so what the person just did says more about the next
/// minutes than the hour's counts.
///
/// push(m) is 1 except within `push_window` of the latest push the phone delivered to
/// the member's app (MODEL §5: a ranking may be told of them), where it is the member's
/// push lift, learned from the evidence that came in those windows:
///
///     r       = (o_in(m) + 1) / (o_out(m) + 1)
///     push(m) = max(F, [(e_in(m) + a · r · L) / (e_out(m) + a)] / r)
///
/// with e_in, e_out the member's own evidence inside and outside its push windows,
/// o_in, o_out everyone else's, a = `push_lift_prior`, L = `push_lift` and F =
/// `push_lift_min`: how much faster the member's evidence comes just after its app's
/// push than at other times, against how much faster everyone else's does then (so the
/// hours pushes come at cancel out), starting at L. Interest may jump for half an hour
/// after a push (a story the person opens), and a rotation spent at once is spent on
/// all of it, where the relevance boost waits for a score to last and the hour's counts
/// see no push. An app whose pushes bring no one to it keeps a lift near 1, and with
/// F = 1 a push never lowers a member: an app that pushes often (mail) has its window
/// open much of the day, and the estimate's noise below 1 would otherwise demote it,
/// the stack's own top too, for hours. Highest first; equal scores keep the person's
/// order.
///
/// With no evidence and no relevance every level equals q0, which strictly decreases
/// with the member's position, and every factor is 1: the ranking is exactly the
/// person's order (`static`). Each level is shrunk toward the one above with a strength
/// in pseudo-observations, so a cell with few events follows its parent and one with
/// many follows its own counts. The defaults come from a parameter study on the default
/// scenario (`scripts/own-policies --study`, documented in scenarios/README.md); the
/// study chose `relevance_weight` 2 while a widget's peak sat at about the 0.75
/// percentile of its history (a boost of 0.5, × 2), and with a peak at 1 the default
/// is 1, the same × 2. With the push lift the hour lift and the hour's estimate were
/// chosen again, weaker (`hour_lift_prior` 3200, `hour_prior` 2048).
///
/// Source: ours (empirical-Bayes shrinkage of multinomial rates, as in hierarchical
/// Dirichlet smoothing of language models; the levels, the evidence, the hour lift, the
/// delay, the recency factor and the push lift are this project's choice). Reads no
/// ground truth.
public final class EmpiricalBayesRanking: RankingPolicy {
    public static let stackPrior = ParameterSpec(
        "stack_prior", .number(0 ... 1_000_000), default: .number(81920),
        "pseudo-observations of the person's stack order behind the all-hours distribution")
    public static let hourPrior = ParameterSpec(
        "hour_prior", .number(0 ... 1_000_000), default: .number(2048),
        "pseudo-observations of the all-hours distribution behind each hour's distribution")
    public static let weekdayPrior = ParameterSpec(
        "weekday_prior", .number(0 ... 1_000_000), default: .number(64),
        "pseudo-observations of the hour's distribution behind each weekday-and-hour distribution")
    public static let feedbackWeight = ParameterSpec(
        "feedback_weight", .number(0 ... 1000), default: .number(0),
        "weight of a swipe to a member in the estimates, relative to a donation (any swipe renews the recency factor)")
    public static let tapWeight = ParameterSpec(
        "tap_weight", .number(0 ... 1000), default: .number(0),
        "weight of a tap on a member in the estimates, relative to a donation (any tap renews the recency factor)")
    public static let hourLiftPrior = ParameterSpec(
        "hour_lift_prior", .number(0 ... 1_000_000), default: .number(3200),
        "pseudo-observations, spread over the day, behind a member's and everyone's share of evidence at each hour")
    public static let relevanceWeight = ParameterSpec(
        "relevance_weight", .number(0 ... 1000), default: .number(1),
        "how much a relevance at the top of the member's own history multiplies its score (1 + weight × boost)")

    public static let relevanceDelay = ParameterSpec(
        "relevance_delay", .duration(minimumMs: 0), default: .duration(20 * Milliseconds.minute),
        "how long a member's current score must have been in force (dated midway between views) before it boosts")
    public static let recencyWeight = ParameterSpec(
        "recency_weight", .number(0 ... 1000), default: .number(0.25),
        "how much fresh evidence for a member multiplies its score (1 + weight × 2^(−age/recency_half_life))")
    public static let recencyHalfLife = ParameterSpec(
        "recency_half_life", .duration(minimumMs: Milliseconds.second), default: .duration(10 * Milliseconds.minute),
        "half-life of the recency factor of a member's latest donation, swipe or tap")

    public static let pushWindow = ParameterSpec(
        "push_window", .duration(minimumMs: 0), default: .duration(30 * Milliseconds.minute),
        "how long after a push delivered to a member's app its push lift applies (0s: never)")
    public static let pushLiftPrior = ParameterSpec(
        "push_lift_prior", .number(0 ... 1_000_000), default: .number(10),
        "pseudo-observations of the member's evidence outside its push windows behind its push lift")
    public static let pushLift = ParameterSpec(
        "push_lift", .number(0 ... 1000), default: .number(1),
        "the push lift before any evidence: how much more often a member is wanted just after its app's push")

    public static let pushLiftMin = ParameterSpec(
        "push_lift_min", .number(0 ... 1000), default: .number(1),
        "the least push lift: 1 lets a push only lift a member, 0 lets one whose pushes brought less evidence fall")

    public static let descriptor = RankingPolicyDescriptor(
        name: "empirical_bayes",
        summary: "Weekday-and-hour Dirichlet-multinomial of donations (swipes and taps at a weight), shrunk toward "
            + "the hour's, the person's all-hours and the stack order; × the member's lift at the hour, × a boost "
            + "for relevance high for that widget once in force for a while, × a factor for fresh evidence.",
        source: "ours (hierarchical empirical-Bayes shrinkage; starts as the person's stack order)",
        parameters: [
            stackPrior, hourPrior, weekdayPrior, feedbackWeight, tapWeight, hourLiftPrior, relevanceWeight,
            relevanceDelay, recencyWeight, recencyHalfLife, pushWindow, pushLiftPrior, pushLift,
            pushLiftMin,
        ],
        make: { p in
            EmpiricalBayesRanking(
                stackPrior: p.number(stackPrior), hourPrior: p.number(hourPrior),
                weekdayPrior: p.number(weekdayPrior), feedbackWeight: p.number(feedbackWeight),
                tapWeight: p.number(tapWeight), hourLiftPrior: p.number(hourLiftPrior),
                relevanceWeight: p.number(relevanceWeight),
                relevanceDelayMs: p.duration(relevanceDelay), recencyWeight: p.number(recencyWeight),
                recencyHalfLifeMs: p.duration(recencyHalfLife), pushWindowMs: p.duration(pushWindow),
                pushLiftPrior: p.number(pushLiftPrior), pushLift: p.number(pushLift),
                pushLiftMin: p.number(pushLiftMin))
        })

    let stackPrior: Double
    let hourPrior: Double
    let weekdayPrior: Double
    let feedbackWeight: Double
    let tapWeight: Double
    let hourLiftPrior: Double
    let relevanceWeight: Double
    let relevanceDelayMs: Int64
    let recencyWeight: Double
    let recencyHalfLifeMs: Double
    let pushWindowMs: Int64
    let pushLiftPrior: Double
    let pushLiftBefore: Double
    let pushLiftMin: Double

    @exclusivity(unchecked) private var members = 0
    /// The stack-order prior q0, by member.
    @exclusivity(unchecked) private var stackShare: [Double] = []
    /// Evidence by member; by `member * 24 + hour`; by `member * 168 + weekday * 24 + hour`.
    @exclusivity(unchecked) private var evidenceAll: [Double] = []
    @exclusivity(unchecked) private var evidenceByHour: [Double] = []
    @exclusivity(unchecked) private var evidenceByWeekdayHour: [Double] = []
    /// Totals over members: of everything, by hour, by weekday and hour.
    @exclusivity(unchecked) private var totalAll = 0.0
    @exclusivity(unchecked) private var totalByHour: [Double] = []
    @exclusivity(unchecked) private var totalByWeekdayHour: [Double] = []
    @exclusivity(unchecked) private var scratch: [Double] = []
    /// Each member's score at the latest view (nil for none) and when that score is
    /// taken to have begun (midway between the view before it was first seen and that
    /// view).
    @exclusivity(unchecked) private var seenScore: [Double?] = []
    @exclusivity(unchecked) private var seenSince: [SimTime] = []
    /// The time of the latest view of this person, `.min` before the first.
    @exclusivity(unchecked) private var previousView: SimTime = .min
    /// Time of each member's latest donation, swipe or tap, `.min` for none.
    @exclusivity(unchecked) private var lastEvidence: [SimTime] = []
    /// Time of the latest push delivered to each member's app, `.min` for none; the
    /// member's own evidence, and everyone else's, that came within `push_window` of it.
    @exclusivity(unchecked) private var lastPush: [SimTime] = []
    @exclusivity(unchecked) private var pushOwn: [Double] = []
    @exclusivity(unchecked) private var pushOthers: [Double] = []

    public init(
        stackPrior: Double, hourPrior: Double, weekdayPrior: Double, feedbackWeight: Double, tapWeight: Double,
        hourLiftPrior: Double, relevanceWeight: Double, relevanceDelayMs: Int64 = 0, recencyWeight: Double = 0,
        recencyHalfLifeMs: Int64 = 10 * Milliseconds.minute, pushWindowMs: Int64 = 0, pushLiftPrior: Double = 10,
        pushLift: Double = 1, pushLiftMin: Double = 0
    ) {
        precondition(stackPrior >= 0 && hourPrior >= 0 && weekdayPrior >= 0)
        precondition(feedbackWeight >= 0 && tapWeight >= 0 && hourLiftPrior >= 0 && relevanceWeight >= 0)
        self.stackPrior = stackPrior
        self.hourPrior = hourPrior
        self.weekdayPrior = weekdayPrior
        self.feedbackWeight = feedbackWeight
        self.tapWeight = tapWeight
        self.hourLiftPrior = hourLiftPrior
        self.relevanceWeight = relevanceWeight
        self.relevanceDelayMs = relevanceDelayMs
        self.recencyWeight = recencyWeight
        self.recencyHalfLifeMs = Double(max(1, recencyHalfLifeMs))
        self.pushWindowMs = pushWindowMs
        self.pushLiftPrior = pushLiftPrior
        self.pushLiftBefore = pushLift
        self.pushLiftMin = pushLiftMin
    }

    /// All: what the person did at each view, donations, and pushes.
    public var observes: RankingObservations { .all }

    public func begin(members: Int, stream: RandomStream) {
        self.members = members
        previousView = .min
        var harmonic = 0.0
        for m in 0 ..< members { harmonic += 1 / Double(m + 1) }
        stackShare.resetRankingState(count: members, to: 0)
        for m in 0 ..< members { stackShare[m] = 1 / Double(m + 1) / harmonic }
        evidenceAll.resetRankingState(count: members, to: 0)
        evidenceByHour.resetRankingState(count: members * 24, to: 0)
        evidenceByWeekdayHour.resetRankingState(count: members * 168, to: 0)
        totalAll = 0
        totalByHour.resetRankingState(count: 24, to: 0)
        totalByWeekdayHour.resetRankingState(count: 168, to: 0)
        scratch.reserveCapacity(members)
        seenScore.resetRankingState(count: members, to: nil)
        seenSince.resetRankingState(count: members, to: 0)
        lastEvidence.resetRankingState(count: members, to: .min)
        lastPush.resetRankingState(count: members, to: .min)
        pushOwn.resetRankingState(count: members, to: 0)
        pushOthers.resetRankingState(count: members, to: 0)
    }

    /// Adds `weight` of evidence for member `m` at local `hour` of `weekday`.
    func addEvidence(_ m: Int, weight: Double, at time: SimTime, hour: Int, weekday: Int) {
        guard weight > 0 else { return }
        lastEvidence[m] = time
        let dh = weekday * 24 + hour
        evidenceAll[m] += weight
        evidenceByHour[m * 24 + hour] += weight
        evidenceByWeekdayHour[m * 168 + dh] += weight
        totalAll += weight
        totalByHour[hour] += weight
        totalByWeekdayHour[dh] += weight
        for k in 0 ..< members where inPushWindow(k, at: time) {
            if k == m { pushOwn[k] += weight } else { pushOthers[k] += weight }
        }
    }

    /// Whether `now` is within `push_window` of the latest push to member `k`'s app.
    @inline(__always)
    func inPushWindow(_ k: Int, at now: SimTime) -> Bool {
        lastPush[k] != .min && now - lastPush[k] < pushWindowMs
    }

    /// Member `m`'s push lift: the rate of its own evidence within its push windows over
    /// its rate outside them, relative to the same ratio for everyone else's evidence
    /// (so the hours pushes come at cancel out); `push_lift_prior` pseudo-observations of
    /// its own evidence outside, with `push_lift` times everyone else's ratio inside.
    func pushLiftFactor(_ m: Int) -> Double {
        let a = pushLiftPrior
        let othersOut = totalAll - evidenceAll[m] - pushOthers[m]
        let ratio = (pushOthers[m] + 1) / (othersOut + 1)
        let ownOut = evidenceAll[m] - pushOwn[m]
        let d = ownOut + a
        guard d > 0 else { return max(pushLiftMin, pushLiftBefore) }
        return max(pushLiftMin, (pushOwn[m] + a * ratio * pushLiftBefore) / d / ratio)
    }

    /// A posterior mean: `count` of `total` in the cell, shrunk with `strength`
    /// pseudo-observations toward `parent` (the cell's own share when strength is 0
    /// and it has counts; the parent when it has none).
    @inline(__always)
    static func shrink(_ count: Double, _ total: Double, strength: Double, parent: Double) -> Double {
        let d = total + strength
        return d > 0 ? (count + strength * parent) / d : parent
    }

    /// Member `m`'s posterior probability of being wanted at local `hour` of `weekday`.
    func probability(_ m: Int, hour: Int, weekday: Int) -> Double {
        let all = Self.shrink(evidenceAll[m], totalAll, strength: stackPrior, parent: stackShare[m])
        let h = Self.shrink(evidenceByHour[m * 24 + hour], totalByHour[hour], strength: hourPrior, parent: all)
        let dh = weekday * 24 + hour
        return Self.shrink(
            evidenceByWeekdayHour[m * 168 + dh], totalByWeekdayHour[dh], strength: weekdayPrior, parent: h)
    }

    /// Member `m`'s hour lift at local `hour`: the share of its evidence at that hour over
    /// the share of all evidence there, each smoothed with `hour_lift_prior`
    /// pseudo-observations spread evenly over the 24 hours (1 with no evidence).
    func hourLift(_ m: Int, hour: Int) -> Double {
        let k = hourLiftPrior
        let own = evidenceAll[m] + k, all = totalAll + k
        guard own > 0 else { return 1 }
        let mine = (evidenceByHour[m * 24 + hour] + k / 24) / own
        let everyone = (totalByHour[hour] + k / 24) / all
        return everyone > 0 ? mine / everyone : 1
    }

    /// Notes member `m`'s current score at a view at `now`: a new value is taken to
    /// have begun midway between the previous view and this one (at `now` for the
    /// person's first view).
    @inline(__always)
    func note(_ m: Int, score: Double?, at now: SimTime) {
        if score != seenScore[m] {
            seenScore[m] = score
            seenSince[m] = previousView == .min ? now : previousView + (now - previousView) / 2
        }
    }

    /// The relevance boost of member `m` at `now`: 0 … 1, positive only for a current
    /// score above the middle of its own history that has been in force for at least
    /// `relevance_delay`.
    func boost(_ m: Int, at now: SimTime, history: StackHistory) -> Double {
        guard relevanceWeight != 0, let r = history.currentRelevance[m], r > 0,
              now - seenSince[m] >= relevanceDelayMs else { return 0 }
        return max(0, 2 * history.percentile(member: m, score: r) - 1)
    }

    /// The recency factor of member `m` at `now`: 1 + weight × 2^(−age/half-life) of
    /// its latest donation, swipe or tap; 1 without any.
    @inline(__always)
    func recency(_ m: Int, at now: SimTime) -> Double {
        guard recencyWeight != 0, lastEvidence[m] != .min else { return 1 }
        return 1 + recencyWeight * exp2(-Double(now - lastEvidence[m]) / recencyHalfLifeMs)
    }

    public func rank(_ view: ViewContext, history: StackHistory, order: inout [Int]) {
        precondition(order.count == members, "rank called for a stack of another size than begin")
        let hour = view.hour, weekday = view.weekday, now = view.time
        for m in 0 ..< members { note(m, score: history.currentRelevance[m], at: now) }
        previousView = now
        order.rankDescending(by: { m in
            probability(m, hour: hour, weekday: weekday) * hourLift(m, hour: hour)
                * (1 + relevanceWeight * boost(m, at: now, history: history)) * recency(m, at: now)
                * (inPushWindow(m, at: now) ? pushLiftFactor(m) : 1)
        }, scratch: &scratch)
    }

    /// A swipe or tap renews the member's recency factor, and counts in the estimates
    /// with its weight.
    public func observe(_ outcome: ViewOutcome, history: StackHistory) {
        if let s = outcome.swipedTo {
            lastEvidence[s] = outcome.time
            addEvidence(s, weight: feedbackWeight, at: outcome.time, hour: outcome.hour, weekday: outcome.weekday)
        }
        if outcome.tapped {
            let t = outcome.swipedTo ?? outcome.top
            lastEvidence[t] = outcome.time
            addEvidence(t, weight: tapWeight, at: outcome.time, hour: outcome.hour, weekday: outcome.weekday)
        }
    }

    public func observeDonation(member: Int, at time: SimTime, hour: Int, weekday: Int) {
        addEvidence(member, weight: 1, at: time, hour: hour, weekday: weekday)
    }

    /// A push delivered to the member's app opens its push window.
    public func observePush(member: Int, at time: SimTime) {
        lastPush[member] = time
    }
}
