import WidgetSimKernel

/// Staleness (MODEL §6): whether the content an instance shows is older than its app's,
/// and the counters that follow from it at views (`staleViews`, `stalenessMs`,
/// `staleMemberViews`). The one place that decides an instance is stale and counts it:
/// the engine tells it of random content changes, reloads and views.
///
/// An instance is stale at `t` from the first change it does not show: a random change
/// since its last reload, or a predictable change its timeline shows late or not at all
/// (`ContentTimeline`).
///
/// The stack members' stale views are counted in one of two ways, with the same totals.
/// A member whose staleness changes only at events (`InstanceFacts.spanned`: a random
/// change makes it stale, a reload fresh) is counted by spans of views: views are
/// numbered in the order they happen, and a member that turns stale when `n` views have
/// happened is stale at views `n, n + 1, …` until it turns fresh when `m` have: the span
/// `[n, m)`, which is split between the days its views fall on (the first view of each
/// day is remembered as it passes). Every view in a span is one that would have been
/// counted stale at the view itself. The other members (`checkedMembers`, with
/// predictable content, which goes stale as time passes) are checked at each view.
final class Staleness {
    let counts: RunningCounts
    /// The engine's instances: `firstUnshownRandom` is read and written here alone; the
    /// timeline is walked forward here as views ask for it.
    let instances: UnsafeMutablePointer<InstanceState>
    let facts: UnsafeMutablePointer<InstanceFacts>
    /// The stack members that are not `spanned`, checked at every view (when none is
    /// added during the run).
    let checkedMembers: [Int]
    /// The run's scheduled changes by instance (the world's), between `begin` and `finish`.
    @exclusivity(unchecked) private var scheduled: [[SimTime]] = []

    /// Views of the stack so far: the number of the next view.
    @exclusivity(unchecked) private(set) var views: Int64 = 0
    /// The number of the first view of each day (`views` when the day was first met);
    /// set for days `0 ..< daysMet`.
    private let dayStart: UnsafeMutablePointer<Int64>
    @exclusivity(unchecked) private var daysMet = 0
    /// Per instance: the number of the first view of its open span, or −1 when fresh;
    /// and the day it opened.
    private let spanStart: UnsafeMutablePointer<Int64>
    private let spanDay: UnsafeMutablePointer<Int>
    /// The number of instances.
    private let instanceCount: Int
    /// The buffers the pointers above reach into, held here (`FlatBuffer.address`): the
    /// engine's instances and facts, and this object's own.
    private let buffers: [AnyObject]

    init(days: Int, counts: RunningCounts, instances: FlatBuffer<InstanceState>, facts: FlatBuffer<InstanceFacts>,
         members: [Int]) {
        self.counts = counts
        self.instances = instances.address
        self.facts = facts.address
        checkedMembers = members.filter { !facts[$0].spanned }
        instanceCount = instances.count
        let dayStart = FlatBuffer<Int64>(count: days + 1, repeating: 0)
        let spanStart = FlatBuffer<Int64>(count: instances.count, repeating: -1)
        let spanDay = FlatBuffer<Int>(count: instances.count, repeating: 0)
        (self.dayStart, self.spanStart, self.spanDay) = (dayStart.address, spanStart.address, spanDay.address)
        buffers = [instances, facts, dayStart, spanStart, spanDay]
    }

    /// Starts a run whose scheduled changes are `scheduled`: no view yet, every instance
    /// fresh (the engine resets `instances`), day 0 started.
    func begin(scheduled: [[SimTime]]) {
        self.scheduled = scheduled
        views = 0
        daysMet = 0
        meet(0)
        for w in 0 ..< instanceCount { spanStart[w] = -1 }
    }

    /// Day `day` of the run starts, before any of its events is told here (the engine
    /// calls it at the first event of each later day): where it starts among the views
    /// is remembered, for it and for any day skipped before it. The events of a day are
    /// then counted with no test of whether their day has started.
    @inline(__always)
    func startDay(_ day: Int) {
        if daysMet <= day { meet(day) }
    }

    /// Closes every open span at the end of a run whose last day is `lastDay`, and lets
    /// go of the run's scheduled changes (the world reuses their storage).
    func finish(lastDay: Int) {
        startDay(lastDay)
        let today = counts.day(lastDay)
        for w in 0 ..< instanceCount { closeSpan(w, day: lastDay, row: today.row(widget: w)) }
        scheduled = []
    }

    /// The predictable changes of `w` (only for an instance that has some).
    @inline(__always)
    func predictableChanges(_ w: Int) -> PredictableChanges {
        PredictableChanges(period: facts[w].periodic, scheduled: scheduled[w])
    }

    // MARK: - Events

    /// A random content change of `w` at `t`, on `day`: it is stale from the first one
    /// it does not show.
    @inline(__always)
    func contentChanged(_ w: Int, at t: SimTime, day: Int) {
        if instances[w].firstUnshownRandom == .max {
            instances[w].firstUnshownRandom = t
            if facts[w].spanned { openSpan(w, day: day) }
        }
    }

    /// A reload of `w` on `day`, whose counters of `w` are `row`
    /// (`counts.day(day).row(widget: w)`): it shows every random change so far. Returns
    /// whether there was one it did not show.
    @inline(__always)
    func reloaded(_ w: Int, day: Int, row: WidgetRow) -> Bool {
        let unshown = instances[w].firstUnshownRandom != .max
        instances[w].firstUnshownRandom = .max
        if unshown && facts[w].spanned { closeSpan(w, day: day, row: row) }
        return unshown
    }

    // MARK: - Views

    /// The first change `w` does not show at `t`, or nil when it is up to date. Views
    /// come in time order. In a plain view (`plain`, see `PersonEngine.plainViews`), `w`
    /// is a stack member with no predictable content.
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

    /// A view of `w` at `t` (shown on screen), on the day whose counters are `today`:
    /// counts it stale, with how long, when it is; returns whether it is. `plain` as for
    /// `staleSince`.
    @inline(__always)
    func countShown(_ w: Int, at t: SimTime, today: DayCounts, plain: Bool = false) -> Bool {
        if let since = staleSince(w, at: t, plain: plain) {
            countStale(w, since: since, at: t, today: today)
            return true
        }
        return false
    }

    /// A view of `w` at `t` that shows content stale since `since`, counted in `today`
    /// (the counters of the view's day).
    @inline(__always)
    func countStale(_ w: Int, since: SimTime, at t: SimTime, today: DayCounts) {
        let row = today.row(widget: w)
        row[.staleViews] &+= 1
        row[.stalenessMs] += t - since
    }

    /// The first random change `w` does not show, or `.max` when it shows them all: in
    /// a plain view, what `staleSince` reads.
    @inline(__always)
    func firstUnshownRandom(_ w: Int) -> SimTime { instances[w].firstUnshownRandom }

    /// A view of the stack at `t` with every member in it (none added during the run):
    /// the `spanned` members' stale views are counted by span, the `checkedMembers`' here.
    /// In a plain view there are none of the latter.
    @inline(__always)
    func countMembers(at t: SimTime, day: Int, plain: Bool) {
        assert(daysMet > day, "a view on a day not started (startDay)")
        views &+= 1
        if !plain && !checkedMembers.isEmpty { countCheckedMembers(at: t, day: day) }
    }

    /// A view of the stack at `t` that sees member `w` (with members added during the
    /// run, each seen once added): its stale view, when it is.
    @inline(__always)
    func countMember(_ w: Int, at t: SimTime, day: Int) {
        if staleSince(w, at: t) != nil { counts[day, widget: w, .staleMemberViews] &+= 1 }
    }

    /// The stale views of the `checkedMembers` at a view.
    @inline(never)
    private func countCheckedMembers(at t: SimTime, day: Int) {
        for k in 0 ..< checkedMembers.count where staleSince(checkedMembers[k], at: t) != nil {
            counts[day, widget: checkedMembers[k], .staleMemberViews] += 1
        }
    }

    // MARK: - Spans

    /// Remembers where `day` (and any day skipped before it) starts (`startDay`, once a
    /// day: kept out of line).
    @inline(never)
    private func meet(_ day: Int) {
        while daysMet <= day {
            dayStart[daysMet] = views
            daysMet += 1
        }
    }

    /// Spanned member `w` turned stale on `day`.
    @inline(__always)
    private func openSpan(_ w: Int, day: Int) {
        assert(daysMet > day, "a change on a day not started (startDay)")
        spanStart[w] = views
        spanDay[w] = day
    }

    /// `w` turned fresh on `day` (whose counters of `w` are `row`), if its span is open:
    /// the span's views are counted, day by day.
    @inline(__always)
    private func closeSpan(_ w: Int, day: Int, row: WidgetRow) {
        let start = spanStart[w]
        guard start >= 0 else { return }
        spanStart[w] = -1
        assert(daysMet > day, "a reload on a day not started (startDay)")
        let first = spanDay[w]
        if first == day {
            row[.staleMemberViews] += views - start
            return
        }
        for d in first ... day {
            let low = max(start, dayStart[d])
            let high = d == day ? views : min(views, dayStart[d + 1])
            if high > low { counts[d, widget: w, .staleMemberViews] += high - low }
        }
    }
}
