import WidgetSimKernel

/// Views of the home screen (MODEL §5, §6): what the stack shows (the ranking proposes,
/// the rotation governor decides the top), what each view counts (views, hits, misses
/// and their reasons, rotations), the person's swipes and taps, the standalone widgets
/// and Widget Suggestions. Staleness at a view is `Staleness`'s.
extension PersonEngine {
    /// View `v` of the home screen (MODEL §5, §6), read in place (`record` points into the
    /// world's views), made once per kind: for plain views (see `plainViews`), where the
    /// tests of what they lack are left out, recorded for pairs joined from this run's
    /// sides (`PersonEngine+SharedSides`) or not; and for all others (see `simulate`).
    /// The record is read field by field where it lies, not copied.
    func view<Kind: ViewKind>(_ record: UnsafePointer<ViewRecord>, index: Int, at t: SimTime, day: Int, kind: Kind.Type) {
        // The settings a plain view knows (constants in its specialization), here read
        // in place of the engine's own.
        let plain = Kind.plain
        let anyAdded = !plain && self.anyAdded
        let smartRotate = plain || self.smartRotate
        let anyMemberRelevance = !plain && self.anyMemberRelevance
        // The view's day is the day of the event being handled: counted through `today`.
        assert(day == eventDay, "a view counted on another day than its own")
        let today = self.today
        today[.views] &+= 1
        if record.pointee.standBy { today[.standByViews] &+= 1 }
        if !plain && !standalone.isEmpty { seeStandalone(at: t, day: day) }
        let n = memberCount
        guard plain || n > 0 else { return }
        // The history holds the relevance entries dated up to now (MODEL §5).
        if anyMemberRelevance { relevance.recordDue(upTo: t, history: history) }
        if anyAdded {
            seeAddedMembers(at: t, day: day)
        } else {
            // Every member is seen at every view: their `memberViews` are the day's views,
            // filled in at the end of the run (`fillMemberViews`).
            staleness.countMembers(at: t, day: day, plain: plain)
        }
        let hour = Int(record.pointee.hour), weekday = Int(record.pointee.weekday)
        // A wanted widget placed nowhere (index n and above) is no member's hit: its
        // miss is counted apart.
        let wanted = Int(record.pointee.wanted) < n ? Int(record.pointee.wanted) : -1
        if Int(record.pointee.wanted) >= n { notInStack(Int(record.pointee.wanted) - n, day: day) }
        // The stack's own top: the person's first member already added.
        var home = 0
        if anyAdded { while home < n - 1 && t < addedAt[members[home]] { home += 1 } }
        var top = home
        // Why the governor kept the members proposed ahead of the top off it.
        var refused: MissedViewReason? = nil
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
                // A plain view reads the record's hour and weekday as one number.
                order = rankedInPlace(hourAndWeekday: plain ? Self.hourAndWeekday(record)
                                      : UInt16(truncatingIfNeeded: hour) | UInt16(truncatingIfNeeded: weekday) << 8)
            } else {
                order = propose(at: t, hour: hour, weekday: weekday, index: index)
            }
            // The ranking proposes; the governor decides what is on top.
            let proposal = UnsafeBufferPointer(start: order, count: n)
            let choice = anyMemberRelevance
                ? governor.choose(proposal, home: home, wanted: wanted, at: t, history: history)
                : governor.chooseWithoutRelevance(proposal, home: home, wanted: wanted, at: t, history: history)
            top = choice.top
            refused = choice.refused
        } else {
            order = propose(at: t, hour: hour, weekday: weekday, index: index)
        }
        if !plain, let suggestions { suggest(suggestions, record.pointee, at: t, day: day) }
        if Kind.recorded { recordView(index, top: top) }
        let topStale = seen(memberInstances[top], at: t, day: day, plain: plain)
        if topStale { today[.staleTopViews] &+= 1 }
        // Each chance is at most 10^9 and each reciprocal rank at most 2520: a day's
        // sums stay far from overflow (9.2 × 10^9 views a day), so they wrap unchecked.
        today[.bestChanceNano] &+= record.pointee.bestChanceNano
        today[.wantedChanceNano] &+= record.pointee.wantedChanceNano
        var missed = MissedViewReason.smartRotateOff
        if wanted >= 0 {
            today[.viewsWanted] &+= 1
            // The position of `wanted` in the order shown: the proposed order with, under
            // Smart Rotate, the top moved to the front (the others keep their order).
            var position = 0
            if wanted != top {
                // `order` is a permutation of the members: it holds `wanted`.
                var topAhead = false
                while order[position] != wanted {
                    if order[position] == top { topAhead = true }
                    position &+= 1
                }
                if smartRotate {
                    if !topAhead { position &+= 1 }
                    // Proposed ahead of the top, `wanted` was kept off it by the governor
                    // (its reason); behind it, by the ranking.
                    assert(topAhead || refused != nil, "proposed ahead of the top, and no reason from the governor")
                    missed = topAhead ? rankedBehind(wanted) : refused ?? rankedBehind(wanted)
                }
            }
            if position == 0 {
                today[.hits] &+= 1
                if topStale {
                    today[missed: .staleContent] &+= 1
                    todayMissed[wanted: memberInstances[wanted], top: memberInstances[top], missed: .staleContent] &+= 1
                }
            } else {
                today[missed: missed] &+= 1
                todayMissed[wanted: memberInstances[wanted], top: memberInstances[top], missed: missed] &+= 1
            }
            if position < 3 { today[.top3Hits] &+= 1 }
            today[.reciprocalRank2520] &+= Self.reciprocalRank2520(position)
        }
        // The previous view's top, kept by the history until `finish` records this one.
        if let previous = history.previousTop, previous != top {
            today[.rotations] &+= 1
            if wanted == top { today[.rotationHits] &+= 1 }
            if topStale { today[.rotationsToStale] &+= 1 }
        }
        let shown = ShownView(
            top: top, wanted: wanted, topStale: topStale, missed: missed,
            observed: !plain && smartRotate && rankingObserves.contains(.views),
            traced: !plain && activeTrace != nil)
        // A plain view reads the two flags as one word (`wouldInteract`); the others
        // one by one, as tests compare the two.
        if plain ? Self.wouldInteract(record) : record.pointee.wouldSwipe || record.pointee.wouldTap {
            interact(record, shown, at: t, day: day)
        } else {
            finish(record, shown, swipedTo: nil, tapped: nil, at: t, day: day)
        }
    }

    /// The hour and the weekday of the view `record` points to, which lie side by side
    /// (asserted by `init`), read by one load: the hour in the low byte.
    @inline(__always)
    static func hourAndWeekday(_ record: UnsafePointer<ViewRecord>) -> UInt16 {
        UInt16(littleEndian: UnsafeRawPointer(record).loadUnaligned(
            fromByteOffset: MemoryLayout<ViewRecord>.offset(of: \.hour).unsafelyUnwrapped, as: UInt16.self))
    }

    /// Whether the person would swipe or tap at the view `record` points to: its two
    /// flags, which lie side by side (asserted by `init`), read by one load.
    @inline(__always)
    static func wouldInteract(_ record: UnsafePointer<ViewRecord>) -> Bool {
        UnsafeRawPointer(record).loadUnaligned(
            fromByteOffset: MemoryLayout<ViewRecord>.offset(of: \.wouldSwipe).unsafelyUnwrapped, as: UInt16.self) != 0
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
        /// Whether the view is traced (never a plain one: a traced run takes the general
        /// `view`, `run`).
        let traced: Bool
    }

    /// What the person does at view `v` that would swipe or tap: swipes to the wanted
    /// member when it is not on top, and taps it when it is shown and interactive; then
    /// `finish` (kept out of `view`, whose every view does neither).
    @inline(never)
    func interact(_ record: UnsafePointer<ViewRecord>, _ shown: ShownView, at t: SimTime, day: Int) {
        let v = record.pointee
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
        finish(record, shown, swipedTo: swipedTo, tapped: tapped, at: t, day: day)
    }

    /// The end of view `v`, once the person swiped to `swipedTo` and tapped `tapped` (or
    /// not): its trace line, the history, the ranking's observation and the tap's reload.
    @inline(__always)
    func finish(_ record: UnsafePointer<ViewRecord>, _ shown: ShownView, swipedTo: Int?, tapped: Int?, at t: SimTime, day: Int) {
        let top = shown.top, hour = Int(record.pointee.hour), weekday = Int(record.pointee.weekday)
        if shown.traced {
            traceView(record.pointee, at: t, top: top, wanted: shown.wanted, topStale: shown.topStale, swipedTo: swipedTo,
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

    /// The person swipes to stack member `m` at a view.
    func swipe(to m: Int, at t: SimTime, day: Int) {
        counts[day, .swipes] &+= 1
        governor.swiped(at: t)
        _ = seen(members[m], at: t, day: day)
    }

    /// Why the ranking proposed `wanted` behind the member on top: no signal for it yet,
    /// or outranked.
    @inline(__always)
    func rankedBehind(_ wanted: Int) -> MissedViewReason {
        let signal = history.donationsFlat[wanted] > 0 || history.relevanceCount(member: wanted) > 0
        return signal ? .outranked : .noSignal
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

    /// Counts a view of `w`, and whether it is stale; `plain` as for
    /// `Staleness.staleSince`, and the budget does not observe views.
    @inline(__always)
    func seen(_ w: Int, at t: SimTime, day: Int, plain: Bool = false) -> Bool {
        assert(day == eventDay, "a view counted on another day than its own")
        today[widget: w, .views] &+= 1
        if !plain && budgetObserves.contains(.views) { budget.didView(instance: w, at: t) }
        return staleness.countShown(w, at: t, today: today, plain: plain)
    }

    /// Counts a view for stack member `w`, and whether its content would be stale if shown.
    @inline(__always)
    func memberSeen(_ w: Int, at t: SimTime, day: Int) {
        counts[day, widget: w, .memberViews] &+= 1
        staleness.countMember(w, at: t, day: day)
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

    /// The current relevance of `w`'s timeline at `t` (none before its first reload).
    func currentRelevance(_ w: Int, at t: SimTime) -> Double? {
        instances[w].hadReload ? relevance.current(w, at: t) : nil
    }
}

/// The kind of a view, known when `PersonEngine.view` is made for it: whether it is
/// plain (`PersonEngine.plainViews`, in a run that is not traced), and whether it is
/// recorded for pairs joined from the run's sides (`PersonEngine+SharedSides`).
protocol ViewKind {
    static var plain: Bool { get }
    static var recorded: Bool { get }
}
extension ViewKind {
    static var recorded: Bool { false }
}
enum PlainView: ViewKind { static var plain: Bool { true } }
enum AnyView: ViewKind { static var plain: Bool { false } }
enum RecordedView: ViewKind {
    static var plain: Bool { true }
    static var recorded: Bool { true }
}
