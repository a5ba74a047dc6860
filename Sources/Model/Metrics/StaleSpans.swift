/// Counts `staleMemberViews` (views at which a stack member's content was stale, MODEL §6)
/// by spans of views rather than at every view, for members whose staleness changes only
/// at events: a random content change makes the member stale, a reload makes it fresh
/// (members with predictable content go stale as time passes and are checked at each
/// view instead).
///
/// Views are numbered in the order they happen. A member that turns stale when `n` views
/// have happened is stale at views `n, n + 1, …` until it turns fresh when `m` have: the
/// span `[n, m)`, which is split between the days its views fall on (the first view of
/// each day is remembered as it passes). Every view in a span is one the engine would
/// have counted stale at the view itself, so the totals are the same.
final class StaleSpans {
    /// Views so far: the number of the next view.
    @exclusivity(unchecked) private(set) var views: Int64 = 0
    /// The number of the first view of each day (`views` when the day was first met);
    /// set for days `0 ..< daysMet`.
    private let dayStart: FlatBuffer<Int64>
    @exclusivity(unchecked) private var daysMet = 0
    /// Per widget: the number of the first view of its open span, or −1 when fresh; and
    /// the day it opened.
    private let spanStart: FlatBuffer<Int64>
    private let spanDay: FlatBuffer<Int>

    init(days: Int, widgets: Int) {
        dayStart = FlatBuffer(count: days + 1, repeating: 0)
        spanStart = FlatBuffer(count: widgets, repeating: -1)
        spanDay = FlatBuffer(count: widgets, repeating: 0)
    }

    /// Starts a run: no view yet, every member fresh.
    func reset() {
        views = 0
        daysMet = 0
        for w in 0 ..< spanStart.count { spanStart[w] = -1 }
    }

    /// Remembers where `day` (and any day skipped before it) starts (once a day: kept
    /// out of line).
    @inline(never)
    private func meet(_ day: Int) {
        while daysMet <= day {
            dayStart[daysMet] = views
            daysMet += 1
        }
    }

    /// A view on `day`.
    @inline(__always)
    func viewed(day: Int) {
        if daysMet <= day { meet(day) }
        views += 1
    }

    /// Widget `w` turned stale on `day`.
    @inline(__always)
    func turnedStale(_ w: Int, day: Int) {
        if daysMet <= day { meet(day) }
        spanStart[w] = views
        spanDay[w] = day
    }

    /// Widget `w` turned fresh on `day`, if it was stale: its span's views are counted
    /// into `counts`, day by day.
    @inline(__always)
    func turnedFresh(_ w: Int, day: Int, counts: RunningCounts) {
        let start = spanStart[w]
        guard start >= 0 else { return }
        spanStart[w] = -1
        if daysMet <= day { meet(day) }
        let first = spanDay[w]
        if first == day {
            counts[day, widget: w, .staleMemberViews] += views - start
            return
        }
        for d in first ... day {
            let low = max(start, dayStart[d])
            let high = d == day ? views : min(views, dayStart[d + 1])
            if high > low { counts[d, widget: w, .staleMemberViews] += high - low }
        }
    }

    /// Closes every open span at the end of a run whose last day is `lastDay`.
    func finish(lastDay: Int, counts: RunningCounts) {
        for w in 0 ..< spanStart.count { turnedFresh(w, day: lastDay, counts: counts) }
    }
}
