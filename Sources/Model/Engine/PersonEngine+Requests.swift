import WidgetSimKernel

/// Reload requests and reloads (MODEL §3): free reasons are granted at once, charged ones
/// go to the budget policy, which grants, defers or denies them; a background request
/// is coalesced into one already pending; a deferred request waits in its slot of the
/// queue, one per instance. A reload renews the instance's timeline and schedules its
/// next timeline request.
extension PersonEngine {
    /// A reload request of instance `w`: free reasons are granted at once; charged ones
    /// go to the budget policy.
    ///
    /// With `reloadInLine`, a granted reload is made in line (`reloadBody`) rather than
    /// by calling `reload`: for the timeline requests from the queue, most of the events,
    /// and the pushes and app sessions of the world, most of the others. With
    /// `noneAdded`, the caller knows that no instance is added during the run (a plain
    /// run's), which is then not tested.
    @inline(__always)
    func request(_ w: Int, _ reason: ReloadReason, at t: SimTime, day: Int,
                 reloadInLine: Bool = false, noneAdded: Bool = false) {
        // An instance not yet added does not exist.
        assert(!noneAdded || !anyAdded, "a request told that no instance is added, in a run that adds some")
        if !noneAdded && anyAdded && t < addedAt[w] { return }
        guard reason.isCharged else {
            if reloadInLine {
                reloadBody(w, reason, charged: false, at: t, day: day)
            } else {
                reload(w, reason, charged: false, at: t, day: day)
            }
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

    /// A request of every instance for `reason`, a free one (a time or environment
    /// change): each granted reload made in line here, out of the run loop, rather than
    /// by a call of `reload` per instance.
    @inline(never)
    func reloadAll(_ reason: ReloadReason, at t: SimTime, day: Int) {
        assert(!reason.isCharged, "reloadAll with a charged reason")
        for x in 0 ..< widgetCount { request(x, reason, at: t, day: day, reloadInLine: true) }
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
            queue.schedule(at: due, rank: Self.queuedRank, slot: timelineSlot(w), .timelineDue(Int32(truncatingIfNeeded: w)))
        } else {
            queue.schedule(at: due, rank: Self.queuedRank, slot: backgroundSlot(w), .backgroundRetry(Int32(truncatingIfNeeded: w)))
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
        assert(day == eventDay, "a reload counted on another day than its event's")
        let row = today.row(widget: w)
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
        let fresh = staleness.reloaded(w, day: day, row: row)
        instances[w].hadReload = true
        let held = pending[w]
        pending[w] = PendingRequest()
        // The background slot holds a retry only while a request is pending (`deferRequest`).
        assert(!held.isEmpty || !retryQueued(w), "a background retry queued with no request pending")
        if !held.isEmpty { cancelRetry(w) }
        let interval = facts[w].plainAfter
        if interval > 0 {
            // A scenario's durations are at most about 100 000 years (`DurationText`):
            // a time of the run plus one stays far from Int64's end, unchecked.
            queue.scheduleInLine(at: t &+ interval, rank: Self.queuedRank, slot: timelineSlot(w), .timelineDue(Int32(truncatingIfNeeded: w)))
        } else {
            renewTimelines(w, at: t, fresh: fresh)
            scheduleTimelineRequest(w, at: t)
        }
        if reloadsHeard { hear(w, reason, charged: charged, changed: fresh, at: t) }
    }

    /// The reload of `w` at `t` told to the budget, as far as it observes reloads and
    /// renders, and traced, when the trace is on (`reloadsHeard`; kept out of `reload`).
    @inline(never)
    func hear(_ w: Int, _ reason: ReloadReason, charged: Bool, changed: Bool, at t: SimTime) {
        if !budgetObserves.isDisjoint(with: [.reloads, .renders]) { tellBudget(w, charged: charged, changed: changed, at: t) }
        if activeTrace != nil { traceReload(t, w, reason, charged: charged) }
    }

    /// Removes the background retry of `w`, if one is queued (kept out of `reload`: a
    /// reload finds a request pending only after a refusal).
    @inline(never)
    func cancelRetry(_ w: Int) {
        queue.cancel(slot: backgroundSlot(w))
    }

    /// Whether a background retry of `w` is queued (for `reloadBody`'s assertion).
    @inline(never)
    func retryQueued(_ w: Int) -> Bool {
        queue.pendingTime(slot: backgroundSlot(w)) != nil
    }

    /// Tells the budget of a reload of `w` at `t`, and what its rendering showed, as far
    /// as it observes them (kept out of `reload`: most budgets observe neither).
    @inline(never)
    func tellBudget(_ w: Int, charged: Bool, changed: Bool, at t: SimTime) {
        if budgetObserves.contains(.reloads) { budget.didReload(instance: w, charged: charged, at: t) }
        if budgetObserves.contains(.renders) {
            budget.didRender(instance: w, changed: changed || replacedRanOut, at: t)
            replacedRanOut = false
        }
    }

    /// The new timeline of `w` reloaded at `t`: its predictable content and its relevance,
    /// if it has either (kept out of `reload`, whose widgets often have neither).
    @inline(never)
    func renewTimelines(_ w: Int, at t: SimTime, fresh: Bool) {
        if facts[w].hasPredictable {
            if budgetObserves.contains(.renders) {
                var old = instances[w].timeline
                old.advance(to: t, changes: staleness.predictableChanges(w))
                replacedRanOut = old.staleSince(at: t) != nil
            }
            instances[w].timeline = ContentTimeline(
                reloadAt: t, horizon: facts[w].horizon, spacing: facts[w].entrySpacing, changes: staleness.predictableChanges(w))
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
            queue.schedule(at: t + interval, rank: Self.queuedRank, slot: timelineSlot(w), .timelineDue(Int32(truncatingIfNeeded: w)))
        case .atEnd:
            // After the last entry's date; a timeline of one entry asks again one entry
            // spacing after the reload, not at once.
            let last = facts[w].hasPredictable ? instances[w].timeline.lastEntry(changes: staleness.predictableChanges(w)) : t
            queue.schedule(at: max(last, t + facts[w].entrySpacing), rank: Self.queuedRank, slot: timelineSlot(w), .timelineDue(Int32(truncatingIfNeeded: w)))
        case .never:
            queue.cancel(slot: timelineSlot(w))
        }
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

    /// Each instance's energy of each day: its reloads of the day, whatever the reason,
    /// times the energy of one (`reload` counts the reloads only). Written into the
    /// running counts, row by row in place, before they are copied out.
    func fillEnergy() {
        // The reload counters, one per reason, open each row.
        let reasons = ReloadReason.allCases.count
        assert(ReloadReason.allCases.allSatisfy { WidgetCounter.reload($0).rawValue < reasons },
               "a reload counter outside the first of a row")
        let energy = WidgetCounter.energyMilli.rawValue
        var row = counts.widget
        for _ in 0 ..< counts.days {
            for w in 0 ..< widgetCount {
                var reloads: Int64 = 0
                for c in 0 ..< reasons { reloads &+= row[c] }
                row[energy] = reloads * facts[w].cost
                row += WidgetCounter.count
            }
        }
    }
}
