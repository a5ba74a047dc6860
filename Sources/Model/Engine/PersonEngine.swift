import WidgetSimKernel
import WidgetSimSampling

/// Simulates one person's world under one budget policy and one ranking policy, and
/// counts what happened (MODEL §3, §5, §6). One engine per worker and policy pair:
/// it keeps its buffers from person to person and allocates nothing per event.
public final class PersonEngine {

    let scenario: Scenario
    let budget: any BudgetPolicy
    /// What `budget` asks to be told (`BudgetPolicy.observes`), read once.
    let budgetObserves: BudgetObservations
    /// The budget, when it reads the future (`FutureReadingBudget`): each person is then
    /// run twice, a rehearsal and the counted run (see `run`).
    let planner: (any FutureReadingBudget)?
    let ranking: any RankingPolicy
    /// What `ranking` asks to be told (`RankingPolicy.observes`), read once.
    let rankingObserves: RankingObservations
    /// The built-in policies the engine reaches directly, when the pair runs them.
    @exclusivity(unchecked) var builtIn: BuiltInPolicies
    let rankingStream: RandomStream
    /// The system's rules between the policies and the phone (MODEL §3, §5).
    let governor: RotationGovernor
    let governorStream: RandomStream
    let pushThrottle: PushThrottle
    public let history = StackHistory()
    public weak var trace: (any TraceSink)?
    /// The policy pair named in trace lines, when several pairs share one trace.
    @exclusivity(unchecked) public var tracePair: PolicyPair?
    /// `trace`, held strongly for the length of one run: every event checks it, and a
    /// weak reference costs a runtime call per read.
    @exclusivity(unchecked) var activeTrace: (any TraceSink)?
    /// Whether a reload is told to anyone, for the length of one run: the budget, when it
    /// observes reloads or renders, or the trace (`hear`). One test at each reload.
    @exclusivity(unchecked) var reloadsHeard = false
    /// Whether the timeline the reload being made replaces had run out of predictable
    /// content (set by `renewTimelines` for a budget that observes renders, read and
    /// cleared by `tellBudget`).
    @exclusivity(unchecked) var replacedRanOut = false

    // Static facts about the scenario.
    let widgetCount: Int
    let members: [Int]
    /// `members.count`, read at each view without the array.
    let memberCount: Int
    /// `members` read in place at each view: the member on top, the wanted one (members
    /// the governor and the ranking's order numbered, below `members.count`).
    let memberInstances: UnsafeMutablePointer<Int>
    /// Stack member index of each widget, or −1.
    let memberOf: [Int]
    let standalone: [Int]
    /// The app of each instance, read in place.
    let appOf: UnsafeMutablePointer<Int>
    let appCount: Int
    /// Every instance of the widget's kind (including itself), for `reloadTimelines(ofKind:)`.
    let sameKind: WidgetLists
    let sameApp: WidgetLists
    /// What a reload of each instance reads (`InstanceFacts`), one struct per instance.
    let facts: UnsafeMutablePointer<InstanceFacts>
    let interactive: [Bool]
    /// Whether any stack member's timelines carry relevance; when none does, the
    /// members' current relevance is always nil and is never looked up at a view.
    let anyMemberRelevance: Bool
    let smartRotate: Bool
    let pushWhileForegroundIsFree: Bool
    /// When each instance is added (0: there from the start); whether any is added later.
    let addedAt: [SimTime]
    let anyAdded: Bool
    /// Widget Suggestions, when the stack has them on.
    let suggestions: WidgetSuggestions?
    let suggestable: [Int]

    // Per-run state.
    @exclusivity(unchecked) var world: PersonWorld!
    let counts: RunningCounts
    /// Refusals and missed views by instance, over every person run since the last
    /// `takeReasonsByWidget` (not cleared per person: see `ReasonTally`).
    @exclusivity(unchecked) var reasons: ReasonTally
    @exclusivity(unchecked) var rehearsalReasons: ReasonTally?
    /// Events are counted in `eventsOfDay` while the day is `eventDay`, and moved into
    /// `counts` when it changes and at the end: cheaper than a counter array per event.
    @exclusivity(unchecked) var eventDay = 0
    @exclusivity(unchecked) var eventsOfDay: Int64 = 0
    /// The first ms after `eventDay`: the day of an event before it is `eventDay`, found
    /// without a division (events come in time order).
    @exclusivity(unchecked) var nextDayStart: SimTime = Milliseconds.day
    /// The counters of `eventDay` (`counts.day(eventDay)`), through which the events of
    /// the day are counted: two addresses, not the day's index worked into each.
    @exclusivity(unchecked) var today: DayCounts
    /// The missed views of `eventDay` in `reasons` (`reasons.day(eventDay)`), set with
    /// `today` (at the start of each run, whose `reasons` `rehearse` may have swapped).
    @exclusivity(unchecked) var todayMissed: DayMissedViews
    /// Apps in the foreground: sessions running per app.
    let foreground: FlatBuffer<Int>
    /// Each instance's pending (refused and deferred) request: one per instance.
    let pending: UnsafeMutablePointer<PendingRequest>
    /// Running audio or navigation sessions per app.
    let audio: FlatBuffer<Int>
    /// Each instance's state, one struct per instance.
    let instances: UnsafeMutablePointer<InstanceState>
    /// The buffers that hold `memberInstances`, `facts`, `pending`, `instances` and `appOf`,
    /// reached through their addresses (`FlatBuffer.address`: one load fewer at each
    /// access than through the buffer, and the engine touches them at every event).
    let buffers: [AnyObject]
    /// The relevance of every widget's current timeline, and its history entries.
    let relevance: RelevanceTimelines
    /// Whether each instance's content is stale, and its stale views.
    let staleness: Staleness
    /// The order handed to a ranking policy's `rank`.
    @exclusivity(unchecked) var order: [Int] = []
    /// The order proposed at a view (the ranking's, absent members last), `members.count`
    /// values, when `propose` made it.
    let proposed: UnsafeMutablePointer<Int>
    /// Whether the ranking's order is read in place (`rankedInPlace`) and no member is
    /// added during the run (added members are put last in the ranking's order, through
    /// `propose`).
    let rankInPlace: Bool
    @exclusivity(unchecked) var interestBase: UnsafePointer<Double>? = nil
    /// The run's `world.interestByHour`.
    @exclusivity(unchecked) var interestByHour = false
    /// Whether every view is plain: a stack with Smart Rotate on, ranked in place
    /// (`rankInPlace`, so no member is added during the run), no member whose timelines
    /// show predictable content (all are `spanned`), no instance whose timelines carry
    /// relevance, no standalone widget, no Widget Suggestions, a budget that does not
    /// observe views and a ranking that does not observe them either. `view`
    /// is then made with all of this known, without testing it at every view, and the
    /// run loop with no test of the trace (a traced run takes the general `view`,
    /// `run`) and no count of the content changes' positions (read only for relevance).
    /// Set by `init`; turning it off takes the general `view` (which tests compare with
    /// it).
    @exclusivity(unchecked) var plainViews: Bool
    /// Whether a run with plain views records its sides at each view for the pairs
    /// joined from them (see `PersonEngine+SharedSides.swift`), and the record: at each
    /// view of the world last run, by the view's index in `world.views`, the first
    /// random change each member does not show, then the member on top.
    public var recordsViews = false
    @exclusivity(unchecked) var viewRecord: UnsafeMutablePointer<SimTime>
    @exclusivity(unchecked) var viewRecordCapacity = 0
    /// The person and replication the record holds, once a run has recorded it.
    @exclusivity(unchecked) var recordedPerson: (person: Int, replication: Int)? = nil

    public init(scenario: Scenario, budget: any BudgetPolicy, ranking: any RankingPolicy) {
        self.scenario = scenario
        self.budget = budget
        budgetObserves = budget.observes
        planner = budget as? any FutureReadingBudget
        self.ranking = ranking
        rankingObserves = ranking.observes
        builtIn = BuiltInPolicies(budget: budget, ranking: ranking)
        rankingStream = RandomStream(kind: scenario.generator, seed: 1)
        governor = RotationGovernor(limits: scenario.stack.rotationLimits)
        governorStream = RandomStream(kind: scenario.generator, seed: 1)
        pushThrottle = PushThrottle(perHour: scenario.person.backgroundPushesPerHour)
        let widgets = scenario.widgets
        // Events name instances by 32-bit numbers (`PersonEvent`).
        precondition(widgets.count <= Int(Int32.max), "too many widget instances")
        widgetCount = widgets.count
        members = scenario.stack.members
        memberCount = members.count
        let memberInstances = FlatBuffer(members)
        self.memberInstances = memberInstances.address
        var memberOf = Array(repeating: -1, count: widgets.count)
        for (k, w) in members.enumerated() { memberOf[w] = k }
        self.memberOf = memberOf
        let placedNowhere = Set(scenario.stack.suggestable)
        standalone = widgets.indices.filter { memberOf[$0] < 0 && !placedNowhere.contains($0) }
        var apps: [String: Int] = [:]
        let appOf = FlatBuffer(widgets.map { w in
            if let a = apps[w.app] { return a }
            apps[w.app] = apps.count
            return apps.count - 1
        })
        self.appOf = appOf.address
        appCount = apps.count
        sameKind = WidgetLists(widgets.map { w in widgets.indices.filter { widgets[$0].kind == w.kind } })
        sameApp = WidgetLists(widgets.map { w in widgets.indices.filter { widgets[$0].app == w.app } })
        interactive = widgets.map(\.interactive)
        relevance = RelevanceTimelines(scenario: scenario, memberOf: memberOf)
        anyMemberRelevance = members.contains { widgets[$0].relevance != RelevanceSpec.none }
        smartRotate = scenario.stack.smartRotate
        pushWhileForegroundIsFree = scenario.person.pushWhileForegroundIsFree
        addedAt = widgets.map { $0.addedAfterMs ?? 0 }
        anyAdded = addedAt.contains { $0 > 0 }
        suggestions = scenario.stack.widgetSuggestions && !scenario.stack.suggestable.isEmpty
            ? WidgetSuggestions(candidates: scenario.stack.suggestable, widgets: widgets.count) : nil
        audio = FlatBuffer(count: apps.count, repeating: 0)
        suggestable = scenario.stack.suggestable
        let counts = RunningCounts(days: scenario.days, widgets: widgets.count)
        self.counts = counts
        today = counts.day(0)
        reasons = ReasonTally(days: scenario.days, widgets: widgets.count)
        todayMissed = reasons.day(0)
        queue = SlotQueue(slots: 2 * widgets.count + 1)
        standByRefreshMs = scenario.person.standBy?.refreshIntervalMs ?? Milliseconds.day
        foreground = FlatBuffer(count: apps.count, repeating: 0)
        let pending = FlatBuffer(count: widgets.count, repeating: PendingRequest())
        let instances = FlatBuffer(count: widgets.count, repeating: InstanceState())
        self.pending = pending.address
        self.instances = instances.address
        order = Array(0 ..< members.count)
        proposed = .allocate(capacity: max(members.count, 1))
        let added = anyAdded
        let facts = widgets.indices.map { w in
            let widget = widgets[w]
            let predictable = (widget.content.periodicMs ?? 0) > 0 || widget.content.scheduledPerDay > 0
            return InstanceFacts(
                horizon: widget.timeline.horizonMs, entrySpacing: widget.timeline.entrySpacingMs,
                periodic: widget.content.periodicMs ?? 0, cost: widget.reloadCostMilli,
                reloadPolicy: widget.timeline.reload, hasRelevance: widget.relevance != RelevanceSpec.none,
                hasPredictable: predictable, spanned: memberOf[w] >= 0 && !predictable && !added)
        }
        let factBuffer = FlatBuffer(facts)
        self.facts = factBuffer.address
        buffers = [memberInstances, factBuffer, pending, instances, appOf]
        rankInPlace = builtIn.ranksInPlace && !anyAdded
        staleness = Staleness(
            days: scenario.days, counts: counts, instances: instances, facts: factBuffer, members: members)
        plainViews = smartRotate && rankInPlace && !widgets.contains { $0.relevance != RelevanceSpec.none } && !members.isEmpty
            && members.allSatisfy { facts[$0].spanned } && standalone.isEmpty && suggestions == nil
            && !budgetObserves.contains(.views) && !rankingObserves.contains(.views)
        viewRecord = .allocate(capacity: 1)
        assert(MemoryLayout<ViewRecord>.offset(of: \.wouldTap) == MemoryLayout<ViewRecord>.offset(of: \.wouldSwipe).map { $0 + 1 }
               && MemoryLayout<Bool>.size == 1, "a view's swipe and tap flags are not one word (`wouldInteract`)")
        assert(MemoryLayout<ViewRecord>.offset(of: \.weekday) == MemoryLayout<ViewRecord>.offset(of: \.hour).map { $0 + 1 },
               "a view's hour and weekday are not one word (`hourAndWeekday`)")
        assert(zip(WorldProcess.allCases, WorldProcess.allCases.dropFirst()).allSatisfy { $0.rank <= $1.rank },
               "the merge of world items needs the processes numbered in rank order")
        assert(WorldProcess.allCases.allSatisfy { ($0 == .view ? $0.rank > Self.queuedRank : $0.rank < Self.queuedRank) },
               "a world item of the queued events' rank, or a view before them")
    }

    deinit {
        proposed.deallocate()
        viewRecord.deallocate()
    }

    /// The requests the policies schedule (`PersonEvent`), in two slots per instance:
    /// each instance's timeline request (its next due time, or its pending request when
    /// that holds a timeline request), then its pending request when that holds only a
    /// background request; and a last slot for the next StandBy display refresh.
    let queue: SlotQueue<PersonEvent>
    /// The system's StandBy display refresh interval.
    let standByRefreshMs: Int64
    /// The time of the event being handled.
    @exclusivity(unchecked) var now: SimTime = 0

    /// The rank of every event the engine queues: after each world item of its time but
    /// a view (asserted by `init`), so that a world item other than a view comes before
    /// every queued event of its time, whatever its own rank.
    @inline(__always) static var queuedRank: UInt8 { 6 }

    @inline(__always) func timelineSlot(_ w: Int) -> Int { w }
    @inline(__always) func backgroundSlot(_ w: Int) -> Int { widgetCount &+ w }
    @inline(__always) var standBySlot: Int { 2 &* widgetCount }

    /// Runs `world` under this engine's policies; the counts are in `counts` afterwards.
    ///
    /// Under a budget that reads the future (`planner`), the person is first rehearsed
    /// and the budget plans (`rehearse`); then the counted run follows.
    public func run(_ world: PersonWorld) -> PersonCounts {
        if planner != nil { rehearse(world) }
        guard plainViews && trace == nil else { return simulate(world, views: AnyView.self) }
        if recordsViews {
            beginViewRecord(world)
            return simulate(world, views: RecordedView.self)
        }
        return simulate(world, views: PlainView.self)
    }

    /// The refusals and missed views by instance of every person run since the last
    /// call (or `resetReasonsByWidget`), in `PairTotals`' layout; the tally starts again.
    public func takeReasonsByWidget() -> (refusals: [Int64], missedViews: [Int64]) { reasons.take() }

    /// Starts the tally of refusals and missed views by instance again.
    public func resetReasonsByWidget() { reasons.reset() }

    /// The rehearsal of `world` under the `planner` (the budget refuses every charged
    /// request and notes the free reloads; nothing is traced or kept), and its plan.
    @inline(never)
    func rehearse(_ world: PersonWorld) {
        let planner = planner.unsafelyUnwrapped
        let traced = trace
        trace = nil
        // The rehearsal's refusals and misses are no one's: counted aside, then dropped.
        let kept = reasons
        reasons = rehearsalReasons ?? ReasonTally(days: kept.days, widgets: kept.widgets)
        rehearsalReasons = reasons
        planner.rehearsing = true
        _ = plainViews ? simulate(world, views: PlainView.self) : simulate(world, views: AnyView.self)
        planner.rehearsing = false
        reasons.reset()
        reasons = kept
        trace = traced
        planner.plan(world: world, scenario: scenario)
    }

    /// One run of `world` (see `run`). Its views are of the kind `Kind`: plain (recorded
    /// for joined pairs, or not) when `plainViews` is on and nothing is traced, `AnyView`
    /// otherwise; made once per kind, so that no view tests which.
    func simulate<Kind: ViewKind>(_ world: PersonWorld, views: Kind.Type) -> PersonCounts {
        assert(Kind.plain == (plainViews && trace == nil), "views of a kind the engine's settings do not make")
        assert(!Kind.plain || !anyAdded, "a plain run with instances added during it")
        self.world = world
        activeTrace = trace
        reloadsHeard = trace != nil || !budgetObserves.isDisjoint(with: [.reloads, .renders])
        counts.reset()
        foreground.reset(count: appCount, to: 0)
        audio.reset(count: appCount, to: 0)
        suggestions?.reset()
        for w in 0 ..< widgetCount {
            instances[w] = InstanceState()
            pending[w] = PendingRequest()
        }
        pushThrottle.reset(apps: appCount)
        relevance.begin(world, seed: scenario.seed)
        staleness.begin(scheduled: world.scheduled)
        eventDay = 0
        eventsOfDay = 0
        nextDayStart = Milliseconds.day
        today = counts.day(0)
        todayMissed = reasons.day(0)
        history.reset(members: members.count)
        budget.begin(instances: widgetCount)
        rankingStream.reseed(StreamKey(
            seed: scenario.seed, replication: world.replication, person: world.person,
            process: StreamProcess.ranking))
        ranking.begin(members: members.count, stream: rankingStream)
        governorStream.reseed(StreamKey(
            seed: scenario.seed, replication: world.replication, person: world.person,
            process: StreamProcess.rotation))
        governor.begin(members: members.count, stream: governorStream)

        queue.removeAll()
        now = 0
        let end = scenario.durationMs
        interestByHour = world.interestByHour
        let order = world.order
        order.withKeys { keys in
            // Each process's items met so far: the position in its list of the next.
            withUnsafeTemporaryAllocation(of: Int.self, capacity: 16) { seenBuffer in
                seenBuffer.initialize(repeating: 0)
                let seen = seenBuffer.baseAddress.unsafelyUnwrapped
                world.viewInterest.withUnsafeBufferPointer { buffer in
                    interestBase = buffer.baseAddress
                    world.withItems { items in
                        // The world's items are known in advance and already merged in time
                        // order (`WorldOrder`), so they are read in turn rather than put in
                        // the queue: the queue holds only the timeline requests and retries
                        // the policies schedule, delivered before each item they precede.
                        // The views are read from their own list beside the others: a view
                        // comes after every other item of its time.
                        let viewCount = order.viewCount
                        assert(viewCount <= items.views.count, "more views in the order than in the world")
                        // The next view's record, walked by address (a plain view does not
                        // read its index, so the loop keeps no count of its own).
                        // An empty list may have no address: its end is then its start, and
                        // no record is read (an aligned address that is never dereferenced).
                        let firstView = items.views.baseAddress
                            ?? UnsafePointer(bitPattern: MemoryLayout<ViewRecord>.alignment).unsafelyUnwrapped
                        let viewsEnd = firstView + viewCount
                        var record = firstView
                        var nextView = viewCount > 0 ? record.pointee.time : SimTime.max
                        @inline(__always) func views(before t: SimTime) {
                            while nextView < t {
                                let viewTime = nextView
                                handleQueued(before: viewTime, rank: WorldProcess.view.rank, kind: Kind.self)
                                now = viewTime
                                let day = countEvent(at: viewTime)
                                // The record read in place, not copied for the call.
                                view(record, index: record - firstView, at: viewTime, day: day, kind: Kind.self)
                                record += 1
                                nextView = record < viewsEnd ? record.pointee.time : SimTime.max
                                assert(nextView >= viewTime, "views out of time order")
                            }
                        }
                        for k in 0 ..< keys.count {
                            // The key read once: read again after the views before it, it
                            // would be loaded through the keys' address and `k`, both spilled.
                            let key = keys[k]
                            let t = WorldOrder.time(key)
                            views(before: t)
                            let p = WorldOrder.process(key)
                            // Queued events of its time come after it (`queuedRank`): only
                            // the earlier ones are handled first, whatever its rank.
                            handleQueued(before: t, rank: Self.queuedRank, kind: Kind.self)
                            now = t
                            let day = countEvent(at: t)
                            handleWorld(p, seen: seen, key: key, at: t, day: day, items: items, kind: Kind.self)
                        }
                        views(before: SimTime.max)
                    }
                    handleQueued(before: end, rank: 0, kind: Kind.self)
                    interestBase = nil
                }
            }
        }
        counts[eventDay, .events] += eventsOfDay
        relevance.finish(at: end, history: history)
        if !anyAdded { fillMemberViews() }
        staleness.finish(lastDay: scenario.days - 1)
        for w in 0 ..< widgetCount where instances[w].exhaustedSince != .max {
            addExhausted(w, from: instances[w].exhaustedSince, to: end)
        }
        self.world = nil
        activeTrace = nil
        reloadsHeard = false
        fillEnergy()
        return counts.counts()
    }

    /// Counts an event at `t` (not before the previous one) and returns its day.
    @inline(__always)
    func countEvent(at t: SimTime) -> Int {
        if t >= nextDayStart { startDay(at: t) }
        eventsOfDay &+= 1
        return eventDay
    }

    /// The first event of a later day, at `t`: the events of the day before are counted.
    @inline(never)
    func startDay(at t: SimTime) {
        counts[eventDay, .events] += eventsOfDay
        eventDay = Int(t / Milliseconds.day)
        nextDayStart = SimTime(eventDay + 1) * Milliseconds.day
        eventsOfDay = 0
        today = counts.day(eventDay)
        todayMissed = reasons.day(eventDay)
        staleness.startDay(eventDay)
    }

    /// Handles the queued events that come before a world item at `t` of `rank`, in
    /// order (each may schedule more), in a run whose views are of the kind `Kind`.
    @inline(__always)
    func handleQueued<Kind: ViewKind>(before t: SimTime, rank: UInt8, kind: Kind.Type) {
        while queue.hasEvent(before: t, rank: rank) {
            let (due, event) = queue.removeFirst()
            precondition(due >= now, "an event was scheduled in the past")
            now = due
            handle(event, at: due, kind: Kind.self)
        }
    }

    /// A timeline request or a retry, from the queue, in a run whose views are of the
    /// kind `Kind` (a plain run adds no instance: its requests do not test it). Kept
    /// out of `simulate`'s loop: inlined there, it costs the reference workload about 3
    /// instructions per event.
    @inline(never)
    func handle<Kind: ViewKind>(_ event: PersonEvent, at t: SimTime, kind: Kind.Type) {
        let day = countEvent(at: t)
        switch event {
        case .timelineDue(let w):
            // The pending request (when this is it) is asked once, with its strongest
            // reason; deferred again, it still holds every request it held.
            let held = pending[Int(w)]
            if held.timeline { pending[Int(w)] = PendingRequest() }
            request(Int(w), .timeline, at: t, day: day, reloadInLine: true, noneAdded: Kind.plain)
            if held.background && !pending[Int(w)].isEmpty { pending[Int(w)].background = true }
        case .backgroundRetry(let w):
            pending[Int(w)] = PendingRequest()
            request(Int(w), .background, at: t, day: day, noneAdded: Kind.plain)
        case .standByRefresh:
            standByRefresh(at: t, day: day)
        }
    }
}
