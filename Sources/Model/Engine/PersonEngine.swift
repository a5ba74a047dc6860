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
    /// The budget, when it is the built-in `daily_quota`: asked directly (`decide`), so
    /// its decision is made in line at the request rather than through the protocol.
    /// `budget` holds it, so it is kept unmanaged.
    let dailyQuota: Unmanaged<DailyQuotaBudget>?
    /// The budget, when it reads the future (`FutureReadingBudget`): each person is then
    /// run twice, a rehearsal and the counted run (see `run`).
    let planner: (any FutureReadingBudget)?
    let ranking: any RankingPolicy
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

    // Static facts about the scenario.
    let widgetCount: Int
    let members: [Int]
    /// Stack member index of each widget, or −1.
    let memberOf: [Int]
    let standalone: [Int]
    let appOf: [Int]
    let appCount: Int
    /// Every instance of the widget's kind (including itself), for `reloadTimelines(ofKind:)`.
    let sameKind: WidgetLists
    let sameApp: WidgetLists
    /// What a reload of each instance reads (`InstanceFacts`), one struct per instance.
    let facts: FlatBuffer<InstanceFacts>
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
    /// Apps in the foreground: sessions running per app.
    let foreground: FlatBuffer<Int>
    /// Each instance's pending (refused and deferred) request: one per instance.
    let pending: FlatBuffer<PendingRequest>
    /// Running audio or navigation sessions per app.
    let audio: FlatBuffer<Int>
    /// Each instance's state, one struct per instance.
    let instances: FlatBuffer<InstanceState>
    /// The relevance of every widget's current timeline, and its history entries.
    let relevance: RelevanceTimelines
    /// The other stack members, checked at every view (when none is added during the run).
    let checkedMembers: [Int]
    let staleSpans: StaleSpans
    @exclusivity(unchecked) var lastTop: Int? = nil
    /// The order handed to a ranking policy's `rank`.
    @exclusivity(unchecked) var order: [Int] = []
    /// The order proposed at a view (the ranking's, absent members last), `members.count`
    /// values, when `propose` made it.
    let proposed: UnsafeMutablePointer<Int>
    /// The ranking, when it is the built-in `time_of_day`: the engine reads its order
    /// in place (`ranked`) rather than through `rank`'s array. `ranking` holds it, so it
    /// is kept unmanaged: not retained again at each view.
    let timeOfDay: Unmanaged<TimeOfDayRanking>?
    /// Whether `timeOfDay` is set and no member is added during the run (added members
    /// are put last in the ranking's order, through `propose`).
    let rankInPlace: Bool
    /// `timeOfDay`'s latest order, and what it was asked for: its `generation`, the
    /// history's `countsVersion`, the hour and the weekday. While they are the same, so
    /// is its answer, read here without calling it (`generation` −1: none yet).
    @exclusivity(unchecked) var inPlaceOrder: UnsafePointer<Int>? = nil
    @exclusivity(unchecked) var inPlaceGeneration = -1
    @exclusivity(unchecked) var inPlaceVersion = 0
    @exclusivity(unchecked) var inPlaceHour = 0
    @exclusivity(unchecked) var inPlaceWeekday = 0
    @exclusivity(unchecked) var interestBase: UnsafePointer<Double>? = nil
    /// The run's `world.interestByHour`.
    @exclusivity(unchecked) var interestByHour = false
    /// Whether every view is plain: a stack with Smart Rotate on, ranked in place
    /// (`rankInPlace`, so no member is added during the run), no member whose timelines
    /// carry relevance or show predictable content (all are `spanned`), no standalone
    /// widget, no Widget Suggestions, and a budget that does not observe views. `view`
    /// is then made with all of this known, without testing it at every view. Set by
    /// `init`; turning it off takes the general `view` (which tests compare with it).
    @exclusivity(unchecked) var plainViews: Bool

    public init(scenario: Scenario, budget: any BudgetPolicy, ranking: any RankingPolicy) {
        self.scenario = scenario
        self.budget = budget
        budgetObserves = budget.observes
        dailyQuota = (budget as? DailyQuotaBudget).map { Unmanaged.passUnretained($0) }
        planner = budget as? any FutureReadingBudget
        self.ranking = ranking
        rankingStream = RandomStream(kind: scenario.generator, seed: 1)
        governor = RotationGovernor(limits: scenario.stack.rotationLimits)
        governorStream = RandomStream(kind: scenario.generator, seed: 1)
        pushThrottle = PushThrottle(perHour: scenario.person.backgroundPushesPerHour)
        let widgets = scenario.widgets
        // Events name instances by 32-bit numbers (`PersonEvent`).
        precondition(widgets.count <= Int(Int32.max), "too many widget instances")
        widgetCount = widgets.count
        members = scenario.stack.members
        var memberOf = Array(repeating: -1, count: widgets.count)
        for (k, w) in members.enumerated() { memberOf[w] = k }
        self.memberOf = memberOf
        let placedNowhere = Set(scenario.stack.suggestable)
        standalone = widgets.indices.filter { memberOf[$0] < 0 && !placedNowhere.contains($0) }
        var apps: [String: Int] = [:]
        appOf = widgets.map { w in
            if let a = apps[w.app] { return a }
            apps[w.app] = apps.count
            return apps.count - 1
        }
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
        counts = RunningCounts(days: scenario.days, widgets: widgets.count)
        reasons = ReasonTally(days: scenario.days, widgets: widgets.count)
        queue = SlotQueue(slots: 2 * widgets.count + 1 + (planner != nil ? widgets.count : 0))
        standByRefreshMs = scenario.person.standBy?.refreshIntervalMs ?? Milliseconds.day
        foreground = FlatBuffer(count: apps.count, repeating: 0)
        pending = FlatBuffer(count: widgets.count, repeating: PendingRequest())
        instances = FlatBuffer(count: widgets.count, repeating: InstanceState())
        order = Array(0 ..< members.count)
        proposed = .allocate(capacity: max(members.count, 1))
        timeOfDay = (ranking as? TimeOfDayRanking).map { Unmanaged.passUnretained($0) }
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
        self.facts = FlatBuffer(facts)
        rankInPlace = timeOfDay != nil && !anyAdded
        checkedMembers = scenario.stack.members.filter { !facts[$0].spanned }
        staleSpans = StaleSpans(days: scenario.days, widgets: widgets.count)
        plainViews = smartRotate && rankInPlace && !anyMemberRelevance && !members.isEmpty
            && members.allSatisfy { facts[$0].spanned } && standalone.isEmpty && suggestions == nil
            && !budgetObserves.contains(.views)
        assert(zip(WorldProcess.allCases, WorldProcess.allCases.dropFirst()).allSatisfy { $0.rank <= $1.rank },
               "the merge of world items needs the processes numbered in rank order")
    }

    deinit { proposed.deallocate() }

    /// The requests the policies schedule (`PersonEvent`), in two slots per instance:
    /// each instance's timeline request (its next due time, or its pending request when
    /// that holds a timeline request), then its pending request when that holds only a
    /// background request; and a last slot for the next StandBy display refresh.
    let queue: SlotQueue<PersonEvent>
    /// The system's StandBy display refresh interval.
    let standByRefreshMs: Int64
    /// The time of the event being handled.
    @exclusivity(unchecked) var now: SimTime = 0

    @inline(__always) func timelineSlot(_ w: Int) -> Int { w }
    @inline(__always) func backgroundSlot(_ w: Int) -> Int { widgetCount &+ w }
    @inline(__always) var standBySlot: Int { 2 &* widgetCount }
    /// The slot of `w`'s next planned request (only under a `planner`).
    @inline(__always) func plannedSlot(_ w: Int) -> Int { 2 &* widgetCount &+ 1 &+ w }

    /// Runs `world` under this engine's policies; the counts are in `counts` afterwards.
    ///
    /// Under a budget that reads the future (`planner`), the person is first rehearsed
    /// and the budget plans (`rehearse`); then the counted run follows.
    public func run(_ world: PersonWorld) -> PersonCounts {
        if planner != nil { rehearse(world) }
        return simulate(world)
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
        _ = simulate(world)
        planner.rehearsing = false
        reasons.reset()
        reasons = kept
        trace = traced
        planner.plan(world: world, scenario: scenario)
    }

    /// One run of `world` (see `run`).
    func simulate(_ world: PersonWorld) -> PersonCounts {
        self.world = world
        activeTrace = trace
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
        staleSpans.reset()
        lastTop = nil
        eventDay = 0
        eventsOfDay = 0
        nextDayStart = Milliseconds.day
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
        if planner != nil { schedulePlanned() }
        now = 0
        let end = scenario.durationMs
        interestByHour = world.interestByHour
        let order = world.order
        order.keys.withUnsafeBufferPointer { keys in
            order.positions.withUnsafeBufferPointer { positions in
                world.viewInterest.withUnsafeBufferPointer { buffer in
                    interestBase = buffer.baseAddress
                    // The world's items are known in advance and already merged in time
                    // order (`WorldOrder`), so they are read in turn rather than put in
                    // the queue: the queue holds only the timeline requests and retries
                    // the policies schedule, delivered before each item they precede.
                    for k in 0 ..< keys.count {
                        let t = WorldOrder.time(keys[k])
                        let p = WorldOrder.process(keys[k])
                        handleQueued(before: t, rank: p.rank)
                        now = t
                        let day = countEvent(at: t)
                        handleWorld(p, index: Int(positions[k]), at: t, day: day)
                    }
                    handleQueued(before: end, rank: 0)
                    interestBase = nil
                }
            }
        }
        counts[eventDay, .events] += eventsOfDay
        relevance.finish(at: end, history: history)
        if !anyAdded { fillMemberViews() }
        staleSpans.finish(lastDay: scenario.days - 1, counts: counts)
        for w in 0 ..< widgetCount where instances[w].exhaustedSince != .max {
            addExhausted(w, from: instances[w].exhaustedSince, to: end)
        }
        self.world = nil
        activeTrace = nil
        var result = counts.counts()
        fillEnergy(&result)
        return result
    }

    /// The `planner`'s first request of each instance, in the queue (not in a rehearsal).
    @inline(never)
    func schedulePlanned() {
        guard !planner.unsafelyUnwrapped.rehearsing else { return }
        for w in 0 ..< widgetCount { schedulePlanned(w, after: -1) }
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
    }

    /// Handles the queued events that come before a world item at `t` of `rank`, in
    /// order (each may schedule more).
    @inline(__always)
    func handleQueued(before t: SimTime, rank: UInt8) {
        while queue.hasEvent(before: t, rank: rank) {
            let (due, event) = queue.removeFirst()
            precondition(due >= now, "an event was scheduled in the past")
            now = due
            handle(event, at: due)
        }
    }

    /// A timeline request or a retry, from the queue.
    func handle(_ event: PersonEvent, at t: SimTime) {
        let day = countEvent(at: t)
        switch event {
        case .timelineDue(let w):
            // The pending request (when this is it) is asked once, with its strongest
            // reason; deferred again, it still holds every request it held.
            let held = pending[Int(w)]
            if held.timeline { pending[Int(w)] = PendingRequest() }
            request(Int(w), .timeline, at: t, day: day, reloadInLine: true)
            if held.background && !pending[Int(w)].isEmpty { pending[Int(w)].background = true }
        case .backgroundRetry(let w):
            pending[Int(w)] = PendingRequest()
            request(Int(w), .background, at: t, day: day)
            if planner != nil { schedulePlanned(Int(w), after: t) }
        case .standByRefresh:
            standByRefresh(at: t, day: day)
        }
    }

    /// The `planner`'s next request of `w` after `t`, in its slot. Under a planner every
    /// background retry is a planned request (such a budget never defers).
    @inline(never)
    func schedulePlanned(_ w: Int, after t: SimTime) {
        if let next = planner.unsafelyUnwrapped.nextRequest(instance: w, after: t) {
            queue.schedule(at: next, rank: 6, slot: plannedSlot(w), .backgroundRetry(Int32(truncatingIfNeeded: w)))
        }
    }

    @inline(__always)
    func handleWorld(_ p: WorldProcess, index i: Int, at t: SimTime, day: Int) {
        // Each case copies what it needs out of `world` before calling on, so no
        // reference to it is held (retained) across those calls.
        switch p {
        case .timeChange:
            counts[day, .timeChanges] &+= 1
            traceEvent(t, p, widget: -1, "all_reload", "all widgets reload")
            for x in 0 ..< widgetCount { request(x, .timeChange, at: t, day: day) }
        case .environmentChange:
            counts[day, .environmentChanges] &+= 1
            traceEvent(t, p, widget: -1, "all_reload", "all widgets reload")
            for x in 0 ..< widgetCount { request(x, .environment, at: t, day: day) }
        case .contentChange:
            let x = Int(world.randomChanges[i].widget)
            counts[day, .contentChanges] &+= 1
            if instances[x].firstUnshownRandom == .max {
                instances[x].firstUnshownRandom = t
                if facts[x].spanned { staleSpans.turnedStale(x, day: day) }
            }
            if facts[x].hasRelevance { relevance.contentChanged(x, index: i) }
            traceEvent(t, p, widget: x, "content_newer", "content is now newer than the widget shows")
        case .push:
            let x = Int(world.pushes[i].widget)
            counts[day, .pushes] &+= 1
            let free = pushWhileForegroundIsFree && foreground[appOf[x]] > 0
            let reason: ReloadReason = free ? .foreground : audio[appOf[x]] > 0 ? .audio : .background
            if reason == .background && !pushThrottle.deliver(app: appOf[x], at: t) {
                counts[day, refusal: .pushThrottled] &+= 1
                reasons[day, widget: x, refusal: .pushThrottled] &+= 1
                traceEvent(t, p, widget: x, "push_dropped", "dropped by the background push throttle", reason: RefusalReason.pushThrottled.label)
                return
            }
            traceEvent(t, p, widget: x, "push_delivered", reason == .background ? "reload of kind from the background"
                       : reason == .audio ? "audio session running: reload of kind, free" : "app in foreground: reload of kind, free")
            for k in sameKind.range(x) { request(sameKind.items[k], reason, at: t, day: day) }
        case .sessionEnd:
            let x = Int(world.sessionEnds[i].widget)
            foreground[appOf[x]] -= 1
            traceEvent(t, p, widget: x, "app_left", "app leaves the foreground")
        case .sessionStart:
            let session = world.sessions[i]
            let x = Int(session.widget)
            counts[day, .sessions] &+= 1
            foreground[appOf[x]] += 1
            if session.donates { donate(session, at: t, day: day) }
            traceEvent(t, p, widget: x, session.donates ? "app_foreground_donated" : "app_foreground",
                       session.donates ? "app in foreground, intent donated" : "app in foreground")
            if budgetObserves.contains(.appUse) {
                for k in sameApp.range(x) { budget.didUseApp(instance: sameApp.items[k], at: t) }
            }
            for k in sameKind.range(x) { request(sameKind.items[k], .foreground, at: t, day: day) }
        case .view:
            view(world.views[i], index: i, at: t, day: day)
        case .widgetAdded:
            let x = Int(world.additions[i].widget)
            traceEvent(t, p, widget: x, "added", "added to the home screen: first reload, free")
            if budgetObserves.contains(.additions) { budget.didAdd(instance: x, at: t) }
            request(x, .widgetAdded, at: t, day: day)
        case .audioStart:
            let x = Int(world.audioStarts[i].widget)
            counts[day, .audioSessions] &+= 1
            audio[appOf[x]] += 1
            traceEvent(t, p, widget: x, "audio_reload", "audio or navigation session: the app's widgets reload, free")
            for k in sameApp.range(x) { request(sameApp.items[k], .audio, at: t, day: day) }
        case .audioEnd:
            let x = Int(world.audioEnds[i].widget)
            audio[appOf[x]] -= 1
            traceEvent(t, p, widget: x, "audio_ended", "audio or navigation session ends")
        case .standByStart:
            traceEvent(t, p, widget: -1, "standby_refresh", "StandBy: the system refreshes the display, free")
            queue.schedule(at: t, rank: 6, slot: standBySlot, .standByRefresh)
        case .standByEnd:
            queue.cancel(slot: standBySlot)
            traceEvent(t, p, widget: -1, "standby_ended", "StandBy ends")
        }
    }

    /// A StandBy display refresh at `t`: every widget reloads, free, and the next refresh
    /// comes one interval on (cancelled when StandBy ends). The widget's own reload
    /// policy plays no part (MODEL §2).
    @inline(never)
    func standByRefresh(at t: SimTime, day: Int) {
        for x in 0 ..< widgetCount { request(x, .standBy, at: t, day: day) }
        queue.schedule(at: t + standByRefreshMs, rank: 6, slot: standBySlot, .standByRefresh)
    }

    /// The intent `session` donates (kept out of `run`'s loop, where the world's items
    /// are handled in line).
    @inline(never)
    func donate(_ session: SessionRecord, at t: SimTime, day: Int) {
        counts[day, .donations] &+= 1
        // The intent reaches the stack only when it matches a configured member.
        let target = Int(session.donatedInstance)
        let m = target >= 0 ? memberOf[target] : -1
        if m >= 0 {
            history.recordDonation(member: m, at: t, hour: Int(session.hour), weekday: Int(session.weekday))
            if timeOfDay == nil {  // time_of_day reads the history alone
                ranking.observeDonation(member: m, at: t, hour: Int(session.hour), weekday: Int(session.weekday))
            }
        }
        if target >= 0 { suggestions?.observeDonation(instance: target, at: t) }
    }

    // MARK: - Reload requests

    /// A reload request of instance `w`: free reasons are granted at once; charged ones
    /// go to the budget policy.
    ///
    /// With `reloadInLine`, a granted reload is made in line (`reloadBody`) rather than
    /// by calling `reload`: for the timeline requests from the queue, most of the events.
    @inline(__always)
    func request(_ w: Int, _ reason: ReloadReason, at t: SimTime, day: Int,
                 reloadInLine: Bool = false) {
        // An instance not yet added does not exist.
        if anyAdded && t < addedAt[w] { return }
        guard reason.isCharged else {
            reload(w, reason, charged: false, at: t, day: day)
            return
        }
        if reason == .background, pending[w].background {
            coalesce(w, reason, at: t, day: day)
            return
        }
        let decision = decide(w, reason, at: t)
        if case .grant = decision {
            if reloadInLine {
                reloadBody(w, reason, charged: true, at: t, day: day)
            } else {
                reload(w, reason, charged: true, at: t, day: day)
            }
        } else {
            refused(w, reason, decision, at: t, day: day)
        }
    }

    /// A background request of `w` folded into the one already pending (kept out of
    /// line: `request` is inlined at every call).
    @inline(never)
    func coalesce(_ w: Int, _ reason: ReloadReason, at t: SimTime, day: Int) {
        counts[day, widget: w, .coalesced] &+= 1
        counts[day, refusal: .coalescedIntoPending] &+= 1
        reasons[day, widget: w, refusal: .coalescedIntoPending] &+= 1
        traceRequest(t, w, reason, "coalesced", "coalesced into the pending request", reason: RefusalReason.coalescedIntoPending.label)
    }

    /// A charged request of `w` the budget refused with `decision`: deferred or dropped
    /// (kept out of line: `request` is inlined at every call).
    @inline(never)
    func refused(_ w: Int, _ reason: ReloadReason, _ decision: BudgetDecision, at t: SimTime, day: Int) {
        switch decision {
        case .grant:
            preconditionFailure("a grant is not a refusal")
        case .deferUntil(let until, let why):
            let at = max(until, t + 1)
            counts[day, widget: w, .deferred] &+= 1
            counts[day, widget: w, .deferralMs] += at - t
            counts[day, refusal: why] &+= 1
            reasons[day, widget: w, refusal: why] &+= 1
            if instances[w].exhaustedSince == .max { instances[w].exhaustedSince = t }
            let merged = !pending[w].isEmpty
            let due = deferRequest(w, reason, to: at)
            traceRequest(t, w, reason, "deferred", until: at, merged ? "deferred \(DurationText.format(at - t)), one pending request from \(DurationText.format(due - t))"
                         : "deferred \(DurationText.format(at - t))", reason: why.label)
        case .deny(let why):
            counts[day, widget: w, .denied] &+= 1
            counts[day, refusal: why] &+= 1
            reasons[day, widget: w, refusal: why] &+= 1
            if instances[w].exhaustedSince == .max { instances[w].exhaustedSince = t }
            traceRequest(t, w, reason, "denied", "denied", reason: why.label)
        }
    }

    /// The budget's decision on a charged request of `w`.
    @inline(__always)
    func decide(_ w: Int, _ reason: ReloadReason, at t: SimTime) -> BudgetDecision {
        if let dailyQuota {
            return dailyQuota._withUnsafeGuaranteedRef { $0.decide(instance: w, reason: reason, at: t) }
        }
        return budget.decide(instance: w, reason: reason, at: t)
    }

    /// Makes the refused request of `w` (asked for `reason`) pending until `at`. With a
    /// request already pending, the two become one (`PendingRequest`): asked at the
    /// earlier time, with the stronger reason. Returns when the pending request is due.
    func deferRequest(_ w: Int, _ reason: ReloadReason, to at: SimTime) -> SimTime {
        var p = pending[w]
        var due = at
        if !p.isEmpty {
            let slot = p.timeline ? timelineSlot(w) : backgroundSlot(w)
            due = min(queue.pendingTime(slot: slot) ?? at, at)
        }
        p.add(reason)
        pending[w] = p
        if p.timeline {
            queue.cancel(slot: backgroundSlot(w))
            queue.schedule(at: due, rank: 6, slot: timelineSlot(w), .timelineDue(Int32(truncatingIfNeeded: w)))
        } else {
            queue.schedule(at: due, rank: 6, slot: backgroundSlot(w), .backgroundRetry(Int32(truncatingIfNeeded: w)))
        }
        return due
    }

    /// A reload of instance `w` at `t`: a new timeline, and the next timeline request.
    func reload(_ w: Int, _ reason: ReloadReason, charged: Bool, at t: SimTime, day: Int) {
        reloadBody(w, reason, charged: charged, at: t, day: day)
    }

    /// `reload`'s work, inlined where it is called.
    @inline(__always)
    func reloadBody(_ w: Int, _ reason: ReloadReason, charged: Bool, at t: SimTime, day: Int) {
        let row = counts.row(day: day, widget: w)
        row[WidgetCounter.reload(reason)] &+= 1
        // Each field is written in place (`instances` hands out its element's address):
        // the timeline, most of the struct, only for a widget that has one.
        if charged {
            row[.charged] &+= 1
            let since = instances[w].exhaustedSince
            if since != .max {
                addExhausted(w, from: since, to: t)
                instances[w].exhaustedSince = .max
            }
        }
        let fresh = instances[w].firstUnshownRandom != .max
        instances[w].firstUnshownRandom = .max
        if fresh && facts[w].spanned { staleSpans.turnedFresh(w, day: day, counts: counts) }
        instances[w].hadReload = true
        pending[w] = PendingRequest()
        if facts[w].hasPredictable || facts[w].hasRelevance { renewTimelines(w, at: t, fresh: fresh) }
        queue.cancel(slot: backgroundSlot(w))
        if case .after(let interval) = facts[w].reloadPolicy {
            queue.schedule(at: t + interval, rank: 6, slot: timelineSlot(w), .timelineDue(Int32(truncatingIfNeeded: w)))
        } else {
            scheduleTimelineRequest(w, at: t)
        }
        if budgetObserves.contains(.reloads) { budget.didReload(instance: w, charged: charged, at: t) }
        if activeTrace != nil { traceReload(t, w, reason, charged: charged) }
    }

    /// The trace line of a reload (kept out of `reload`).
    @inline(never)
    func traceReload(_ t: SimTime, _ w: Int, _ reason: ReloadReason, charged: Bool) {
        traceRequest(t, w, reason, charged ? "reloaded_charged" : "reloaded_free", charged ? "reloaded, charged" : "reloaded, free")
    }

    /// The new timeline of `w` reloaded at `t`: its predictable content and its relevance
    /// (kept out of `reload`, whose widgets often have neither).
    @inline(never)
    func renewTimelines(_ w: Int, at t: SimTime, fresh: Bool) {
        if facts[w].hasPredictable {
            instances[w].timeline = ContentTimeline(
                reloadAt: t, horizon: facts[w].horizon, spacing: facts[w].entrySpacing, changes: predictableChanges(w))
        }
        if facts[w].hasRelevance {
            relevance.reload(w, at: t, fresh: fresh, coverageEnd: t + facts[w].horizon, history: history)
        }
    }

    /// The next timeline request of `w` reloaded at `t`, for the reload policies other
    /// than `after` (kept out of `reload`).
    @inline(never)
    func scheduleTimelineRequest(_ w: Int, at t: SimTime) {
        switch facts[w].reloadPolicy {
        case .after(let interval):
            queue.schedule(at: t + interval, rank: 6, slot: timelineSlot(w), .timelineDue(Int32(truncatingIfNeeded: w)))
        case .atEnd:
            // After the last entry's date; a timeline of one entry asks again one entry
            // spacing after the reload, not at once.
            let last = facts[w].hasPredictable ? instances[w].timeline.lastEntry(changes: predictableChanges(w)) : t
            queue.schedule(at: max(last, t + facts[w].entrySpacing), rank: 6, slot: timelineSlot(w), .timelineDue(Int32(truncatingIfNeeded: w)))
        case .never:
            queue.cancel(slot: timelineSlot(w))
        }
    }

    /// The predictable changes of `w` (only for a widget that has some).
    @inline(__always)
    func predictableChanges(_ w: Int) -> PredictableChanges {
        PredictableChanges(period: facts[w].periodic, scheduled: world.scheduled[w])
    }

    func addExhausted(_ w: Int, from a: SimTime, to b: SimTime) {
        var start = a
        while start < b {
            let day = Int(start / Milliseconds.day)
            let dayEnd = min(b, SimTime(day + 1) * Milliseconds.day)
            counts[day, widget: w, .exhaustedMs] += dayEnd - start
            start = dayEnd
        }
    }

    // MARK: - Relevance

    func currentRelevance(_ w: Int, at t: SimTime) -> Double? {
        instances[w].hadReload ? relevance.current(w, at: t) : nil
    }

    // MARK: - Views

    /// The first change `w` does not show at `t`, or nil when it is up to date: a
    /// random change since its last reload, or a predictable change its timeline shows
    /// late or not at all (`ContentTimeline`). Views come in time order. In a plain view
    /// (`plain`, see `plainViews`), `w` is a stack member with no predictable content.
    @inline(__always)
    func staleSince(_ w: Int, at t: SimTime, plain: Bool = false) -> SimTime? {
        var first = instances[w].firstUnshownRandom
        if !plain && facts[w].hasPredictable && instances[w].hadReload {
            if instances[w].timeline.nextEntry <= t {
                instances[w].timeline.advance(to: t, changes: predictableChanges(w))
            }
            first = min(first, instances[w].timeline.firstUnshown)
        }
        return first <= t ? first : nil
    }

    /// Counts a view of `w`, and whether it is stale; `plain` as for `staleSince`, and
    /// the budget does not observe views.
    @inline(__always)
    func seen(_ w: Int, at t: SimTime, day: Int, plain: Bool = false) -> Bool {
        counts[day, widget: w, .views] &+= 1
        if !plain && budgetObserves.contains(.views) { budget.didView(instance: w, at: t) }
        if let since = staleSince(w, at: t, plain: plain) {
            counts[day, widget: w, .staleViews] &+= 1
            counts[day, widget: w, .stalenessMs] += t - since
            return true
        }
        return false
    }

    /// Without widgets added during the run, every stack member is seen at every view:
    /// each member's views of a day are the day's views.
    func fillMemberViews() {
        guard !members.isEmpty else { return }
        for day in 0 ..< scenario.days {
            let views = counts[day, .views]
            for w in members { counts[day, widget: w, .memberViews] = views }
        }
    }

    /// Each instance's energy of each day: its reloads of the day, whatever the reason,
    /// times the energy of one (`reload` counts the reloads only).
    func fillEnergy(_ result: inout PersonCounts) {
        for day in 0 ..< result.days {
            for w in 0 ..< widgetCount {
                result[day, widget: w, .energyMilli] = result.reloads(day: day, widget: w) * facts[w].cost
            }
        }
    }

    /// Counts a view for stack member `w`, and whether its content would be stale if shown.
    @inline(__always)
    func memberSeen(_ w: Int, at t: SimTime, day: Int) {
        counts[day, widget: w, .memberViews] &+= 1
        if staleSince(w, at: t) != nil { counts[day, widget: w, .staleMemberViews] &+= 1 }
    }

    /// View `v` of the home screen (MODEL §5, §6).
    func view(_ v: ViewRecord, index: Int, at t: SimTime, day: Int) {
        if plainViews {
            view(v, index: index, at: t, day: day, kind: PlainView.self)
        } else {
            view(v, index: index, at: t, day: day, kind: AnyView.self)
        }
    }

    /// `view`, made twice (one specialization per kind): for plain views (see
    /// `plainViews`), where the tests of what they lack are left out, and for all others.
    func view<Kind: ViewKind>(_ v: ViewRecord, index: Int, at t: SimTime, day: Int, kind: Kind.Type) {
        // The settings a plain view knows (constants in its specialization), here read
        // in place of the engine's own.
        let plain = Kind.plain
        let anyAdded = !plain && self.anyAdded
        let smartRotate = plain || self.smartRotate
        let anyMemberRelevance = !plain && self.anyMemberRelevance
        counts[day, .views] &+= 1
        if v.standBy { counts[day, .standByViews] &+= 1 }
        if !plain && !standalone.isEmpty { seeStandalone(at: t, day: day) }
        let n = members.count
        guard plain || n > 0 else { return }
        // The history holds the relevance entries dated up to now (MODEL §5).
        if anyMemberRelevance { relevance.recordDue(upTo: t, history: history) }
        if anyAdded {
            seeAddedMembers(at: t, day: day)
        } else {
            // Every member is seen at every view: their `memberViews` are the day's views,
            // filled in at the end of the run (`fillMemberViews`); the spanned members'
            // stale views are counted by `staleSpans`, the others' here.
            staleSpans.viewed(day: day)
            if !plain && !checkedMembers.isEmpty { countStaleCheckedMembers(at: t, day: day) }
        }
        let hour = Int(v.hour), weekday = Int(v.weekday)
        // A wanted widget placed nowhere (index n and above) is no member's hit: its
        // miss is counted apart.
        let wanted = Int(v.wanted) < n ? Int(v.wanted) : -1
        if Int(v.wanted) >= n { notInStack(Int(v.wanted) - n, day: day) }
        // The stack's own top: the person's first member already added.
        var home = 0
        if anyAdded { while home < n - 1 && t < addedAt[members[home]] { home += 1 } }
        var top = home
        // The order proposed: the ranking's, absent members last. With Smart Rotate on,
        // the governor's top is moved to its front.
        let order: UnsafePointer<Int>
        if smartRotate {
            if anyMemberRelevance {
                // One uniqueness check for the n writes, not one each.
                history.currentRelevance.withUnsafeMutableBufferPointer { current in
                    for k in 0 ..< n { current[k] = currentRelevance(members[k], at: t) }
                }
            }
            if plain || rankInPlace {
                order = rankedInPlace(hour: hour, weekday: weekday)
            } else {
                order = propose(at: t, hour: hour, weekday: weekday, index: index)
            }
            // The ranking proposes; the governor decides what is on top.
            let proposal = UnsafeBufferPointer(start: order, count: n)
            top = anyMemberRelevance
                ? governor.choose(proposal, home: home, at: t, history: history)
                : governor.chooseWithoutRelevance(proposal, home: home, at: t, history: history)
        } else {
            order = propose(at: t, hour: hour, weekday: weekday, index: index)
        }
        if !plain, let suggestions { suggest(suggestions, v, at: t, day: day) }
        let topStale = seen(members[top], at: t, day: day, plain: plain)
        if topStale { counts[day, .staleTopViews] &+= 1 }
        counts[day, .bestChanceNano] += v.bestChanceNano
        counts[day, .wantedChanceNano] += v.wantedChanceNano
        var missed = MissedViewReason.smartRotateOff
        if wanted >= 0 {
            counts[day, .viewsWanted] &+= 1
            // The position of `wanted` in the order shown: the proposed order with, under
            // Smart Rotate, the top moved to the front (the others keep their order).
            var position = 0
            if wanted != top {
                // `order` is a permutation of the members: it holds `wanted`.
                var topAhead = false
                while order[position] != wanted {
                    if order[position] == top { topAhead = true }
                    position += 1
                }
                if smartRotate {
                    if !topAhead { position += 1 }
                    missed = missedReason(wanted, proposedAhead: !topAhead, at: t)
                }
            }
            if position == 0 {
                counts[day, .hits] &+= 1
                if topStale {
                    counts[day, missed: .staleContent] &+= 1
                    reasons[day, wanted: members[wanted], top: members[top], missed: .staleContent] &+= 1
                }
            } else {
                counts[day, missed: missed] &+= 1
                reasons[day, wanted: members[wanted], top: members[top], missed: missed] &+= 1
            }
            if position < 3 { counts[day, .top3Hits] &+= 1 }
            counts[day, .reciprocalRank2520] += Self.reciprocalRank2520(position)
        }
        if let previous = lastTop, previous != top {
            counts[day, .rotations] &+= 1
            if wanted == top { counts[day, .rotationHits] &+= 1 }
            if topStale { counts[day, .rotationsToStale] &+= 1 }
        }
        lastTop = top
        let shown = ShownView(
            top: top, wanted: wanted, topStale: topStale, missed: missed,
            observed: !plain && smartRotate && timeOfDay == nil)  // time_of_day observes nothing
        if v.wouldSwipe || v.wouldTap {
            interact(v, shown, at: t, day: day)
        } else {
            finish(v, shown, swipedTo: nil, tapped: nil, at: t, day: day)
        }
    }

    /// A view whose wanted widget is placed nowhere: the `j`th of those the stack can
    /// suggest, when it is one (kept out of line: rare).
    @inline(never)
    func notInStack(_ j: Int, day: Int) {
        let w = j < suggestable.count ? suggestable[j] : reasons.widgets
        counts[day, missed: .notInStack] &+= 1
        reasons[day, wanted: w, top: reasons.widgets, missed: .notInStack] &+= 1
    }

    /// What `view` decided, for what follows the person's swipe or tap.
    struct ShownView {
        let top: Int
        let wanted: Int
        let topStale: Bool
        let missed: MissedViewReason
        /// Whether the ranking is told the outcome (`RankingPolicy.observe`).
        let observed: Bool
    }

    /// What the person does at view `v` that would swipe or tap: swipes to the wanted
    /// member when it is not on top, and taps it when it is shown and interactive; then
    /// `finish` (kept out of `view`, whose every view does neither).
    @inline(never)
    func interact(_ v: ViewRecord, _ shown: ShownView, at t: SimTime, day: Int) {
        let wanted = shown.wanted
        var swipedTo: Int? = nil
        if wanted >= 0 && wanted != shown.top && v.wouldSwipe {
            swipedTo = wanted
            swipe(to: wanted, at: t, day: day)
        }
        var tapped: Int? = nil
        let onScreen = swipedTo ?? shown.top
        if wanted == onScreen && v.wouldTap && interactive[members[onScreen]] {
            tapped = onScreen
            counts[day, .taps] &+= 1
        }
        finish(v, shown, swipedTo: swipedTo, tapped: tapped, at: t, day: day)
    }

    /// The end of view `v`, once the person swiped to `swipedTo` and tapped `tapped` (or
    /// not): its trace line, the history, the ranking's observation and the tap's reload.
    @inline(__always)
    func finish(_ v: ViewRecord, _ shown: ShownView, swipedTo: Int?, tapped: Int?, at t: SimTime, day: Int) {
        let top = shown.top, hour = Int(v.hour), weekday = Int(v.weekday)
        if activeTrace != nil {
            traceView(v, at: t, top: top, wanted: shown.wanted, topStale: shown.topStale, swipedTo: swipedTo,
                      tapped: tapped, missed: shown.missed)
        }
        history.recordView(top: top, swipedTo: swipedTo, tapped: tapped, hour: hour, weekday: weekday)
        if shown.observed {
            ranking.observe(
                ViewOutcome(time: t, hour: hour, weekday: weekday, top: top, swipedTo: swipedTo, tapped: tapped != nil),
                history: history)
        }
        if let tapped { request(members[tapped], .interaction, at: t, day: day) }
    }

    /// The standalone widgets (not in the stack) seen at a view: those already added.
    @inline(never)
    func seeStandalone(at t: SimTime, day: Int) {
        // By index: a for-in loop over the array property retains it at every view.
        for j in 0 ..< standalone.count where !anyAdded || t >= addedAt[standalone[j]] {
            _ = seen(standalone[j], at: t, day: day)
        }
    }

    /// The stack members already added, each seen at a view (with widgets added during
    /// the run).
    @inline(never)
    func seeAddedMembers(at t: SimTime, day: Int) {
        for k in 0 ..< members.count where t >= addedAt[members[k]] { memberSeen(members[k], at: t, day: day) }
    }

    /// The stale views of the `checkedMembers` at a view.
    @inline(never)
    func countStaleCheckedMembers(at t: SimTime, day: Int) {
        for k in 0 ..< checkedMembers.count where staleSince(checkedMembers[k], at: t) != nil {
            counts[day, widget: checkedMembers[k], .staleMemberViews] += 1
        }
    }

    /// 2520 / (`position` + 1), by table for the first positions (no division).
    @inline(__always)
    static func reciprocalRank2520(_ position: Int) -> Int64 {
        switch position {
        case 0: return 2520
        case 1: return 1260
        case 2: return 840
        case 3: return 630
        case 4: return 504
        case 5: return 420
        case 6: return 360
        case 7: return 315
        case 8: return 280
        case 9: return 252
        default: return Int64(2520 / (position + 1))
        }
    }

    /// The person swipes to stack member `m` at a view.
    func swipe(to m: Int, at t: SimTime, day: Int) {
        counts[day, .swipes] &+= 1
        governor.swiped(at: t)
        _ = seen(members[m], at: t, day: day)
    }

    /// The trace line of view `v` (kept out of `view`, which runs at every view).
    @inline(never)
    func traceView(_ v: ViewRecord, at t: SimTime, top: Int, wanted: Int, topStale: Bool, swipedTo: Int?, tapped: Int?,
                   missed: MissedViewReason) {
        let n = members.count
        var text = "top \(scenario.widgets[members[top]].id)"
        text += wanted >= 0 ? ", wanted \(scenario.widgets[members[wanted]].id)" : ", nothing wanted"
        if topStale { text += ", stale" }
        if let s = swipedTo { text += ", swiped to \(scenario.widgets[members[s]].id)" }
        if tapped != nil { text += ", tapped" }
        if smartRotate && governor.holding { text += ", held" }
        if smartRotate && governor.rotatedIn {
            let r = history.currentRelevance[top].map { "\($0)" } ?? "none"
            let q = governor.quota(of: top, history: history)
            text += ", rotated in (relevance \(r), quota \(q.soft)/\(q.hard), held until \(governor.holdUntil))"
        }
        guard let trace = activeTrace else { return }
        let (decision, why) = Int(v.wanted) >= n ? ("wanted_elsewhere", MissedViewReason.notInStack.label)
            : wanted < 0 ? ("nothing_wanted", "")
            : wanted != top ? ("wanted_not_on_top", missed.label)
            : ("wanted_on_top", topStale ? MissedViewReason.staleContent.label : "")
        var line = traceLine(t, event: WorldProcess.view.label, widget: -1, decision: decision, detail: text, reason: why)
        line.topWidget = scenario.widgets[members[top]].id
        if wanted >= 0 {
            line.wantedWidget = scenario.widgets[members[wanted]].id
        } else if Int(v.wanted) >= n, Int(v.wanted) - n < suggestable.count {
            line.wantedWidget = scenario.widgets[suggestable[Int(v.wanted) - n]].id
        }
        if smartRotate && anyMemberRelevance {
            line.topRelevance = history.currentRelevance[top]
            if wanted >= 0 { line.wantedRelevance = history.currentRelevance[wanted] }
        }
        trace.record(line)
    }

    /// Why `wanted` is not on top when the governor put `top` there: the governor's
    /// limit when the ranking proposed `wanted` ahead of `top`, otherwise the ranking's
    /// own choice (no signal for `wanted` yet, or outranked).
    @inline(__always)
    func missedReason(_ wanted: Int, proposedAhead: Bool, at t: SimTime) -> MissedViewReason {
        if proposedAhead {
            if governor.holding { return .held }
            if let why = governor.veto(wanted, at: t, history: history) { return why }
        }
        let signal = history.donations[wanted] > 0 || history.relevanceCount(member: wanted) > 0
        return signal ? .outranked : .noSignal
    }

    /// `timeOfDay`'s order at local `hour` of `weekday`: its `ranked`, asked only when
    /// something it depends on changed since the previous view.
    @inline(__always)
    func rankedInPlace(hour: Int, weekday: Int) -> UnsafePointer<Int> {
        let tod = timeOfDay.unsafelyUnwrapped
        let version = history.countsVersion
        if let order = inPlaceOrder, version == inPlaceVersion, hour == inPlaceHour, weekday == inPlaceWeekday,
           tod._withUnsafeGuaranteedRef({ $0.generation }) == inPlaceGeneration {
            assert(Array(UnsafeBufferPointer(start: order, count: members.count))
                   == tod._withUnsafeGuaranteedRef { $0.sortedAfresh(hour: hour, weekday: weekday, history: history) })
            return order
        }
        let order = tod._withUnsafeGuaranteedRef { $0.ranked(hour: hour, weekday: weekday, history: history) }
        assert(Array(UnsafeBufferPointer(start: order, count: members.count))
               == tod._withUnsafeGuaranteedRef { $0.sortedAfresh(hour: hour, weekday: weekday, history: history) })
        inPlaceOrder = order
        inPlaceGeneration = tod._withUnsafeGuaranteedRef { $0.generation }
        inPlaceVersion = version
        inPlaceHour = hour
        inPlaceWeekday = weekday
        return order
    }

    /// The order proposed at a view through the ranking's `rank` (with Smart Rotate on)
    /// and `putAbsentLast`, copied to `proposed`.
    func propose(at t: SimTime, hour: Int, weekday: Int, index: Int) -> UnsafePointer<Int> {
        let n = members.count
        // `order` holds the n members from `init` on: reset in place, no allocation. It is
        // moved out of the engine for the view and back (no copy), so that its writes
        // find it unshared and handing it on retains nothing.
        var order = self.order
        self.order = []
        defer { self.order = order }
        for k in 0 ..< n { order[k] = k }
        if smartRotate {
            let interestRow = interestByHour ? weekday * 24 + hour : index
            let context = ViewContext(
                time: t, hour: hour, weekday: weekday,
                groundTruthInterest: MemberInterest(UnsafeBufferPointer(start: interestBase! + interestRow * n, count: n)))
            ranking.rank(context, history: history, order: &order)
        }
        if anyAdded { putAbsentLast(&order, at: t) }
        for k in 0 ..< n { proposed[k] = order[k] }
        return UnsafePointer(proposed)
    }

    /// Members not yet added to the stack go to the end of `order`, in their order.
    func putAbsentLast(_ order: inout [Int], at t: SimTime) {
        var k = 0
        for j in 0 ..< order.count where t >= addedAt[members[order[j]]] {
            let m = order[j]
            order.remove(at: j)
            order.insert(m, at: k)
            k += 1
        }
    }

    /// Widget Suggestions at view `v`: counted apart from the stack's own columns (see
    /// `WidgetSuggestions`); the suggested instance is seen.
    func suggest(_ suggestions: WidgetSuggestions, _ v: ViewRecord, at t: SimTime, day: Int) {
        guard let j = suggestions.suggestion(at: t) else { return }
        counts[day, .suggestionsShown] &+= 1
        if Int(v.wanted) == members.count + j { counts[day, .suggestionsWanted] &+= 1 }
        _ = seen(suggestable[j], at: t, day: day)
    }

    // MARK: - Trace

    @inline(__always)
    func traceEvent(_ t: SimTime, _ p: WorldProcess, widget: Int, _ decision: @autoclosure () -> String,
                    _ detail: @autoclosure () -> String, reason: String = "") {
        guard let trace = activeTrace else { return }
        trace.record(traceLine(t, event: p.label, widget: widget, decision: decision(), detail: detail(), reason: reason))
    }

    @inline(__always)
    func traceRequest(_ t: SimTime, _ w: Int, _ reason: ReloadReason, _ decision: @autoclosure () -> String, until: SimTime? = nil,
                      _ detail: @autoclosure () -> String, reason why: String = "") {
        guard let trace = activeTrace else { return }
        var line = traceLine(t, event: "reload_request_\(reason.label)", widget: w, decision: decision(), detail: detail(), reason: why)
        line.until = until
        trace.record(line)
    }

    /// A trace line's common fields: the day, the person's local time, the pair.
    @inline(never)
    func traceLine(_ t: SimTime, event: String, widget: Int, decision: String, detail: String, reason: String) -> TraceLine {
        let local = world.clock.localMs(t) % Milliseconds.day
        return TraceLine(time: t, day: Int(t / Milliseconds.day), localSeconds: Int((local + Milliseconds.day) % Milliseconds.day / 1000),
                         person: world.person, pair: tracePair, event: event,
                         widget: widget >= 0 ? scenario.widgets[widget].id : "", decision: decision, detail: detail, reason: reason)
    }
}

/// The kind of a view, known when `PersonEngine.view` is made for it: whether it is
/// plain (`PersonEngine.plainViews`).
protocol ViewKind { static var plain: Bool { get } }
enum PlainView: ViewKind { static var plain: Bool { true } }
enum AnyView: ViewKind { static var plain: Bool { false } }

/// What the engine tracks of one widget instance during a run.
struct InstanceState {
    /// First random change not yet shown, or `.max`.
    var firstUnshownRandom: SimTime = .max
    /// The current timeline's entries of predictable content.
    var timeline = ContentTimeline()
    var hadReload = false
    /// The first refusal since the last charged grant, or `.max`.
    var exhaustedSince: SimTime = .max
}

/// The static facts of one widget instance that its reloads read, side by side.
struct InstanceFacts {
    let horizon: Int64
    let entrySpacing: Int64
    /// The period of its periodic content changes, or 0.
    let periodic: Int64
    /// Energy of one reload, in thousandths.
    let cost: Int64
    let reloadPolicy: ReloadPolicy
    /// Whether its timelines carry relevance.
    let hasRelevance: Bool
    /// Whether it has predictable (periodic or scheduled) content changes; without them
    /// no timeline ever shows a change ahead.
    let hasPredictable: Bool
    /// Whether it is a stack member whose staleness changes only at events (no
    /// predictable content, none added during the run): its stale member views are
    /// counted by spans (`StaleSpans`).
    let spanned: Bool
}

/// One list of widget indices per widget, stored flat: widget `w`'s list is
/// `items[range(w)]`. Walking an array of arrays retains the inner array every time;
/// these two plain arrays are read directly.
struct WidgetLists {
    let items: [Int]
    private let start: [Int]

    init(_ lists: [[Int]]) {
        items = lists.flatMap { $0 }
        var start = [0]
        for list in lists { start.append(start[start.count - 1] + list.count) }
        self.start = start
    }

    /// The positions in `items` of widget `w`'s list.
    @inline(__always)
    func range(_ w: Int) -> Range<Int> { start[w] ..< start[w + 1] }
}
