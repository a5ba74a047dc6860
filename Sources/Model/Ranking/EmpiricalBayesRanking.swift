import WidgetSimKernel
import WidgetSimSampling

/// `empirical_bayes`: a hierarchy of Dirichlet-multinomial estimates of which member the
/// person wants, from the weekday and hour down to the person's own stack order, times a
/// boost for relevance that is high for that widget. It starts as the person's order and
/// leaves it only as evidence accumulates.
///
/// Evidence: every donation counts 1 for its member, every swipe that ends on a member
/// counts `feedback_weight`, every tap on a member `tap_weight`, each in the local hour
/// h and the weekday-and-hour (d, h) of the event. With c(m) the member's evidence
/// summed in a cell and C its total over members, the posterior means are
///
///     q0(m)      = (1 / (m + 1)) / Σ_k 1 / (k + 1)                     the stack order
///     qall(m)    = (c_all(m)  + stack_prior   · q0(m))   / (C_all  + stack_prior)
///     qh(m)      = (c_h(m)    + hour_prior    · qall(m)) / (C_h    + hour_prior)
///     qdh(m)     = (c_dh(m)   + weekday_prior · qh(m))   / (C_dh   + weekday_prior)
///     score(m)   = qdh(m) · (1 + relevance_weight · boost(m))
///
/// with boost(m) = max(0, 2 · pct(m) − 1), pct the mid-rank percentile of the member's
/// current relevance within its own past scores (0 with no current score or one ≤ 0):
/// only a score high *for that widget* lifts it, so a widget that always gives the same
/// score, or sits at its usual baseline, gets no boost. Highest first; equal scores keep
/// the person's order.
///
/// With no evidence and no relevance every level equals q0, which strictly decreases
/// with the member's position: the ranking is exactly the person's order (`static`).
/// Each level is shrunk toward the one above with a strength in pseudo-observations, so
/// a cell with few events follows its parent and one with many follows its own counts.
/// The default strengths come from a parameter study on the default scenario
/// (`scripts/own-policies --study`, documented in scenarios/README.md).
///
/// Source: ours (empirical-Bayes shrinkage of multinomial rates, as in hierarchical
/// Dirichlet smoothing of language models; the levels and the evidence are this
/// project's choice). Reads no ground truth.
public final class EmpiricalBayesRanking: RankingPolicy {
    public static let stackPrior = ParameterSpec(
        "stack_prior", .number(0 ... 1_000_000), default: .number(81920),
        "pseudo-observations of the person's stack order behind the all-hours distribution")
    public static let hourPrior = ParameterSpec(
        "hour_prior", .number(0 ... 1_000_000), default: .number(512),
        "pseudo-observations of the all-hours distribution behind each hour's distribution")
    public static let weekdayPrior = ParameterSpec(
        "weekday_prior", .number(0 ... 1_000_000), default: .number(64),
        "pseudo-observations of the hour's distribution behind each weekday-and-hour distribution")
    public static let feedbackWeight = ParameterSpec(
        "feedback_weight", .number(0 ... 1000), default: .number(1),
        "evidence of a swipe that ends on a member, relative to a donation")
    public static let tapWeight = ParameterSpec(
        "tap_weight", .number(0 ... 1000), default: .number(1),
        "evidence of a tap on a member, relative to a donation")
    public static let relevanceWeight = ParameterSpec(
        "relevance_weight", .number(0 ... 1000), default: .number(2),
        "how much a relevance at the top of the member's own history multiplies its score (1 + weight × boost)")

    public static let descriptor = RankingPolicyDescriptor(
        name: "empirical_bayes",
        summary: "Weekday-and-hour Dirichlet-multinomial of donations, swipes and taps, shrunk toward the "
            + "hour's, the person's all-hours and the stack order; × a boost for relevance high for that widget.",
        source: "ours (hierarchical empirical-Bayes shrinkage; starts as the person's stack order)",
        parameters: [stackPrior, hourPrior, weekdayPrior, feedbackWeight, tapWeight, relevanceWeight],
        make: { p in
            EmpiricalBayesRanking(
                stackPrior: p.number(stackPrior), hourPrior: p.number(hourPrior),
                weekdayPrior: p.number(weekdayPrior), feedbackWeight: p.number(feedbackWeight),
                tapWeight: p.number(tapWeight), relevanceWeight: p.number(relevanceWeight))
        })

    let stackPrior: Double
    let hourPrior: Double
    let weekdayPrior: Double
    let feedbackWeight: Double
    let tapWeight: Double
    let relevanceWeight: Double

    private var members = 0
    /// The stack-order prior q0, by member.
    private var stackShare: [Double] = []
    /// Evidence by member; by `member * 24 + hour`; by `member * 168 + weekday * 24 + hour`.
    private var evidenceAll: [Double] = []
    private var evidenceByHour: [Double] = []
    private var evidenceByWeekdayHour: [Double] = []
    /// Totals over members: of everything, by hour, by weekday and hour.
    private var totalAll = 0.0
    private var totalByHour: [Double] = []
    private var totalByWeekdayHour: [Double] = []
    private var scratch: [Double] = []

    public init(
        stackPrior: Double, hourPrior: Double, weekdayPrior: Double, feedbackWeight: Double, tapWeight: Double,
        relevanceWeight: Double
    ) {
        precondition(stackPrior >= 0 && hourPrior >= 0 && weekdayPrior >= 0)
        precondition(feedbackWeight >= 0 && tapWeight >= 0 && relevanceWeight >= 0)
        self.stackPrior = stackPrior
        self.hourPrior = hourPrior
        self.weekdayPrior = weekdayPrior
        self.feedbackWeight = feedbackWeight
        self.tapWeight = tapWeight
        self.relevanceWeight = relevanceWeight
    }

    public func begin(members: Int, stream: RandomStream) {
        self.members = members
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
    }

    /// Adds `weight` of evidence for member `m` at local `hour` of `weekday`.
    func addEvidence(_ m: Int, weight: Double, hour: Int, weekday: Int) {
        guard weight > 0 else { return }
        let dh = weekday * 24 + hour
        evidenceAll[m] += weight
        evidenceByHour[m * 24 + hour] += weight
        evidenceByWeekdayHour[m * 168 + dh] += weight
        totalAll += weight
        totalByHour[hour] += weight
        totalByWeekdayHour[dh] += weight
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

    /// The relevance boost of member `m`: 0 … 1, positive only for a current score
    /// above the middle of its own history.
    func boost(_ m: Int, history: StackHistory) -> Double {
        guard relevanceWeight != 0, let r = history.currentRelevance[m], r > 0 else { return 0 }
        return max(0, 2 * history.percentile(member: m, score: r) - 1)
    }

    public func rank(_ view: ViewContext, history: StackHistory, order: inout [Int]) {
        precondition(order.count == members, "rank called for a stack of another size than begin")
        let hour = view.hour, weekday = view.weekday
        order.rankDescending(by: { m in
            probability(m, hour: hour, weekday: weekday) * (1 + relevanceWeight * boost(m, history: history))
        }, scratch: &scratch)
    }

    public func observe(_ outcome: ViewOutcome, history: StackHistory) {
        if let s = outcome.swipedTo {
            addEvidence(s, weight: feedbackWeight, hour: outcome.hour, weekday: outcome.weekday)
        }
        if outcome.tapped {
            addEvidence(outcome.swipedTo ?? outcome.top, weight: tapWeight, hour: outcome.hour, weekday: outcome.weekday)
        }
    }

    public func observeDonation(member: Int, at time: SimTime, hour: Int, weekday: Int) {
        addEvidence(member, weight: 1, hour: hour, weekday: weekday)
    }
}
