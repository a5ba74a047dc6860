/// Every built-in ranking policy, in the order `widgetsim policies` lists them.
public enum RankingPolicies {
    public static let all: [RankingPolicyDescriptor] = [
        StaticRanking.descriptor,
        MostRecentDonationRanking.descriptor,
        DonationFrequencyRanking.descriptor,
        TimeOfDayRanking.descriptor,
        RelevanceRanking.descriptor,
        HybridRanking.descriptor,
        IosLikeRanking.descriptor,
        ThompsonRanking.descriptor,
        EmpiricalBayesRanking.descriptor,
        OracleRanking.descriptor,
    ]

    public static func named(_ name: String) -> RankingPolicyDescriptor? {
        all.first { $0.name == name }
    }
}
