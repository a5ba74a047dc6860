import WidgetSimKernel

/// `fixed_interval`: at most one charged reload per `interval` for each instance.
///
/// Rule: a charged request is granted iff the instance has had no granted charged
/// reload yet, or its latest one was at least `interval` ago (now − last ≥ interval).
/// A refused request is handled by `RefusalRule`, retried no earlier than
/// last + `interval`, the moment it could be granted. Free reloads neither count nor
/// restart the interval.
///
/// Source: Android's AppWidget `updatePeriodMillis` (AppWidgetProviderInfo), which the
/// system honours at no less than 30 minutes.
public final class FixedIntervalBudget: BudgetPolicy {
    public static let interval = ParameterSpec(
        "interval", .duration(minimumMs: Milliseconds.second), default: .duration(30 * Milliseconds.minute),
        "least time between two charged reloads of one instance")

    public static let descriptor = BudgetPolicyDescriptor(
        name: "fixed_interval",
        summary: "At most one charged reload per interval (30 min by default) and instance.",
        source: "Android AppWidget `updatePeriodMillis` (honoured at no less than 30 minutes)",
        refusals: [.minSpacing],
        parameters: [interval] + RefusalRule.parameters,
        make: { p in
            FixedIntervalBudget(intervalMs: p.duration(FixedIntervalBudget.interval), refusal: RefusalRule(p))
        })

    /// `lastCharged` of an instance with no granted charged reload yet.
    private static let never = SimTime.min

    public let intervalMs: Int64
    public let refusal: RefusalRule
    /// Time of each instance's latest granted charged reload, or `never`.
    @exclusivity(unchecked) private var lastCharged: [SimTime] = []

    public init(intervalMs: Int64, refusal: RefusalRule) {
        precondition(intervalMs > 0, "interval must be positive")
        self.intervalMs = intervalMs
        self.refusal = refusal
    }

    public func begin(instances: Int) {
        lastCharged.resetFlat(count: instances, to: Self.never)
    }

    public func decide(instance: Int, reason: ReloadReason, at now: SimTime) -> BudgetDecision {
        let last = lastCharged[instance]
        if last == Self.never || now - last >= intervalMs {
            lastCharged[instance] = now
            return .grant
        }
        return refusal.refuse(reason, at: now, earliest: last + intervalMs, because: .minSpacing)
    }

    /// Grants are recorded by `decide`; reloads change nothing.
    public func didReload(instance: Int, charged: Bool, at now: SimTime) {}

    public var observes: BudgetObservations { [] }
}
