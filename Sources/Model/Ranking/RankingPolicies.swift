/// Every built-in ranking policy, in the order `widgetsim policies` lists them.
public enum RankingPolicies {
    public static let all: [RankingPolicyDescriptor] = [
        StaticRanking.descriptor,
    ]

    public static func named(_ name: String) -> RankingPolicyDescriptor? {
        all.first { $0.name == name }
    }
}
