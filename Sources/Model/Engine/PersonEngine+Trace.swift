import WidgetSimKernel

/// The trace's lines (`TraceLine`, `--trace`): what the engine decided at each event and
/// why, in words and reason codes. Made only while a trace is on (`activeTrace`), out
/// of the lines that run at every event.
extension PersonEngine {
    /// The trace line of world event `p` at `t` (of `widget`, or −1 for none), in a run
    /// whose views are of the kind `Kind`: never traced when plain (a traced run takes
    /// the general view, `run`), so that its items do not test the trace.
    @inline(__always)
    func traceEvent<Kind: ViewKind>(_ kind: Kind.Type, _ t: SimTime, _ p: WorldProcess, widget: Int,
                                    _ decision: @autoclosure () -> String, _ detail: @autoclosure () -> String,
                                    reason: @autoclosure () -> String = "") {
        guard !Kind.plain, let trace = activeTrace else { return }
        trace.record(traceLine(t, event: p.label, widget: widget, decision: decision(), detail: detail(), reason: reason()))
    }

    /// The trace line of a reload request of `w` for `reason` at `t` (deferred `until`).
    @inline(__always)
    func traceRequest(_ t: SimTime, _ w: Int, _ reason: ReloadReason, _ decision: @autoclosure () -> String, until: SimTime? = nil,
                      _ detail: @autoclosure () -> String, reason why: @autoclosure () -> String = "") {
        guard let trace = activeTrace else { return }
        var line = traceLine(t, event: "reload_request_\(reason.label)", widget: w, decision: decision(), detail: detail(), reason: why())
        line.until = until
        trace.record(line)
    }

    /// The trace line of a reload (kept out of `reload`).
    @inline(never)
    func traceReload(_ t: SimTime, _ w: Int, _ reason: ReloadReason, charged: Bool) {
        traceRequest(t, w, reason, charged ? "reloaded_charged" : "reloaded_free", charged ? "reloaded, charged" : "reloaded, free")
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

    /// A trace line's common fields: the day, the person's local time, the pair.
    @inline(never)
    func traceLine(_ t: SimTime, event: String, widget: Int, decision: String, detail: String, reason: String) -> TraceLine {
        let local = world.clock.localMs(t) % Milliseconds.day
        return TraceLine(time: t, day: Int(t / Milliseconds.day), localSeconds: Int((local + Milliseconds.day) % Milliseconds.day / 1000),
                         person: world.person, pair: tracePair, event: event,
                         widget: widget >= 0 ? scenario.widgets[widget].id : "", decision: decision, detail: detail, reason: reason)
    }
}
