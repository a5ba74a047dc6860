import WidgetSimSampling

/// `thompson`: Thompson sampling over a Beta–Bernoulli model of "this member is the one
/// wanted". Each member (each member × local hour when `by_hour`) keeps successes s and
/// failures f. After a view: the member swiped to gets a success and the top that was
/// swiped away a failure; a tapped top (no swipe) gets a success; a view with neither
/// teaches nothing. At each view θ_m ~ Beta(prior_alpha + s, prior_beta + f) is drawn
/// from the policy's stream for every member, always, in member order (so the stream
/// advances by the same count at every view), and the highest θ goes first.
///
/// Source: Thompson sampling (W. R. Thompson, Biometrika 1933; O. Chapelle and L. Li,
/// "An Empirical Evaluation of Thompson Sampling", NIPS 2011).
public final class ThompsonRanking: RankingPolicy {
    public static let priorAlpha = ParameterSpec(
        "prior_alpha", .number(0.01 ... 1000), default: .number(1),
        "Beta prior α: pseudo-successes of every member")
    public static let priorBeta = ParameterSpec(
        "prior_beta", .number(0.01 ... 1000), default: .number(1),
        "Beta prior β: pseudo-failures of every member")
    public static let byHour = ParameterSpec(
        "by_hour", .flag, default: .flag(true),
        "keep a separate posterior for each local hour of day")

    public static let descriptor = RankingPolicyDescriptor(
        name: "thompson",
        summary: "Thompson sampling: θ ~ Beta(α + successes, β + failures) per member (and hour), highest first; swipes to and taps succeed, swipes away fail.",
        source: "Thompson sampling (Thompson 1933; Chapelle & Li 2011)",
        parameters: [priorAlpha, priorBeta, byHour],
        make: { p in
            ThompsonRanking(alpha: p.number(priorAlpha), beta: p.number(priorBeta), byHour: p.flag(byHour))
        })

    let alpha: Double
    let beta: Double
    let byHour: Bool
    /// Per `member * hours + hour` (hours = 24 by hour, else 1).
    @exclusivity(unchecked) private(set) var successes: [Double] = []
    @exclusivity(unchecked) private(set) var failures: [Double] = []
    @exclusivity(unchecked) private var stream: RandomStream?
    @exclusivity(unchecked) private var scratch: [Double] = []

    public init(alpha: Double, beta: Double, byHour: Bool) {
        precondition(alpha > 0 && beta > 0)
        self.alpha = alpha
        self.beta = beta
        self.byHour = byHour
    }

    var hours: Int { byHour ? 24 : 1 }

    @inline(__always)
    func cell(_ m: Int, hour: Int) -> Int { byHour ? m * 24 + hour : m }

    /// What the person did at each view.
    public var observes: RankingObservations { [.views] }

    public func begin(members: Int, stream: RandomStream) {
        self.stream = stream
        successes.resetRankingState(count: members * hours, to: 0)
        failures.resetRankingState(count: members * hours, to: 0)
        scratch.reserveCapacity(members)
    }

    public func rank(_ view: ViewContext, history: StackHistory, order: inout [Int]) {
        guard let stream else { preconditionFailure("rank before begin") }
        let hour = view.hour
        // rankDescending asks for every member once, in member order: one draw each.
        order.rankDescending(by: { m in
            let c = cell(m, hour: hour)
            return stream.beta(alpha + successes[c], beta + failures[c])
        }, scratch: &scratch)
    }

    public func observe(_ outcome: ViewOutcome, history: StackHistory) {
        if let to = outcome.swipedTo {
            successes[cell(to, hour: outcome.hour)] += 1
            if to != outcome.top { failures[cell(outcome.top, hour: outcome.hour)] += 1 }
        } else if outcome.tapped {
            successes[cell(outcome.top, hour: outcome.hour)] += 1
        }
    }
}
