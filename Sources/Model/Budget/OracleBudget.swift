import WidgetSimKernel

/// `oracle`: the budget ceiling. With `per_day` charged reloads per instance-day (so
/// K = ⌊per_day × instances × days⌋ for a person), it reloads the stack members at the
/// instants that leave the fewest stale member views.
///
/// Rule (MODEL §4): a member's view is stale when a random change came after its last
/// reload. Cut each member's time at its random changes: in the interval from change
/// c to the next change, a charged reload saves the views from the reload until the
/// first free reload in it (or the next change), and a second one saves nothing more.
/// So one reload at c itself saves the most, v(c) views, and the intervals do not
/// interact: the K intervals of largest v (ties: earlier first), over all the person's
/// members and days, are the exact optimum, and every budget that charges at most K
/// reloads leaves at least as many stale member views. The ceiling reloads at the
/// change itself, which a phone cannot ask for (it asks only when its timeline is due or
/// a push comes): it is a bound, reached by no real policy, and reads ground truth.
///
/// Staleness from predictable content (periodic or scheduled changes a timeline does
/// not reach) and taps (interaction reloads, which depend on the ranking) are outside
/// the plan: on members with predictable content the ceiling's own counts can exceed the
/// bound it plans.
public final class OracleBudget: FutureReadingBudget {
    public static let perDay = ParameterSpec(
        "per_day", .number(0 ... 10_000), default: .number(5),
        "charged reloads per instance-day (fractional allowed): K = ⌊per_day × instances × days⌋ a person")

    public static let descriptor = BudgetPolicyDescriptor(
        name: "oracle",
        summary: "Knows every future view and content change: with per_day charged reloads per instance-day, reloads each member at the random changes whose intervals hold the most views (reads the ground truth): the ceiling, not a real policy.",
        source: "the exact optimum of the stale member views at that cost (MODEL §4, the budget ceiling)",
        refusals: [.quotaExhausted],
        parameters: [perDay],
        make: { p in OracleBudget(perDay: p.number(OracleBudget.perDay)) })

    public let perDay: Double
    public var rehearsing = false
    /// Per instance, the free reload times seen in the rehearsal, in time order.
    private var freeReloads: [[SimTime]] = []
    /// Per instance, the planned reload times, in time order, and the next one's index.
    private var planned: [[SimTime]] = []
    private var cursor: [Int] = []
    /// The candidate intervals of the person: (views saved, change time, instance).
    private var candidates: [(value: Int, time: SimTime, instance: Int)] = []
    /// The number of reloads planned for the person, and the views they save.
    public private(set) var plannedReloads = 0
    public private(set) var plannedSavedViews = 0

    public init(perDay: Double) {
        precondition(perDay >= 0, "per_day must not be negative")
        self.perDay = perDay
    }

    public func begin(instances: Int) {
        if rehearsing {
            if freeReloads.count < instances { freeReloads.append(contentsOf: Array(repeating: [], count: instances - freeReloads.count)) }
            for w in 0 ..< freeReloads.count { freeReloads[w].removeAll(keepingCapacity: true) }
        }
        if cursor.count < instances { cursor.append(contentsOf: Array(repeating: 0, count: instances - cursor.count)) }
        for w in 0 ..< cursor.count { cursor[w] = 0 }
    }

    /// Grants a request exactly at the instance's next planned time; refuses the rest.
    public func decide(instance: Int, reason: ReloadReason, at now: SimTime) -> BudgetDecision {
        guard !rehearsing, instance < planned.count else { return .deny(because: .quotaExhausted) }
        let times = planned[instance]
        var k = cursor[instance]
        while k < times.count && times[k] < now { k += 1 }
        if k < times.count && times[k] == now {
            cursor[instance] = k + 1
            return .grant
        }
        cursor[instance] = k
        return .deny(because: .quotaExhausted)
    }

    public func didReload(instance: Int, charged: Bool, at now: SimTime) {
        if rehearsing && !charged && instance < freeReloads.count { freeReloads[instance].append(now) }
    }

    public var observes: BudgetObservations { .reloads }

    public func nextRequest(instance: Int, after t: SimTime) -> SimTime? {
        guard instance < planned.count else { return nil }
        let times = planned[instance]
        var lo = 0, hi = times.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if times[mid] <= t { lo = mid + 1 } else { hi = mid }
        }
        return lo < times.count ? times[lo] : nil
    }

    /// The budget of a person: ⌊per_day × instances × days⌋ charged reloads.
    public static func reloads(perDay: Double, instances: Int, days: Int) -> Int {
        Int((perDay * Double(instances * days) + 1e-9).rounded(.down))
    }

    public func plan(world: PersonWorld, scenario: Scenario) {
        let widgets = scenario.widgets.count
        if planned.count < widgets { planned.append(contentsOf: Array(repeating: [], count: widgets - planned.count)) }
        for w in 0 ..< planned.count { planned[w].removeAll(keepingCapacity: true) }
        candidates.removeAll(keepingCapacity: true)
        let end = scenario.durationMs
        let views = world.views
        // The number of views at or after t and before u.
        func firstView(atOrAfter t: SimTime) -> Int {
            var lo = 0, hi = views.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if views[mid].time < t { lo = mid + 1 } else { hi = mid }
            }
            return lo
        }
        // Each member's random changes, in time order (`randomChanges` is sorted by time).
        var changes = Array(repeating: [SimTime](), count: widgets)
        for c in world.randomChanges where c.time < end { changes[Int(c.widget)].append(c.time) }
        for w in scenario.stack.members {
            let added = scenario.widgets[w].addedAfterMs ?? 0
            let free = w < freeReloads.count ? freeReloads[w] : []
            var f = 0
            let list = changes[w]
            for (i, c) in list.enumerated() {
                // A free reload at the change's own instant is taken to show it.
                while f < free.count && free[f] < c { f += 1 }
                var stop = i + 1 < list.count ? list[i + 1] : end
                if f < free.count { stop = min(stop, free[f]) }
                let from = max(c, added)
                guard stop > from else { continue }
                let value = firstView(atOrAfter: stop) - firstView(atOrAfter: from)
                if value > 0 { candidates.append((value, from, w)) }
            }
        }
        candidates.sort { a, b in
            a.value != b.value ? a.value > b.value : a.time != b.time ? a.time < b.time : a.instance < b.instance
        }
        let k = min(candidates.count, Self.reloads(perDay: perDay, instances: widgets, days: scenario.days))
        plannedReloads = k
        plannedSavedViews = 0
        for j in 0 ..< k {
            planned[candidates[j].instance].append(candidates[j].time)
            plannedSavedViews += candidates[j].value
        }
        for w in 0 ..< widgets { planned[w].sort() }
    }
}
