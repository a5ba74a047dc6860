import WidgetSimKernel

/// `oracle`: the budget ceiling. With `per_day` charged reloads per instance-day (so
/// K = ⌊per_day × instances × days⌋ for a person), it grants the widget's own requests
/// at the instants that leave the fewest stale member views.
///
/// Rule (MODEL §4): a member's view is stale when a random change came after its last
/// reload. Cut each member's time at its random changes and its free reloads: in the
/// interval from change c to the next change or free reload, a charged reload saves the
/// views from the reload to the interval's end, and a second one saves nothing more. A
/// charged reload needs a request the widget made since its last reload: after a free
/// reload at f, the first one comes at q(f) (the timeline coming due, or a push), the
/// same under every budget, so no budget reloads in the interval before max(c, q(f)),
/// f the last free reload before c. The views from there to the interval's end, v(c),
/// bound what any budget saves in it; the K intervals of largest v (ties: earlier
/// first) bound every budget that charges at most K reloads. The ceiling holds each
/// request (deferred, as any budget may) until the next planned instant of its
/// instance and grants it there, or at the first request after it within the same
/// interval when a reload it granted moved that instance's requests later.
///
/// Staleness from predictable content (periodic or scheduled changes a timeline does
/// not reach) and taps (interaction reloads, which depend on the ranking) are outside
/// the plan: on members with predictable content the ceiling's own counts can exceed the
/// bound it plans.
///
/// With `knows: views` or `knows: rates` it is a bound of the budgets that cannot read
/// the future (MODEL §4, "What a phone can reach"): it reads the free reloads and
/// requests of the rehearsal, of the content the rates of the changes no push announces
/// and the instants of those a push announces, and of the views every one (`views`) or
/// only their rate (`rates`, bar the interactive members, whose taps come at views), and
/// when each member asks again after a reload; it plans the K reloads that leave the
/// fewest stale member views expected
/// (`PhoneBound`), keeps that expectation and its bound, and grants at the planned views
/// or stretches.
public final class OracleBudget: FutureReadingBudget {
    public static let perDay = ParameterSpec(
        "per_day", .number(0 ... 10_000), default: .number(5),
        "charged reloads per instance-day (fractional allowed): K = ⌊per_day × instances × days⌋ a person")
    public static let knows = ParameterSpec(
        "knows", .choice(["changes", "views", "rates"]), default: .text("changes"),
        "`changes`: every random change and view (the ceiling); `views`: every view, but of the changes only their "
            + "rates, pushes' share and the instants of the announced ones; `rates`: of the views only their rate "
            + "(bounds of budgets without the future)")

    public static let stretch = ParameterSpec(
        "stretch", .duration(minimumMs: Milliseconds.second), default: .duration(5 * Milliseconds.minute),
        "`knows: rates`: the stretches time is cut into; a shorter one gives a higher bound and costs more")

    /// What the budget knows of the person's future besides the free reloads and requests.
    public enum Knowledge: String, Sendable {
        /// Every random change and view: the ceiling.
        case changes
        /// Every view, the rates of the changes no push announces and the instants of those a push announces.
        case views
        /// The rates of views and of the changes no push announces, and the instants of those a push announces.
        case rates
    }

    public static let descriptor = BudgetPolicyDescriptor(
        name: "oracle",
        summary: "Knows every future view and content change: with per_day charged reloads per instance-day, grants each member's own requests at the random changes whose intervals hold the most views (reads the ground truth): the ceiling, not a real policy.",
        source: "a bound on the stale member views of every budget at that cost, reached where the plan allows (MODEL §4, the budget ceiling)",
        refusals: [.quotaExhausted, .notYetReleased],
        parameters: [perDay, knows, stretch],
        make: { p in
            OracleBudget(perDay: p.number(OracleBudget.perDay), knows: Knowledge(rawValue: p.text(OracleBudget.knows)) ?? .changes,
                         stretchMs: p.duration(OracleBudget.stretch))
        })

    public let perDay: Double
    public let knows: Knowledge
    /// The length of the stretches time is cut into under `knows: rates`.
    public let stretchMs: SimTime
    /// With `knows: views` or `rates`, for the person last planned: the bound on the expected stale
    /// member views of every budget without the future (announced changes given in advance),
    /// what its own plan expects (at least the bound), and what no charged reload leaves.
    public private(set) var expected: (bound: Double, plan: Double, withoutCharges: Double)?
    /// With `knows: views` or `rates`: the person's problem last planned, for its answers at other prices.
    public private(set) var phoneBound: PhoneBound?

    /// Per instance, the instants its plan for the person last planned grants at.
    public var plannedInstants: [[SimTime]] { planned.map { $0.map(\.time) } }
    public var rehearsing = false
    /// Per instance, the free reload times and the charged request times seen in the
    /// rehearsal, in time order.
    private var freeReloads: [[SimTime]] = []
    private var requests: [[SimTime]] = []
    /// Per instance, the planned reloads in time order (each the instant to grant at and
    /// the end of its interval), and the next one's index.
    private var planned: [[(time: SimTime, end: SimTime)]] = []
    private var cursor: [Int] = []
    /// The candidate intervals of the person: (views saved, reload time, interval end,
    /// instance).
    private var candidates: [(value: Int, time: SimTime, end: SimTime, instance: Int)] = []
    /// The number of reloads planned for the person, and the views they save: the bound.
    public private(set) var plannedReloads = 0
    public private(set) var plannedSavedViews = 0

    public init(perDay: Double, knows: Knowledge = .changes, stretchMs: SimTime = 5 * Milliseconds.minute) {
        precondition(perDay >= 0, "per_day must not be negative")
        precondition(stretchMs > 0, "stretch must be positive")
        self.perDay = perDay
        self.knows = knows
        self.stretchMs = stretchMs
    }

    public func begin(instances: Int) {
        if rehearsing {
            Self.clear(&freeReloads, count: instances)
            Self.clear(&requests, count: instances)
        }
        cursor.resetFlat(count: instances, to: 0)
    }

    /// Empties the first `count` lists of `lists` (adding empty ones), keeping their storage.
    private static func clear<T>(_ lists: inout [[T]], count: Int) {
        if lists.count < count { lists.append(contentsOf: Array(repeating: [], count: count - lists.count)) }
        for w in 0 ..< lists.count { lists[w].removeAll(keepingCapacity: true) }
    }

    /// In the rehearsal, notes the request and refuses it. Then: grants a request at or
    /// after the instance's next planned instant and before its interval ends; holds an
    /// earlier one until that instant; refuses the rest.
    public func decide(instance: Int, reason: ReloadReason, at now: SimTime) -> BudgetDecision {
        if rehearsing {
            if instance < requests.count { requests[instance].append(now) }
            return .deny(because: .quotaExhausted)
        }
        guard instance < planned.count else { return .deny(because: .quotaExhausted) }
        var k = cursor[instance]
        let plan = planned[instance]
        while k < plan.count && plan[k].end <= now { k += 1 }
        guard k < plan.count else {
            cursor[instance] = k
            return .deny(because: .quotaExhausted)
        }
        if plan[k].time <= now {
            cursor[instance] = k + 1
            return .grant
        }
        cursor[instance] = k
        return .deferUntil(plan[k].time, because: .notYetReleased)
    }

    public func didReload(instance: Int, charged: Bool, at now: SimTime) {
        if rehearsing && !charged && instance < freeReloads.count { freeReloads[instance].append(now) }
    }

    public var observes: BudgetObservations { .reloads }

    /// The budget of a person: ⌊per_day × instances × days⌋ charged reloads.
    public static func reloads(perDay: Double, instances: Int, days: Int) -> Int {
        Int((perDay * Double(instances * days) + 1e-9).rounded(.down))
    }

    public func plan(world: PersonWorld, scenario: Scenario) {
        let widgets = scenario.widgets.count
        Self.clear(&planned, count: widgets)
        if knows != .changes {
            planFromRates(world: world, scenario: scenario)
            return
        }
        candidates.removeAll(keepingCapacity: true)
        let end = scenario.durationMs
        let views = world.views
        // The index of the first view at or after t.
        func firstView(atOrAfter t: SimTime) -> Int { views.firstIndex(sortedBy: { $0.time >= t }) }
        // Each member's random changes, in time order (`randomChanges` is sorted by time).
        var changes = Array(repeating: [SimTime](), count: widgets)
        for c in world.randomChanges where c.time < end { changes[Int(c.widget)].append(c.time) }
        for w in scenario.stack.members {
            let added = scenario.widgets[w].addedAfterMs ?? 0
            let free = w < freeReloads.count ? freeReloads[w] : []
            let asks = w < requests.count ? requests[w] : []
            var f = 0, q = 0
            let list = changes[w]
            for (i, c) in list.enumerated() {
                // A free reload at the change's own instant is taken to show it.
                while f < free.count && free[f] < c { f += 1 }
                var stop = i + 1 < list.count ? list[i + 1] : end
                if f < free.count { stop = min(stop, free[f]) }
                // The first request since the last free reload before c: a reload of the
                // member before it has nothing to answer.
                let since = f > 0 ? free[f - 1] : SimTime.min
                while q < asks.count && asks[q] < since { q += 1 }
                guard q < asks.count else { break }
                let at = max(c, added, asks[q])
                guard stop > at else { continue }
                let value = firstView(atOrAfter: stop) - firstView(atOrAfter: at)
                if value > 0 { candidates.append((value, at, stop, w)) }
            }
        }
        candidates.sort { a, b in
            a.value != b.value ? a.value > b.value : a.time != b.time ? a.time < b.time : a.instance < b.instance
        }
        let k = min(candidates.count, Self.reloads(perDay: perDay, instances: widgets, days: scenario.days))
        plannedReloads = k
        plannedSavedViews = 0
        for j in 0 ..< k {
            planned[candidates[j].instance].append((candidates[j].time, candidates[j].end))
            plannedSavedViews += candidates[j].value
        }
        for w in 0 ..< widgets { planned[w].sort { $0.time < $1.time } }
    }
}

extension OracleBudget {
    /// `knows: views` or `rates`: the plan of `PhoneBound` with the person's K, read from
    /// the rehearsal's free reloads and requests, the content's rates (never its
    /// changes) and the views (`views`; under `rates` only for interactive members, whose
    /// taps at views are free reloads) or their rate. Each planned reload is granted at
    /// its view or the start of its stretch, to the first request from there before the
    /// member's next planned reload or free reload.
    func planFromRates(world: PersonWorld, scenario: Scenario) {
        let end = scenario.durationMs
        let levels = PhoneBound.Levels(hours: world.hours, scenario: scenario)
        let times = Array(world.views.lazy.map(\.time).filter { $0 < end })
        let members = scenario.stack.members.filter { scenario.widgets[$0].content.randomPerDay > 0 }
        let free: (Int) -> [SimTime] = { $0 < self.freeReloads.count ? self.freeReloads[$0] : [] }
        let asks: (Int) -> [SimTime] = { $0 < self.requests.count ? self.requests[$0] : [] }
        let added: (Int) -> SimTime = { scenario.widgets[$0].addedAfterMs ?? 0 }
        let seen = knows == .views ? members : members.filter { scenario.widgets[$0].interactive }
        let known = PhoneBound.announcedChanges(world: world, scenario: scenario)
        let announced: (Int) -> [SimTime] = { known[$0] }
        let next = PhoneBound.nextAsk(world: world, scenario: scenario)
        var segments = PhoneBound.segments(
            views: times, members: seen, free: free, requests: asks, added: added, end: end, level: levels.level,
            announced: announced, next: next)
        if knows == .rates {
            let rate = PhoneBound.ViewRate(world: world, scenario: scenario, levels: levels, hours: world.hours)
            segments += PhoneBound.cellSegments(
                members: members.filter { !scenario.widgets[$0].interactive }, free: free, requests: asks, added: added,
                end: end, step: stretchMs, levels: levels, views: rate, announced: announced, next: next)
        }
        let bound = PhoneBound(segments: segments)
        let k = Self.reloads(perDay: perDay, instances: scenario.widgets.count, days: scenario.days)
        let result = bound.lagrangian(k)
        phoneBound = bound
        expected = (result.bound, result.planStale, bound.withoutCharges)
        plannedReloads = result.planReloads
        plannedSavedViews = 0
        for (s, chosen) in result.plan.enumerated() {
            let seg = bound.segments[s]
            for (n, i) in chosen.enumerated() {
                let until = n + 1 < chosen.count ? seg.times[chosen[n + 1]] : seg.end
                planned[seg.member].append((seg.times[i], until))
            }
        }
        for w in planned.indices { planned[w].sort { $0.time < $1.time } }
    }
}
