import WidgetSimKernel

/// A widget's predictable content changes (MODEL §2): every `period` from the start
/// (0: none) and the sorted scheduled times. Random changes are not here: no timeline
/// can hold them.
struct PredictableChanges {
    var period: Int64
    var scheduled: [SimTime]

    /// The first change strictly after `t`, or `.max`.
    @inline(__always)
    func first(after t: SimTime) -> SimTime {
        var first = SimTime.max
        if period > 0 { first = (t / period + 1) * period }
        var lo = 0, hi = scheduled.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if scheduled[mid] <= t { lo = mid + 1 } else { hi = mid }
        }
        if lo < scheduled.count { first = min(first, scheduled[lo]) }
        return first
    }
}

/// The content side of the timeline a widget's provider returned at its latest
/// reload (MODEL §3), walked forward as views ask for it.
///
/// Rule: a reload at r with horizon h and entry spacing s returns entries e₀ = r and
/// eₖ₊₁ = max(c, eₖ + s), c the first predictable change after eₖ, as long as
/// eₖ₊₁ ≤ r + h. So entries are at least s apart: changes closer than s after an
/// entry are coalesced into the next one, which shows them all. The content shown at
/// t is that of the latest entry e ≤ t, which shows every predictable change up to
/// e; a view at t is stale when a predictable change falls in (e, t] (from that
/// change on), whether it waits for a coalesced entry or lies past the horizon.
///
/// Every operation is O(log scheduled) per entry passed; nothing is allocated.
struct ContentTimeline {
    /// The end of the horizon: no entry is later.
    var coverageEnd: SimTime = .max
    var spacing: Int64 = 0
    /// The latest entry reached so far, and the next one (`.max`: none).
    var entry: SimTime = 0
    var nextEntry: SimTime = .max
    /// The first predictable change after `entry`: what the widget does not show yet.
    var firstUnshown: SimTime = .max

    init() {}

    /// The timeline of a reload at `t`.
    init(reloadAt t: SimTime, horizon: Int64, spacing: Int64, changes: PredictableChanges) {
        coverageEnd = t + horizon
        self.spacing = spacing
        enter(t, changes: changes)
    }

    /// Makes `e` the current entry.
    @inline(__always)
    private mutating func enter(_ e: SimTime, changes: PredictableChanges) {
        entry = e
        firstUnshown = changes.first(after: e)
        nextEntry = Self.next(after: e, firstUnshown: firstUnshown, spacing: spacing, end: coverageEnd)
    }

    @inline(__always)
    static func next(after e: SimTime, firstUnshown c: SimTime, spacing: Int64, end: SimTime) -> SimTime {
        guard c != .max else { return .max }
        let n = max(c, e + spacing)
        return n <= end ? n : .max
    }

    /// Moves to the latest entry at or before `t` (times must not go backwards).
    @inline(__always)
    mutating func advance(to t: SimTime, changes: PredictableChanges) {
        while nextEntry <= t { enter(nextEntry, changes: changes) }
    }

    /// The first predictable change the widget does not show at `t`, or nil when it
    /// shows them all. Call `advance(to: t)` first.
    @inline(__always)
    func staleSince(at t: SimTime) -> SimTime? { firstUnshown <= t ? firstUnshown : nil }

    /// The date of the timeline's last entry (walks the entries ahead of the current one
    /// without moving it).
    func lastEntry(changes: PredictableChanges) -> SimTime {
        var e = entry, n = nextEntry
        while n != .max {
            e = n
            n = Self.next(after: e, firstUnshown: changes.first(after: e), spacing: spacing, end: coverageEnd)
        }
        return e
    }
}
