import WidgetSimSampling

/// `oracle`: the member with the highest latent interest λ at the view first (argmax λ
/// on top), then by decreasing λ; equal λ keeps the person's order.
///
/// The only policy that reads the ground truth (`ViewContext.groundTruthInterest`),
/// which no real system can see: it is the ceiling every other policy is judged against,
/// not a policy one could ship.
///
/// Source: MODEL §2 — the wanted widget is drawn with probability λ_w / (λ_none + Σλ), so
/// argmax λ maximises the chance that the top is the wanted one.
public final class OracleRanking: RankingPolicy {
    public static let descriptor = RankingPolicyDescriptor(
        name: "oracle",
        summary: "Highest latent interest λ first (reads the ground truth): the ceiling, not a real policy.",
        source: "argmax of the wanted-widget probability λ_w / (λ_none + Σλ) (MODEL §2)",
        parameters: [],
        make: { _ in OracleRanking() })

    @exclusivity(unchecked) private var scratch: [Double] = []

    public init() {}

    /// It reads the ground truth alone.
    public var observes: RankingObservations { [] }

    public func begin(members: Int, stream: RandomStream) {
        scratch.reserveCapacity(members)
    }

    public func rank(_ view: ViewContext, history: StackHistory, order: inout [Int]) {
        let lambda = view.groundTruthInterest
        order.rankDescending(by: { m in lambda[m] }, scratch: &scratch)
    }
}
