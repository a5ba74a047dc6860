import WidgetSim

/// `idle_saver`: saves charged reloads while nobody looks, which is mostly at night.
///
/// Rule: a charged request of an instance is granted when the instance was on screen
/// within the last `viewed_within` (2 h by default), or when its last reload is at
/// least `max_staleness` old (6 h by default): nobody sees a reload made while the
/// person is away, but a widget is never left more than `max_staleness` behind. A
/// refused request is retried by the shared refusal rule, never before the staleness
/// limit, when it will be granted. For an instance nobody looks at, `max_staleness` is
/// the least time between two charged reloads, so a refusal carries the reason code
/// `min_spacing`.
///
/// Per call: O(1), no allocation; per person: O(instances).
final class IdleSaverBudget: BudgetPolicy {
    static let viewedWithin = ParameterSpec(
        "viewed_within", .duration(minimumMs: Milliseconds.minute), default: .duration(2 * Milliseconds.hour),
        "a request is granted if the instance was on screen this recently")
    static let maxStaleness = ParameterSpec(
        "max_staleness", .duration(minimumMs: 15 * Milliseconds.minute), default: .duration(6 * Milliseconds.hour),
        "a request is granted if the last reload is at least this old")

    static let descriptor = BudgetPolicyDescriptor(
        name: "idle_saver",
        summary: "Grants charged reloads only to instances seen within 2 h, or last reloaded 6 h ago or more.",
        source: "custom-policy example: reloads nobody sees are wasted",
        refusals: [.minSpacing],
        parameters: [viewedWithin, maxStaleness] + RefusalRule.parameters,
        make: { p in
            IdleSaverBudget(viewedWithinMs: p.duration(viewedWithin), maxStalenessMs: p.duration(maxStaleness),
                            refusal: RefusalRule(p))
        })

    let viewedWithinMs: Int64
    let maxStalenessMs: Int64
    let refusal: RefusalRule
    /// Per instance: the last view and the last reload, or `.min` for none yet.
    private var lastView: [SimTime] = []
    private var lastReload: [SimTime] = []

    init(viewedWithinMs: Int64, maxStalenessMs: Int64, refusal: RefusalRule) {
        self.viewedWithinMs = viewedWithinMs
        self.maxStalenessMs = maxStalenessMs
        self.refusal = refusal
    }

    func begin(instances: Int) {
        // Keeps the arrays' storage from person to person.
        lastView.removeAll(keepingCapacity: true)
        lastView.append(contentsOf: repeatElement(.min, count: instances))
        lastReload.removeAll(keepingCapacity: true)
        // A new person's widgets start with a fresh timeline, as if just reloaded.
        lastReload.append(contentsOf: repeatElement(0, count: instances))
    }

    func decide(instance: Int, reason: ReloadReason, at now: SimTime) -> BudgetDecision {
        let seen = lastView[instance] != .min && now - lastView[instance] <= viewedWithinMs
        let stale = now - lastReload[instance] >= maxStalenessMs
        if seen || stale { return .grant }
        return refusal.refuse(reason, at: now, earliest: lastReload[instance] + maxStalenessMs,
                              because: .minSpacing)
    }

    func didReload(instance: Int, charged: Bool, at now: SimTime) {
        lastReload[instance] = now
    }

    func didView(instance: Int, at now: SimTime) {
        lastView[instance] = now
    }
}
