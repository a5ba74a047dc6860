import WidgetSimSampling

/// `static`: the person's order, always; the stack never rotates.
public final class StaticRanking: RankingPolicy {
    public static let descriptor = RankingPolicyDescriptor(
        name: "static",
        summary: "The person's order; the stack never rotates.",
        source: "a Smart Stack with Smart Rotate off",
        parameters: [],
        make: { _ in StaticRanking() })

    public init() {}

    /// It ranks nothing it learns.
    public var observes: RankingObservations { [] }

    public func begin(members: Int, stream: RandomStream) {}
    public func rank(_ view: ViewContext, history: StackHistory, order: inout [Int]) {}
}
