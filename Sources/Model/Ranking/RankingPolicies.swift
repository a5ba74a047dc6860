/// Every built-in ranking policy, in the order `widgetsim policies` lists them.
/// `PolicyRegistry.builtIn` registers them, through the same `register` a program
/// uses for its own policies.
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

    /// The built-in ranking policy of that name, as registered.
    public static func named(_ name: String) -> RankingPolicyDescriptor? {
        PolicyRegistry.builtIn.ranking(named: name)
    }
}
