import WidgetSim

/// `last_tapped`: the member the person tapped most recently comes first, then the
/// others by how recently they were tapped; members never tapped (or not within
/// `forget_after`) follow in the person's order.
///
/// It learns only from what the person visibly did (`observe`), never from the
/// ground truth in `ViewContext`.
///
/// Per view: O(members²) at most (insertion sort of at most 10 members), no allocation.
final class LastTappedRanking: RankingPolicy {
    static let forgetAfter = ParameterSpec(
        "forget_after", .duration(minimumMs: Milliseconds.hour), default: .duration(7 * Milliseconds.day),
        "a tap older than this no longer counts")

    static let descriptor = RankingPolicyDescriptor(
        name: "last_tapped",
        summary: "The most recently tapped member first, then the others by their last tap; untapped ones in the person's order.",
        source: "custom-policy example: what was used last is likely wanted next",
        parameters: [forgetAfter],
        make: { p in LastTappedRanking(forgetAfterMs: p.duration(forgetAfter)) })

    let forgetAfterMs: Int64
    /// Per member: the time of its last tap, or nil.
    private var lastTap: [SimTime?] = []
    private var scratch: [Double] = []

    init(forgetAfterMs: Int64) {
        self.forgetAfterMs = forgetAfterMs
    }

    func begin(members: Int, stream: RandomStream) {
        lastTap.removeAll(keepingCapacity: true)
        lastTap.append(contentsOf: repeatElement(nil, count: members))
    }

    func rank(_ view: ViewContext, history: StackHistory, order: inout [Int]) {
        let now = view.time
        order.rankDescending(by: { m in
            guard let t = self.lastTap[m], now - t <= self.forgetAfterMs else { return -.infinity }
            return Double(t)  // whole milliseconds below 2^53: exact
        }, scratch: &scratch)
    }

    func observe(_ outcome: ViewOutcome, history: StackHistory) {
        // The person taps the widget they ended up looking at.
        if outcome.tapped { lastTap[outcome.swipedTo ?? outcome.top] = outcome.time }
    }
}
