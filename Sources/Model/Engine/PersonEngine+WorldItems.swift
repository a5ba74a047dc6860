import WidgetSimKernel

/// The world's items as the run meets them (MODEL §2, §3): time and environment changes,
/// content changes, pushes, app sessions and donations, additions, audio and StandBy,
/// each handled in line in the run loop, its rarer parts out of line.
extension PersonEngine {
    /// The world's item of process `p` at `t`, in a run whose views are of the kind
    /// `Kind`; `seen` holds, for each process whose items are read by their position in
    /// its list, the position of the next one (counted in the cases that read it, by
    /// `WorldPositions.next`).
    @inline(__always)
    func handleWorld<Kind: ViewKind>(_ p: WorldProcess, seen: UnsafeMutablePointer<Int>, key: UInt64, at t: SimTime,
                                     day: Int, items: WorldItems, kind: Kind.Type) {
        // Each case copies what it needs out of `world` before calling on, so no
        // reference to it is held (retained) across those calls.
        assert(day == eventDay, "a world item counted on another day than its own")
        let positions = WorldPositions(seen: seen)
        switch p {
        case .timeChange:
            today[.timeChanges] &+= 1
            traceEvent(Kind.self, t, p, widget: -1, "all_reload", "all widgets reload")
            reloadAll(.timeChange, at: t, day: day)
        case .environmentChange:
            today[.environmentChanges] &+= 1
            traceEvent(Kind.self, t, p, widget: -1, "all_reload", "all widgets reload")
            reloadAll(.environment, at: t, day: day)
        case .contentChange:
            let x = WorldOrder.widget(key)
            today[.contentChanges] &+= 1
            staleness.contentChanged(x, at: t, day: day)
            // A change's position in its list is read only for relevance, which no
            // instance of a plain run has (`plainViews`): counted only in the others.
            if !Kind.plain {
                let i = positions.next(.contentChange)
                if facts[x].hasRelevance { relevance.contentChanged(x, index: i) }
            }
            traceEvent(Kind.self, t, p, widget: x, "content_newer", "content is now newer than the widget shows")
        case .push:
            let x = WorldOrder.widget(key)
            today[.pushes] &+= 1
            let free = pushWhileForegroundIsFree && foreground[appOf[x]] > 0
            let reason: ReloadReason = free ? .foreground : audio[appOf[x]] > 0 ? .audio : .background
            if reason == .background, let why = pushThrottle.deliver(app: appOf[x], at: t) {
                counts[day, refusal: why] &+= 1
                reasons[day, widget: x, refusal: why] &+= 1
                traceEvent(Kind.self, t, p, widget: x, "push_dropped", "dropped by the background push throttle", reason: why.label)
                return
            }
            traceEvent(Kind.self, t, p, widget: x, "push_delivered", reason == .background ? "reload of kind from the background"
                       : reason == .audio ? "audio session running: reload of kind, free" : "app in foreground: reload of kind, free")
            if rankingObserves.contains(.pushes) { tellPush(x, at: t) }
            for k in sameKind.range(x) {
                request(sameKind.items[k], reason, at: t, day: day, reloadInLine: true, noneAdded: Kind.plain)
            }
        case .sessionEnd:
            let x = Int(items.sessionEnds[positions.next(.sessionEnd)].widget)
            foreground[appOf[x]] -= 1
            traceEvent(Kind.self, t, p, widget: x, "app_left", "app leaves the foreground")
        case .sessionStart:
            let session = items.sessions[positions.next(.sessionStart)]
            let x = Int(session.widget)
            today[.sessions] &+= 1
            foreground[appOf[x]] += 1
            if session.donates { donate(session, at: t, day: day) }
            traceEvent(Kind.self, t, p, widget: x, session.donates ? "app_foreground_donated" : "app_foreground",
                       session.donates ? "app in foreground, intent donated" : "app in foreground")
            if budgetObserves.contains(.appUse) {
                for k in sameApp.range(x) { budget.didUseApp(instance: sameApp.items[k], at: t) }
            }
            for k in sameKind.range(x) {
                request(sameKind.items[k], .foreground, at: t, day: day, reloadInLine: true, noneAdded: Kind.plain)
            }
        case .view:
            preconditionFailure("views are read beside the world's order, not from it")
        case .widgetAdded:
            let x = Int(world.additions[positions.next(.widgetAdded)].widget)
            traceEvent(Kind.self, t, p, widget: x, "added", "added to the home screen: first reload, free")
            if budgetObserves.contains(.additions) { budget.didAdd(instance: x, at: t) }
            request(x, .widgetAdded, at: t, day: day)
        case .audioStart:
            let x = Int(world.audioStarts[positions.next(.audioStart)].widget)
            today[.audioSessions] &+= 1
            audio[appOf[x]] += 1
            traceEvent(Kind.self, t, p, widget: x, "audio_reload", "audio or navigation session: the app's widgets reload, free")
            for k in sameApp.range(x) { request(sameApp.items[k], .audio, at: t, day: day) }
        case .audioEnd:
            let x = Int(world.audioEnds[positions.next(.audioEnd)].widget)
            audio[appOf[x]] -= 1
            traceEvent(Kind.self, t, p, widget: x, "audio_ended", "audio or navigation session ends")
        case .standByStart:
            traceEvent(Kind.self, t, p, widget: -1, "standby_refresh", "StandBy: the system refreshes the display, free")
            queue.schedule(at: t, rank: Self.queuedRank, slot: standBySlot, .standByRefresh)
        case .standByEnd:
            queue.cancel(slot: standBySlot)
            traceEvent(Kind.self, t, p, widget: -1, "standby_ended", "StandBy ends")
        }
    }

    /// A StandBy display refresh at `t`: every widget reloads, free, and the next refresh
    /// comes one interval on (cancelled when StandBy ends). The widget's own reload
    /// policy plays no part (MODEL §2).
    @inline(never)
    func standByRefresh(at t: SimTime, day: Int) {
        for x in 0 ..< widgetCount { request(x, .standBy, at: t, day: day) }
        queue.schedule(at: t + standByRefreshMs, rank: Self.queuedRank, slot: standBySlot, .standByRefresh)
    }

    /// Tells the ranking of a push delivered at `t` to the app of instance `x`: every
    /// stack member of that app (kept out of `run`'s loop).
    @inline(never)
    func tellPush(_ x: Int, at t: SimTime) {
        for k in sameApp.range(x) {
            let m = memberOf[sameApp.items[k]]
            if m >= 0 { ranking.observePush(member: m, at: t) }
        }
    }

    /// The intent `session` donates (kept out of `run`'s loop, where the world's items
    /// are handled in line).
    @inline(never)
    func donate(_ session: SessionRecord, at t: SimTime, day: Int) {
        assert(day == eventDay, "a donation counted on another day than its session's")
        today[.donations] &+= 1
        // The intent reaches the stack only when it matches a configured member.
        let target = Int(session.donatedInstance)
        guard target >= 0 else { return }
        // The world draws the donated instance below the widget count (`memberOf`'s).
        assert(target < memberOf.count, "a donated instance out of range")
        let m = memberOf.withUnsafeBufferPointer { $0[target] }
        if m >= 0 {
            history.recordDonation(member: m, at: t, hour: Int(session.hour), weekday: Int(session.weekday))
            if rankingObserves.contains(.donations) {
                ranking.observeDonation(member: m, at: t, hour: Int(session.hour), weekday: Int(session.weekday))
            }
        }
        suggestions?.observeDonation(instance: target, at: t)
    }
}

/// The position in its list of each process's next item, for the processes whose items
/// the run reads by position (sessions, additions, audio, content changes): counted only
/// by the cases that read it, at a fixed place for each process.
struct WorldPositions {
    let seen: UnsafeMutablePointer<Int>

    /// The position of `p`'s item being handled; the next one's after it.
    @inline(__always)
    func next(_ p: WorldProcess) -> Int {
        let i = seen[p.rawValue]
        seen[p.rawValue] = i &+ 1
        return i
    }
}
