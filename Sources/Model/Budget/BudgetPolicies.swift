/// Every built-in budget policy, in the order `widgetsim policies` lists them.
/// `PolicyRegistry.builtIn` registers them, through the same `register` a program
/// uses for its own policies.
public enum BudgetPolicies {
    /// The built-in budget policies' descriptors, in listing order.
    public static let all: [BudgetPolicyDescriptor] = [
        UnlimitedBudget.descriptor,
        FixedIntervalBudget.descriptor,
        DailyQuotaBudget.descriptor,
        ViewWeightedBudget.descriptor,
        IOSLikeBudget.descriptor,
        PredictiveBudget.descriptor,
        TokenBucketBudget.descriptor,
        StandbyBucketsBudget.descriptor,
        OracleBudget.descriptor,
    ]

    /// The built-in budget policy of that name, as registered.
    public static func named(_ name: String) -> BudgetPolicyDescriptor? {
        PolicyRegistry.builtIn.budget(named: name)
    }
}
