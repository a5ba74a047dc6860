import WidgetSimKernel

/// `unlimited`: every request is granted at once. The upper bound on freshness, and
/// what debugging in Xcode does (WidgetKit lifts its limits for a debugged widget).
public final class UnlimitedBudget: BudgetPolicy {
    public static let descriptor = BudgetPolicyDescriptor(
        name: "unlimited",
        summary: "Every request is granted at once: the upper bound on freshness.",
        source: "WidgetKit lifts reload limits while a widget is debugged in Xcode",
        parameters: [],
        make: { _ in UnlimitedBudget() })

    public init() {}
    public func begin(instances: Int) {}
    public func decide(instance: Int, reason: ReloadReason, at now: SimTime) -> BudgetDecision { .grant }
    public func didReload(instance: Int, charged: Bool, at now: SimTime) {}

    public var observes: BudgetObservations { [] }
}
