import WidgetSimKernel

/// Pairs that share their sides of a run: of one world, each budget's side is run once
/// and each ranking's once, rather than both once per pair.
///
/// A run has two sides. The budget's: the requests, the budget's decisions, the
/// reloads, the queue, the members' staleness between views, the events. The stack's:
/// what the ranking proposes and the rotation governor puts on top at each view, the
/// swipes, the history they learn from. When every view is plain (`plainViews`), no
/// view can tap a member and the budget does not read the future, neither side reads
/// the other, but for one thing they meet at each view: whether the member shown (on
/// top, or swiped to) is stale. Every pair of one budget (policy and parameters) then
/// runs the same budget's side whatever its ranking, and every pair of one ranking the
/// same stack's side whatever its budget.
///
/// So a pair whose budget's side another engine ran in full over the same world, and
/// whose stack's side a third one did, is joined from theirs (`run(_:budgetFrom:…)`):
/// the engines run in full record, at each view, the first random change each member
/// does not show and the member on top (`recordsViews`); the joined pair reads, at each
/// view, its stack's top in the one and that member's staleness in the other, and
/// counts only what the two sides make together: the stale tops and views on screen,
/// the hits missed for stale content, the rotations to stale content. Every other count
/// is one side's, taken from the engine that ran it.
///
/// Each pair run alone counts the same (tests compare the two).
extension PersonEngine {
    /// Whether this engine's runs can give their sides to a joined pair, or be joined
    /// from others' (`run(_:budgetFrom:counts:stackFrom:counts:)`): its views are plain,
    /// its budget does not read the future, no view can tap a member (no tap
    /// probability, or no interactive member) and nothing is traced.
    public var sharesSides: Bool {
        plainViews && planner == nil && trace == nil
            && !(scenario.person.tapProbability > 0 && members.contains { interactive[$0] })
    }

    /// Runs `world` joined from two runs of it just made with `recordsViews` on: its
    /// budget's side from `budgetRun`'s (which counted `budgetCounts`), its stack's side
    /// from `stackRun`'s (`stackCounts`). The three engines run the same scenario, the
    /// first this engine's budget policy with its parameters, the second its ranking
    /// policy with its parameters, and all three share their sides (`sharesSides`). The
    /// counts are those this engine's own run would give. Its refusals and missed views
    /// by instance are made by `joinedReasons` from the three engines' tallies.
    public func run(_ world: PersonWorld, budgetFrom budgetRun: PersonEngine, counts budgetCounts: PersonCounts,
                    stackFrom stackRun: PersonEngine, counts stackCounts: PersonCounts) -> PersonCounts {
        for source in [budgetRun, stackRun] {
            precondition(source.recordsViews && source.sharesSides && sharesSides && source !== self,
                         "a joined run needs two others that recorded their views")
            precondition(source.recordedPerson.map { $0.person == world.person && $0.replication == world.replication } ?? false,
                         "a record is of another person")
        }
        counts.reset()
        let n = members.count, stride = n &+ 1, end = scenario.durationMs
        let staleRecord = UnsafePointer(budgetRun.viewRecord), topRecord = UnsafePointer(stackRun.viewRecord)
        var previous = -1, day = 0, nextDayStart = Milliseconds.day, today = counts.day(0)
        world.views.withUnsafeBufferPointer { views in
            for i in 0 ..< views.count {
                let v = views[i]
                let t = v.time
                if t >= end { break }
                if t >= nextDayStart {
                    day = Int(t / Milliseconds.day)
                    nextDayStart = SimTime(day + 1) * Milliseconds.day
                    today = counts.day(day)
                }
                let row = i &* stride
                let top = Int(topRecord[row &+ n])
                let wanted = Int(v.wanted) < n ? Int(v.wanted) : -1
                // Stale since its first unshown change, as `Staleness.staleSince` reads it.
                let first = staleRecord[row &+ top]
                let topStale = first <= t
                if topStale {
                    staleness.countStale(members[top], since: first, at: t, today: today)
                    counts[day, .staleTopViews] &+= 1
                    if wanted == top {
                        counts[day, missed: .staleContent] &+= 1
                        reasons[day, wanted: members[wanted], top: members[top], missed: .staleContent] &+= 1
                    }
                    if previous >= 0 && previous != top { counts[day, .rotationsToStale] &+= 1 }
                }
                previous = top
                if wanted >= 0 && wanted != top && v.wouldSwipe {
                    let swiped = staleRecord[row &+ wanted]
                    if swiped <= t { staleness.countStale(members[wanted], since: swiped, at: t, today: today) }
                }
            }
        }
        var result = budgetCounts
        for day in 0 ..< scenario.days {
            for c in Self.stackCounters { result[day, c] = stackCounts[day, c] }
            for c in Self.joinedCounters { result[day, c] = counts[day, c] }
            for r in MissedViewReason.allCases {
                result[day, missed: r] = r == .staleContent ? counts[day, missed: r] : stackCounts[day, missed: r]
            }
            for w in 0 ..< widgetCount {
                result[day, widget: w, .views] = stackCounts[day, widget: w, .views]
                for c in [WidgetCounter.staleViews, .stalenessMs] { result[day, widget: w, c] = counts[day, widget: w, c] }
            }
        }
        return result
    }

    /// The counts of the stack's side alone: the views seen (the world's), the hits and
    /// their ranks, the chances, the rotations, the swipes and taps; with every missed
    /// view's reason but stale content, and each instance's views on screen.
    static let stackCounters: [PersonCounter] = [
        .views, .standByViews, .viewsWanted, .hits, .top3Hits, .reciprocalRank2520, .bestChanceNano,
        .wantedChanceNano, .rotations, .rotationHits, .swipes, .taps,
    ]

    /// The counts both sides make: with the hits missed for stale content, and each
    /// instance's stale views on screen and their staleness.
    static let joinedCounters: [PersonCounter] = [.staleTopViews, .rotationsToStale]

    /// The refusals and missed views by instance of a joined pair over the people of a
    /// block, from the tallies of the engines it was joined from (`budget`'s and
    /// `stack`'s) and its own: the budget's refusals, and the stack's missed views but
    /// those missed for stale content, which are its own (the only ones it tallies).
    public static func joinedReasons(
        budget: (refusals: [Int64], missedViews: [Int64]), stack: (refusals: [Int64], missedViews: [Int64]),
        own: (refusals: [Int64], missedViews: [Int64])
    ) -> (refusals: [Int64], missedViews: [Int64]) {
        var missed = stack.missedViews
        // The reason is the innermost index of the tally (`ReasonTally`).
        for i in Swift.stride(from: Int(MissedViewReason.staleContent.rawValue), to: missed.count, by: MissedViewReason.count) {
            missed[i] = own.missedViews[i]
        }
        return (budget.refusals, missed)
    }

    /// Readies the record of `world`'s views (a run with `recordsViews` on):
    /// `members.count + 1` values per view.
    func beginViewRecord(_ world: PersonWorld) {
        let needed = max(world.views.count * (members.count + 1), 1)
        if viewRecordCapacity < needed {
            viewRecord.deallocate()
            viewRecord = .allocate(capacity: needed)
            viewRecordCapacity = needed
        }
        recordedPerson = (world.person, world.replication)
    }

    /// Records, at view `index`, the first random change each member does not show,
    /// then the member on top.
    @inline(__always)
    func recordView(_ index: Int, top: Int) {
        let n = members.count
        let out = viewRecord + index &* (n &+ 1)
        members.withUnsafeBufferPointer { members in
            for k in 0 ..< n { out[k] = staleness.firstUnshownRandom(members[k]) }
        }
        out[n] = SimTime(top)
    }
}
