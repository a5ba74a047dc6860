import WidgetSimSampling

/// `most_recent_donation`: members whose app has donated an intent come first, the most
/// recent donation first; the others follow in the person's order. Equal donation times
/// keep the person's order.
///
/// Source: the Smart Stack uses the actions people donate from their apps (Apple, WWDC21
/// "Add intelligence to your widgets").
public final class MostRecentDonationRanking: RankingPolicy {
    public static let descriptor = RankingPolicyDescriptor(
        name: "most_recent_donation",
        summary: "Members with a donation first, the most recent first; then the rest in the person's order.",
        source: "Smart Stack uses the intents people donate from apps (Apple, WWDC21 \"Add intelligence to your widgets\")",
        parameters: [],
        make: { _ in MostRecentDonationRanking() })

    @exclusivity(unchecked) private var scratch: [Double] = []

    public init() {}

    /// It reads the history alone.
    public var observes: RankingObservations { [] }

    public func begin(members: Int, stream: RandomStream) {
        scratch.reserveCapacity(members)
    }

    public func rank(_ view: ViewContext, history: StackHistory, order: inout [Int]) {
        // Times are whole milliseconds well below 2^53, so the conversion is exact.
        order.rankDescending(by: { m in
            history.lastDonationFlat[m].map { Double($0) } ?? -.infinity
        }, scratch: &scratch)
    }
}
