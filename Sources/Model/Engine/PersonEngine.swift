import WidgetSimKernel
import WidgetSimSampling

/// Simulates one person's world under one budget policy and one ranking policy, and
/// counts what happened (MODEL §3, §5, §6). One engine per worker and policy pair:
/// it keeps its buffers from person to person and allocates nothing per event.
public final class PersonEngine: EventHandler {
    public typealias Payload = PersonEvent

    let scenario: Scenario
    let budget: any BudgetPolicy
    let ranking: any RankingPolicy
    let rankingStream: RandomStream
    public let history = StackHistory()
    public weak var trace: (any TraceSink)?

    // Static facts about the scenario.
    let widgetCount: Int
    let members: [Int]
    /// Stack member index of each widget, or −1.
    let memberOf: [Int]
    let standalone: [Int]
    let appOf: [Int]
    let appCount: Int
    /// Every instance of the widget's kind (including itself), for `reloadTimelines(ofKind:)`.
    let sameKind: [[Int]]
    let sameApp: [[Int]]
    let horizon: [Int64]
    let reloadPolicy: [ReloadPolicy]
    let periodic: [Int64]
    let cost: [Int64]
    let interactive: [Bool]

    // Per-run state.
    var world: PersonWorld!
    var counts: PersonCounts
    var cursor = [Int](repeating: 0, count: WorldProcess.allCases.count)
    var foreground: [Int]
    /// First random change not yet shown, or `.max`.
    var firstUnshownRandom: [SimTime]
    /// First predictable change after the current timeline's horizon, or `.max`.
    var firstUncovered: [SimTime]
    var hadReload: [Bool]
    var exhaustedSince: [SimTime]
    /// The current timeline's relevance: one window of `score` and a baseline outside.
    var relevanceItems: [[(start: SimTime, end: SimTime, score: Double)]]
    var relevanceBaseline: [Double?]
    var lastTop: Int? = nil
    var order: [Int] = []
    var interestBase: UnsafePointer<Double>? = nil

    public init(scenario: Scenario, budget: any BudgetPolicy, ranking: any RankingPolicy) {
        self.scenario = scenario
        self.budget = budget
        self.ranking = ranking
        rankingStream = RandomStream(kind: scenario.generator, seed: 1)
        let widgets = scenario.widgets
        widgetCount = widgets.count
        members = scenario.stack.members
        var memberOf = Array(repeating: -1, count: widgets.count)
        for (k, w) in members.enumerated() { memberOf[w] = k }
        self.memberOf = memberOf
        standalone = widgets.indices.filter { memberOf[$0] < 0 }
        var apps: [String: Int] = [:]
        appOf = widgets.map { w in
            if let a = apps[w.app] { return a }
            apps[w.app] = apps.count
            return apps.count - 1
        }
        appCount = apps.count
        sameKind = widgets.map { w in widgets.indices.filter { widgets[$0].kind == w.kind } }
        sameApp = widgets.map { w in widgets.indices.filter { widgets[$0].app == w.app } }
        horizon = widgets.map(\.timeline.horizonMs)
        reloadPolicy = widgets.map(\.timeline.reload)
        periodic = widgets.map { $0.content.periodicMs ?? 0 }
        cost = widgets.map(\.reloadCostMilli)
        interactive = widgets.map(\.interactive)
        counts = PersonCounts(days: scenario.days, widgets: widgets.count)
        foreground = Array(repeating: 0, count: apps.count)
        firstUnshownRandom = Array(repeating: .max, count: widgets.count)
        firstUncovered = Array(repeating: .max, count: widgets.count)
        hadReload = Array(repeating: false, count: widgets.count)
        exhaustedSince = Array(repeating: .max, count: widgets.count)
        relevanceItems = Array(repeating: [], count: widgets.count)
        relevanceBaseline = Array(repeating: nil, count: widgets.count)
        order.reserveCapacity(members.count)
    }

    /// Kernel slots: each instance's pending timeline request, then its pending
    /// deferred background request.
    var slotCount: Int { 2 * widgetCount }
    @inline(__always) func timelineSlot(_ w: Int) -> Int { w }
    @inline(__always) func backgroundSlot(_ w: Int) -> Int { widgetCount + w }

    /// Runs `world` under this engine's policies; the counts are in `counts` afterwards.
    public func run(_ world: PersonWorld, queue: inout EventQueue<PersonEvent>) -> PersonCounts {
        self.world = world
        counts.reset()
        for i in cursor.indices { cursor[i] = 0 }
        for i in foreground.indices { foreground[i] = 0 }
        for w in 0 ..< widgetCount {
            firstUnshownRandom[w] = .max
            firstUncovered[w] = .max
            hadReload[w] = false
            exhaustedSince[w] = .max
            relevanceItems[w].removeAll(keepingCapacity: true)
            relevanceBaseline[w] = nil
        }
        lastTop = nil
        history.reset(members: members.count)
        budget.begin(instances: widgetCount)
        rankingStream.reseed(StreamKey(
            seed: scenario.seed, replication: world.replication, person: world.person,
            process: StreamProcess.ranking))
        ranking.begin(members: members.count, stream: rankingStream)

        queue.removeAll(slots: slotCount)
        for p in WorldProcess.allCases { scheduleNext(p, queue: &queue) }
        var simulation = Simulation(handler: self, queue: queue)
        queue = EventQueue()  // the simulation owns the storage while it runs
        let end = scenario.durationMs
        world.viewInterest.withUnsafeBufferPointer { buffer in
            interestBase = buffer.baseAddress
            simulation.run(until: end)
            interestBase = nil
        }
        queue = simulation.queue
        for w in 0 ..< widgetCount where exhaustedSince[w] != .max {
            addExhausted(w, from: exhaustedSince[w], to: end)
        }
        self.world = nil
        return counts
    }

    @inline(__always)
    func count(_ w: PersonWorld, _ p: WorldProcess) -> Int {
        switch p {
        case .timeChange: w.timeChanges.count
        case .environmentChange: w.environmentChanges.count
        case .contentChange: w.randomChanges.count
        case .push: w.pushes.count
        case .sessionEnd: w.sessionEnds.count
        case .sessionStart: w.sessions.count
        case .view: w.views.count
        }
    }

    @inline(__always)
    func time(_ w: PersonWorld, _ p: WorldProcess, _ i: Int) -> SimTime {
        switch p {
        case .timeChange: w.timeChanges[i]
        case .environmentChange: w.environmentChanges[i]
        case .contentChange: w.randomChanges[i].time
        case .push: w.pushes[i].time
        case .sessionEnd: w.sessionEnds[i].time
        case .sessionStart: w.sessions[i].start
        case .view: w.views[i].time
        }
    }

    @inline(__always)
    func scheduleNext(_ p: WorldProcess, queue: inout EventQueue<PersonEvent>) {
        let i = cursor[p.rawValue]
        if i < count(world, p) {
            queue.schedule(at: time(world, p, i), rank: p.rank, .world(p))
        }
    }

    public func handle(_ event: PersonEvent, at t: SimTime, queue: inout EventQueue<PersonEvent>) {
        let day = Int(t / Milliseconds.day)
        counts[day, .events] += 1
        switch event {
        case .world(let p):
            let i = cursor[p.rawValue]
            cursor[p.rawValue] = i + 1
            handleWorld(p, index: i, at: t, day: day, queue: &queue)
            scheduleNext(p, queue: &queue)
        case .timelineDue(let w):
            request(Int(w), .timeline, at: t, day: day, queue: &queue)
        case .backgroundRetry(let w):
            request(Int(w), .background, at: t, day: day, queue: &queue)
        }
    }

    func handleWorld(_ p: WorldProcess, index i: Int, at t: SimTime, day: Int, queue: inout EventQueue<PersonEvent>) {
        let w = world!
        switch p {
        case .timeChange:
            counts[day, .timeChanges] += 1
            traceEvent(t, p, widget: -1, "all widgets reload")
            for x in 0 ..< widgetCount { request(x, .timeChange, at: t, day: day, queue: &queue) }
        case .environmentChange:
            counts[day, .environmentChanges] += 1
            traceEvent(t, p, widget: -1, "all widgets reload")
            for x in 0 ..< widgetCount { request(x, .environment, at: t, day: day, queue: &queue) }
        case .contentChange:
            let x = Int(w.randomChanges[i].widget)
            counts[day, .contentChanges] += 1
            if firstUnshownRandom[x] == .max { firstUnshownRandom[x] = t }
            traceEvent(t, p, widget: x, "content is now newer than the widget shows")
        case .push:
            let x = Int(w.pushes[i].widget)
            counts[day, .pushes] += 1
            let free = scenario.person.pushWhileForegroundIsFree && foreground[appOf[x]] > 0
            traceEvent(t, p, widget: x, free ? "app in foreground: reload of kind, free" : "reload of kind from the background")
            for y in sameKind[x] { request(y, free ? .foreground : .background, at: t, day: day, queue: &queue) }
        case .sessionEnd:
            let x = Int(w.sessionEnds[i].widget)
            foreground[appOf[x]] -= 1
            traceEvent(t, p, widget: x, "app leaves the foreground")
        case .sessionStart:
            let session = w.sessions[i]
            let x = Int(session.widget)
            counts[day, .sessions] += 1
            foreground[appOf[x]] += 1
            if session.donates {
                counts[day, .donations] += 1
                let m = memberOf[x]
                if m >= 0 {
                    history.recordDonation(member: m, at: t, hour: Int(session.hour), weekday: Int(session.weekday))
                    ranking.observeDonation(member: m, at: t, hour: Int(session.hour), weekday: Int(session.weekday))
                }
            }
            traceEvent(t, p, widget: x, session.donates ? "app in foreground, intent donated" : "app in foreground")
            for y in sameApp[x] { budget.didUseApp(instance: y, at: t) }
            for y in sameKind[x] { request(y, .foreground, at: t, day: day, queue: &queue) }
        case .view:
            view(w.views[i], index: i, at: t, day: day, queue: &queue)
        }
    }

    // MARK: - Reload requests

    /// A reload request of instance `w`: free reasons are granted at once; charged ones
    /// go to the budget policy.
    func request(_ w: Int, _ reason: ReloadReason, at t: SimTime, day: Int, queue: inout EventQueue<PersonEvent>) {
        guard reason.isCharged else {
            reload(w, reason, charged: false, at: t, day: day, queue: &queue)
            return
        }
        if reason == .background, queue.pendingTime(slot: backgroundSlot(w)) != nil {
            counts[day, widget: w, .coalesced] += 1
            traceRequest(t, w, reason, "coalesced into the pending request")
            return
        }
        switch budget.decide(instance: w, reason: reason, at: t) {
        case .grant:
            reload(w, reason, charged: true, at: t, day: day, queue: &queue)
        case .deferUntil(let until):
            let at = max(until, t + 1)
            counts[day, widget: w, .deferred] += 1
            counts[day, widget: w, .deferralMs] += at - t
            if exhaustedSince[w] == .max { exhaustedSince[w] = t }
            if reason == .timeline {
                queue.schedule(at: at, rank: 6, slot: timelineSlot(w), .timelineDue(Int32(w)))
            } else {
                queue.schedule(at: at, rank: 6, slot: backgroundSlot(w), .backgroundRetry(Int32(w)))
            }
            traceRequest(t, w, reason, "deferred \(DurationText.format(at - t))")
        case .deny:
            counts[day, widget: w, .denied] += 1
            if exhaustedSince[w] == .max { exhaustedSince[w] = t }
            traceRequest(t, w, reason, "denied")
        }
    }

    /// A reload of instance `w` at `t`: a new timeline, and the next timeline request.
    func reload(_ w: Int, _ reason: ReloadReason, charged: Bool, at t: SimTime, day: Int, queue: inout EventQueue<PersonEvent>) {
        counts[day, widget: w, WidgetCounter.reload(reason)] += 1
        counts[day, widget: w, .energyMilli] += cost[w]
        if charged {
            counts[day, widget: w, .charged] += 1
            if exhaustedSince[w] != .max {
                addExhausted(w, from: exhaustedSince[w], to: t)
                exhaustedSince[w] = .max
            }
        }
        let fresh = firstUnshownRandom[w] != .max
        firstUnshownRandom[w] = .max
        hadReload[w] = true
        let coverageEnd = t + horizon[w]
        firstUncovered[w] = firstPredictableChange(w, after: coverageEnd)
        newRelevance(w, at: t, fresh: fresh, coverageEnd: coverageEnd)
        queue.cancel(slot: backgroundSlot(w))
        switch reloadPolicy[w] {
        case .after(let interval):
            queue.schedule(at: t + interval, rank: 6, slot: timelineSlot(w), .timelineDue(Int32(w)))
        case .atEnd:
            queue.schedule(at: coverageEnd, rank: 6, slot: timelineSlot(w), .timelineDue(Int32(w)))
        case .never:
            queue.cancel(slot: timelineSlot(w))
        }
        budget.didReload(instance: w, charged: charged, at: t)
        traceRequest(t, w, reason, charged ? "reloaded, charged" : "reloaded, free")
    }

    /// The first periodic or scheduled change of `w` strictly after `t`, or `.max`.
    func firstPredictableChange(_ w: Int, after t: SimTime) -> SimTime {
        var first = SimTime.max
        let period = periodic[w]
        if period > 0 { first = (t / period + 1) * period }
        let s = world.scheduled[w]
        var lo = 0, hi = s.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if s[mid] <= t { lo = mid + 1 } else { hi = mid }
        }
        if lo < s.count { first = min(first, s[lo]) }
        return first
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

    /// The relevance the new timeline of `w` carries, and its scores into the history.
    func newRelevance(_ w: Int, at t: SimTime, fresh: Bool, coverageEnd: SimTime) {
        relevanceItems[w].removeAll(keepingCapacity: true)
        let m = memberOf[w]
        switch scenario.widgets[w].relevance {
        case .none:
            relevanceBaseline[w] = nil
        case .constant(let score):
            relevanceBaseline[w] = score
            if m >= 0 { history.recordRelevance(member: m, score: score) }
        case .scheduled(let score, let baseline, let lead, let duration):
            relevanceBaseline[w] = baseline
            if m >= 0 { history.recordRelevance(member: m, score: baseline) }
            let s = world.scheduled[w]
            var lo = 0, hi = s.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if s[mid] + duration <= t { lo = mid + 1 } else { hi = mid }
            }
            var i = lo
            while i < s.count && s[i] - lead <= coverageEnd {
                relevanceItems[w].append((max(t, s[i] - lead), s[i] + duration, score))
                if m >= 0 { history.recordRelevance(member: m, score: score) }
                i += 1
            }
        case .breaking(let score, let baseline, let duration):
            relevanceBaseline[w] = baseline
            if fresh {
                relevanceItems[w].append((t, t + duration, score))
                if m >= 0 { history.recordRelevance(member: m, score: score) }
            } else if m >= 0 {
                history.recordRelevance(member: m, score: baseline)
            }
        }
    }

    func currentRelevance(_ w: Int, at t: SimTime) -> Double? {
        guard hadReload[w], let baseline = relevanceBaseline[w] else { return nil }
        for item in relevanceItems[w] where item.start <= t && t < item.end {
            return item.score
        }
        return baseline
    }

    // MARK: - Views

    /// The first change `w` does not show at `t`, or nil when it is up to date.
    @inline(__always)
    func staleSince(_ w: Int, at t: SimTime) -> SimTime? {
        let first = min(firstUnshownRandom[w], firstUncovered[w])
        return first <= t ? first : nil
    }

    func seen(_ w: Int, at t: SimTime, day: Int) -> Bool {
        counts[day, widget: w, .views] += 1
        budget.didView(instance: w, at: t)
        if let since = staleSince(w, at: t) {
            counts[day, widget: w, .staleViews] += 1
            counts[day, widget: w, .stalenessMs] += t - since
            return true
        }
        return false
    }

    func view(_ v: ViewRecord, index: Int, at t: SimTime, day: Int, queue: inout EventQueue<PersonEvent>) {
        counts[day, .views] += 1
        for w in standalone { _ = seen(w, at: t, day: day) }
        let n = members.count
        guard n > 0 else { return }
        let hour = Int(v.hour), weekday = Int(v.weekday)
        order.removeAll(keepingCapacity: true)
        for k in 0 ..< n { order.append(k) }
        if scenario.stack.smartRotate {
            for k in 0 ..< n { history.currentRelevance[k] = currentRelevance(members[k], at: t) }
            let context = ViewContext(
                time: t, hour: hour, weekday: weekday,
                groundTruthInterest: UnsafeBufferPointer(start: interestBase! + index * n, count: n))
            ranking.rank(context, history: history, order: &order)
        }
        let top = order[0]
        let topStale = seen(members[top], at: t, day: day)
        if topStale { counts[day, .staleTopViews] += 1 }
        let wanted = Int(v.wanted)
        counts[day, .bestChanceNano] += v.bestChanceNano
        counts[day, .wantedChanceNano] += v.wantedChanceNano
        if wanted >= 0 {
            counts[day, .viewsWanted] += 1
            let position = order.firstIndex(of: wanted)!
            if position == 0 { counts[day, .hits] += 1 }
            if position < 3 { counts[day, .top3Hits] += 1 }
            counts[day, .reciprocalRank2520] += Int64(2520 / (position + 1))
        }
        if let previous = lastTop, previous != top {
            counts[day, .rotations] += 1
            if wanted == top { counts[day, .rotationHits] += 1 }
            if topStale { counts[day, .rotationsToStale] += 1 }
        }
        lastTop = top
        var swipedTo: Int? = nil
        if wanted >= 0 && wanted != top && v.wouldSwipe {
            swipedTo = wanted
            counts[day, .swipes] += 1
            _ = seen(members[wanted], at: t, day: day)
        }
        var tapped: Int? = nil
        let shown = swipedTo ?? top
        if wanted == shown && v.wouldTap && interactive[members[shown]] {
            tapped = shown
            counts[day, .taps] += 1
        }
        if trace != nil {
            var text = "top \(scenario.widgets[members[top]].id)"
            text += wanted >= 0 ? ", wanted \(scenario.widgets[members[wanted]].id)" : ", nothing wanted"
            if topStale { text += ", stale" }
            if let s = swipedTo { text += ", swiped to \(scenario.widgets[members[s]].id)" }
            if tapped != nil { text += ", tapped" }
            traceEvent(t, .view, widget: -1, text)
        }
        history.recordView(top: top, swipedTo: swipedTo, tapped: tapped, hour: hour, weekday: weekday)
        if scenario.stack.smartRotate {
            ranking.observe(
                ViewOutcome(time: t, hour: hour, weekday: weekday, top: top, swipedTo: swipedTo, tapped: tapped != nil),
                history: history)
        }
        if let tapped { request(members[tapped], .interaction, at: t, day: day, queue: &queue) }
    }

    // MARK: - Trace

    @inline(__always)
    func traceEvent(_ t: SimTime, _ p: WorldProcess, widget: Int, _ text: @autoclosure () -> String) {
        guard let trace else { return }
        trace.record(time: t, person: world.person, event: p.label,
                     widget: widget >= 0 ? scenario.widgets[widget].id : "", decision: text())
    }

    @inline(__always)
    func traceRequest(_ t: SimTime, _ w: Int, _ reason: ReloadReason, _ text: @autoclosure () -> String) {
        guard let trace else { return }
        trace.record(time: t, person: world.person, event: "reload_request_\(reason.label)",
                     widget: scenario.widgets[w].id, decision: text())
    }
}
