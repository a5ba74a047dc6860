/// Every built-in budget policy, in the order `widgetsim policies` lists them.
public enum BudgetPolicies {
    public static let all: [BudgetPolicyDescriptor] = [
        UnlimitedBudget.descriptor,
        FixedIntervalBudget.descriptor,
        DailyQuotaBudget.descriptor,
        ViewWeightedBudget.descriptor,
        IOSLikeBudget.descriptor,
        PredictiveBudget.descriptor,
        TokenBucketBudget.descriptor,
        StandbyBucketsBudget.descriptor,
    ]

    public static func named(_ name: String) -> BudgetPolicyDescriptor? {
        all.first { $0.name == name }
    }
}
