import WidgetSimKernel

/// `daily_quota`: at most `per_day` charged reloads per instance in any rolling 24 h.
///
/// Rule: a charged request at `now` is granted iff fewer than N granted charged reloads
/// of that instance fall in (now − 24 h, now]. The window is exact: each instance keeps
/// the times of its last N grants in a ring buffer (flat, instances × N), and the
/// request is granted when it has had fewer than N grants or the oldest of the last N
/// is at least 24 h old. A refused request is handled by `RefusalRule` with no earliest
/// time: it is retried exactly after the rule's delay.
///
/// Source: Apple, "Keeping a widget up to date": a frequently viewed widget gets 40 to
/// 70 refreshes a day, roughly every 15 to 60 minutes. The default, 48, is one every
/// 30 minutes on average.
public final class DailyQuotaBudget: BudgetPolicy {
    public static let perDay = ParameterSpec(
        "per_day", .count(1 ... 10_000), default: .number(48),
        "charged reloads allowed per instance in any rolling 24 h")

    public static let descriptor = BudgetPolicyDescriptor(
        name: "daily_quota",
        summary: "At most N (48 by default) charged reloads per instance in any rolling 24 h.",
        source: "Apple, \"Keeping a widget up to date\": 40 to 70 refreshes a day, every 15 to 60 minutes",
        refusals: [.quotaExhausted],
        parameters: [perDay] + RefusalRule.parameters,
        make: { p in DailyQuotaBudget(perDay: p.count(DailyQuotaBudget.perDay), refusal: RefusalRule(p)) })

    public let perDay: Int
    public let refusal: RefusalRule
    private let grants = GrantTimes()

    public init(perDay: Int, refusal: RefusalRule) {
        precondition(perDay >= 1, "per_day must be at least 1")
        self.perDay = perDay
        self.refusal = refusal
    }

    public func begin(instances: Int) {
        grants.reset(instances: instances, depth: perDay)
    }

    @inline(__always)
    public func decide(instance: Int, reason: ReloadReason, at now: SimTime) -> BudgetDecision {
        if grants.admit(instance, window: Milliseconds.day, at: now) != nil {
            return refusal.refuse(reason, at: now, because: .quotaExhausted)
        }
        return .grant
    }

    /// Grants are recorded by `decide`; reloads change nothing.
    public func didReload(instance: Int, charged: Bool, at now: SimTime) {}

    public var observes: BudgetObservations { [] }
}
