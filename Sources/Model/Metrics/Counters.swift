/// Counts kept per widget instance per simulated day (MODEL §6). Every metric is a
/// whole number — durations in ms, energy in thousandths — so sums are exact and the
/// same whatever order people, threads or shards are added in.
public enum WidgetCounter: Int, CaseIterable, Sendable {
    case reloadTimeline, reloadBackground, reloadForeground, reloadInteraction
    case reloadTimeChange, reloadEnvironment
    case reloadAudio, reloadWidgetAdded, reloadStandBy
    /// Reloads charged to the budget.
    case charged
    /// Charged requests refused and dropped.
    case denied
    /// Charged requests refused and deferred, and the deferral delays they were given.
    case deferred, deferralMs
    /// Background requests folded into one already pending for the instance.
    case coalesced
    /// Time from a refusal until the next charged grant (the budget was exhausted).
    case exhaustedMs
    /// Energy spent on reloads, in thousandths of a unit.
    case energyMilli
    /// Views at which the instance was on screen (on top of its stack, swiped to, or standalone).
    case views
    /// Of those, views whose content was stale, and the staleness summed.
    case staleViews, stalenessMs
    /// Views of the person while the instance was a stack member, and those at which its
    /// content was stale (what would be stale if it were shown), whatever the ranking put on top.
    case memberViews, staleMemberViews

    public static let count = allCases.count

    /// The reload counter of `reason` (counted at every reload: a switch, not a
    /// failable lookup by raw value).
    @inline(__always)
    public static func reload(_ reason: ReloadReason) -> WidgetCounter {
        switch reason {
        case .timeline: .reloadTimeline
        case .background: .reloadBackground
        case .foreground: .reloadForeground
        case .interaction: .reloadInteraction
        case .timeChange: .reloadTimeChange
        case .environment: .reloadEnvironment
        case .audio: .reloadAudio
        case .widgetAdded: .reloadWidgetAdded
        case .standBy: .reloadStandBy
        }
    }

    /// The CSV column name.
    public var column: String {
        switch self {
        case .reloadTimeline: "reloads_timeline"
        case .reloadBackground: "reloads_background"
        case .reloadForeground: "reloads_foreground"
        case .reloadInteraction: "reloads_interaction"
        case .reloadTimeChange: "reloads_time_change"
        case .reloadEnvironment: "reloads_environment"
        case .reloadAudio: "reloads_audio"
        case .reloadWidgetAdded: "reloads_widget_added"
        case .reloadStandBy: "reloads_standby"
        case .charged: "reloads_charged"
        case .denied: "requests_denied"
        case .deferred: "requests_deferred"
        case .deferralMs: "deferral_ms"
        case .coalesced: "requests_coalesced"
        case .exhaustedMs: "exhausted_ms"
        case .energyMilli: "energy_milli"
        case .views: "views"
        case .staleViews: "stale_views"
        case .stalenessMs: "staleness_ms"
        case .memberViews: "member_views"
        case .staleMemberViews: "stale_member_views"
        }
    }
}

/// Counts kept per person per simulated day: the stack's accuracy and the exogenous
/// world's events (which must not depend on the policies).
public enum PersonCounter: Int, CaseIterable, Sendable {
    /// Events the kernel handled.
    case events
    case views
    /// Views at which some stack member was wanted; top-1 and top-3 hits among them.
    case viewsWanted, hits, top3Hits
    /// Reciprocal rank of the wanted member, × 2520 (so 1/1 … 1/10 are whole numbers).
    case reciprocalRank2520
    /// Σ over views of max P(wanted = member) and of P(some member wanted), × 1e9.
    case bestChanceNano, wantedChanceNano
    /// Changes of the top between consecutive views, those whose new top was wanted,
    /// and those whose new top showed stale content.
    case rotations, rotationHits, rotationsToStale
    /// Views whose top showed stale content.
    case staleTopViews
    case swipes, taps
    case sessions, donations, pushes, contentChanges, timeChanges, environmentChanges
    /// Audio or navigation sessions that started; views during StandBy.
    case audioSessions, standByViews
    /// Views at which Widget Suggestions put a widget from outside the stack on top,
    /// and those of them at which that widget was the wanted one.
    case suggestionsShown, suggestionsWanted

    public static let count = allCases.count

    public var column: String {
        switch self {
        case .events: "events"
        case .views: "views"
        case .viewsWanted: "views_wanted"
        case .hits: "hits"
        case .top3Hits: "top3_hits"
        case .reciprocalRank2520: "reciprocal_rank_x2520"
        case .bestChanceNano: "ceiling_nano"
        case .wantedChanceNano: "wanted_chance_nano"
        case .rotations: "rotations"
        case .rotationHits: "rotation_hits"
        case .rotationsToStale: "rotations_to_stale"
        case .staleTopViews: "stale_top_views"
        case .swipes: "swipes"
        case .taps: "taps"
        case .sessions: "sessions"
        case .donations: "donations"
        case .pushes: "pushes"
        case .contentChanges: "content_changes"
        case .timeChanges: "time_changes"
        case .environmentChanges: "environment_changes"
        case .audioSessions: "audio_sessions"
        case .standByViews: "standby_views"
        case .suggestionsShown: "suggestions_shown"
        case .suggestionsWanted: "suggestions_wanted"
        }
    }
}

/// One person's counts under one policy pair: `days × PersonCounter.count`,
/// `days × widgets × WidgetCounter.count`, and the reason codes per day
/// (`days × RefusalReason.count`, `days × MissedViewReason.count`), flat.
public struct PersonCounts: Sendable {
    public let days: Int
    public let widgets: Int
    public var person: [Int64]
    public var widget: [Int64]
    public var refusals: [Int64]
    public var missedViews: [Int64]

    public init(days: Int, widgets: Int) {
        self.days = days
        self.widgets = widgets
        person = Array(repeating: 0, count: days * PersonCounter.count)
        widget = Array(repeating: 0, count: days * widgets * WidgetCounter.count)
        refusals = Array(repeating: 0, count: days * RefusalReason.count)
        missedViews = Array(repeating: 0, count: days * MissedViewReason.count)
    }

    /// Counts made of these arrays, laid out as `init(days:widgets:)` lays them out.
    init(days: Int, widgets: Int, person: [Int64], widget: [Int64], refusals: [Int64], missedViews: [Int64]) {
        self.days = days
        self.widgets = widgets
        self.person = person
        self.widget = widget
        self.refusals = refusals
        self.missedViews = missedViews
    }

    public mutating func reset() {
        for i in person.indices { person[i] = 0 }
        for i in widget.indices { widget[i] = 0 }
        for i in refusals.indices { refusals[i] = 0 }
        for i in missedViews.indices { missedViews[i] = 0 }
    }

    /// The refusal codes each day's counters hold: the codes made when they were.
    public var refusalCodes: Int { days > 0 ? refusals.count / days : 0 }

    /// Refusals of `reason` on `day`; 0 for a code made after these counts were.
    @inlinable
    public subscript(day: Int, refusal reason: RefusalReason) -> Int64 {
        get { Int(reason.rawValue) < refusalCodes ? refusals[day * refusalCodes + Int(reason.rawValue)] : 0 }
        set { refusals[day * refusalCodes + Int(reason.rawValue)] = newValue }
    }

    @inlinable
    public subscript(day: Int, missed reason: MissedViewReason) -> Int64 {
        get { missedViews[day * MissedViewReason.count + Int(reason.rawValue)] }
        set { missedViews[day * MissedViewReason.count + Int(reason.rawValue)] = newValue }
    }

    @inlinable
    public subscript(day: Int, counter: PersonCounter) -> Int64 {
        get { person[day * PersonCounter.count + counter.rawValue] }
        set { person[day * PersonCounter.count + counter.rawValue] = newValue }
    }

    @inlinable
    public subscript(day: Int, widget w: Int, counter: WidgetCounter) -> Int64 {
        get { widget[(day * widgets + w) * WidgetCounter.count + counter.rawValue] }
        set { widget[(day * widgets + w) * WidgetCounter.count + counter.rawValue] = newValue }
    }

    /// All reloads of `w` on `day`, whatever the reason.
    public func reloads(day: Int, widget w: Int) -> Int64 {
        ReloadReason.allCases.reduce(0) { $0 + self[day, widget: w, WidgetCounter.reload($1)] }
    }
}

/// The counts of a run in progress, laid out as `PersonCounts` but in memory the
/// engine owns and writes through pointers: a count is one add, with no
/// copy-on-write check of an array per count. `counts()` copies them out at the end.
final class RunningCounts {
    let days: Int
    let widgets: Int
    let personCount: Int
    let widgetCount: Int
    let refusalCount: Int
    /// The refusal codes each day's counters hold (`RefusalReason.count` when made).
    let refusalCodes: Int
    let missedCount: Int
    /// One allocation: person, widget, refusal and missed-view counts, in that order.
    let storage: UnsafeMutablePointer<Int64>
    let person: UnsafeMutablePointer<Int64>
    let widget: UnsafeMutablePointer<Int64>
    let refusals: UnsafeMutablePointer<Int64>
    let missedViews: UnsafeMutablePointer<Int64>
    let total: Int

    init(days: Int, widgets: Int) {
        self.days = days
        self.widgets = widgets
        personCount = days * PersonCounter.count
        widgetCount = days * widgets * WidgetCounter.count
        refusalCodes = RefusalReason.count
        refusalCount = days * refusalCodes
        missedCount = days * MissedViewReason.count
        total = personCount + widgetCount + refusalCount + missedCount
        storage = .allocate(capacity: total)
        storage.initialize(repeating: 0, count: total)
        person = storage
        widget = storage + personCount
        refusals = widget + widgetCount
        missedViews = refusals + refusalCount
    }

    deinit { storage.deallocate() }

    func reset() { storage.zero(count: total) }

    /// A copy of the counts (each array allocated once, and filled by one copy).
    func counts() -> PersonCounts {
        PersonCounts(
            days: days, widgets: widgets,
            person: Array(UnsafeBufferPointer(start: person, count: personCount)),
            widget: Array(UnsafeBufferPointer(start: widget, count: widgetCount)),
            refusals: Array(UnsafeBufferPointer(start: refusals, count: refusalCount)),
            missedViews: Array(UnsafeBufferPointer(start: missedViews, count: missedCount)))
    }

    // Indices use wrapping arithmetic: they are small (days × widgets × counters of one
    // run), and checking each product for overflow costs more than the count itself.
    // The engine counts occurrences (`+= 1`) with wrapping additions too: one run cannot
    // reach 2^63 of anything it does one at a time. Sums of amounts (durations, energy)
    // keep their overflow check, as do the totals over people (`PairTotals`).

    @inline(__always)
    subscript(day: Int, refusal reason: RefusalReason) -> Int64 {
        get { refusals[day &* refusalCodes &+ Self.index(reason, of: refusalCodes)] }
        set { refusals[day &* refusalCodes &+ Self.index(reason, of: refusalCodes)] = newValue }
    }

    /// `reason`'s index in a day's `codes` counters; traps on a code made after the
    /// counters were (one that no policy's descriptor declared before the run).
    @inline(__always)
    static func index(_ reason: RefusalReason, of codes: Int) -> Int {
        let i = Int(reason.rawValue)
        precondition(i < codes, "a refusal code made during a run: list it in its policy descriptor's `refusals`")
        return i
    }

    @inline(__always)
    subscript(day: Int, missed reason: MissedViewReason) -> Int64 {
        get { missedViews[day &* MissedViewReason.count &+ Int(reason.rawValue)] }
        set { missedViews[day &* MissedViewReason.count &+ Int(reason.rawValue)] = newValue }
    }

    @inline(__always)
    subscript(day: Int, counter: PersonCounter) -> Int64 {
        get { person[day &* PersonCounter.count &+ counter.rawValue] }
        set { person[day &* PersonCounter.count &+ counter.rawValue] = newValue }
    }

    @inline(__always)
    subscript(day: Int, widget w: Int, counter: WidgetCounter) -> Int64 {
        get { widget[(day &* widgets &+ w) &* WidgetCounter.count &+ counter.rawValue] }
        set { widget[(day &* widgets &+ w) &* WidgetCounter.count &+ counter.rawValue] = newValue }
    }

    /// The counters of `day`: its person counters, its instances' rows and its missed
    /// views by reason.
    @inline(__always)
    func day(_ day: Int) -> DayCounts {
        DayCounts(person: person + day &* PersonCounter.count, widgets: widget + day &* widgets &* WidgetCounter.count,
                  missed: missedViews + day &* MissedViewReason.count)
    }
}

/// The counters of one day in a `RunningCounts`, reached without the day's index: the
/// engine holds those of the day of the event it handles (`PersonEngine.today`).
struct DayCounts {
    let person: UnsafeMutablePointer<Int64>
    /// The day's row of instance 0; the others follow it.
    let widgets: UnsafeMutablePointer<Int64>
    /// The day's missed views, one counter per reason.
    let missed: UnsafeMutablePointer<Int64>

    @inline(__always)
    subscript(counter: PersonCounter) -> Int64 {
        get { person[counter.rawValue] }
        nonmutating set { person[counter.rawValue] = newValue }
    }

    @inline(__always)
    subscript(widget w: Int, counter: WidgetCounter) -> Int64 {
        get { widgets[w &* WidgetCounter.count &+ counter.rawValue] }
        nonmutating set { widgets[w &* WidgetCounter.count &+ counter.rawValue] = newValue }
    }

    @inline(__always)
    subscript(missed reason: MissedViewReason) -> Int64 {
        get { missed[Int(reason.rawValue)] }
        nonmutating set { missed[Int(reason.rawValue)] = newValue }
    }

    /// The day's counters of instance `w`, for several counts of one instance: the row's
    /// address is worked out once.
    @inline(__always)
    func row(widget w: Int) -> WidgetRow { WidgetRow(base: widgets + w &* WidgetCounter.count) }
}

/// The counters of one instance on one day in a `RunningCounts`.
struct WidgetRow {
    let base: UnsafeMutablePointer<Int64>

    @inline(__always)
    subscript(counter: WidgetCounter) -> Int64 {
        get { base[counter.rawValue] }
        nonmutating set { base[counter.rawValue] = newValue }
    }
}

/// Refusals and missed views by widget instance, kept apart from a person's counts: the
/// engine adds to it across every person it runs, and the runner takes it once per
/// block of people (`PersonEngine.takeReasonsByWidget`), so that no person pays for
/// clearing and copying it. Refusals are `days × widgets × RefusalReason.count` (the
/// instance that asked); missed views `days × slots × slots × MissedViewReason.count`
/// (the wanted instance, then the one on top; `slots` = widgets + 1, the last for none).
final class ReasonTally {
    let days: Int
    let widgets: Int
    let refusalCount: Int
    /// The refusal codes each instance-day's counters hold (`RefusalReason.count` when made).
    let refusalCodes: Int
    let missedCount: Int
    let storage: UnsafeMutablePointer<Int64>
    let refusals: UnsafeMutablePointer<Int64>
    let missedViews: UnsafeMutablePointer<Int64>

    init(days: Int, widgets: Int) {
        self.days = days
        self.widgets = widgets
        refusalCodes = RefusalReason.count
        refusalCount = days * widgets * refusalCodes
        missedCount = days * (widgets + 1) * (widgets + 1) * MissedViewReason.count
        storage = .allocate(capacity: refusalCount + missedCount)
        storage.initialize(repeating: 0, count: refusalCount + missedCount)
        refusals = storage
        missedViews = storage + refusalCount
    }

    deinit { storage.deallocate() }

    func reset() { storage.zero(count: refusalCount + missedCount) }

    @inline(__always)
    subscript(day: Int, widget w: Int, refusal reason: RefusalReason) -> Int64 {
        get { refusals[(day &* widgets &+ w) &* refusalCodes &+ RunningCounts.index(reason, of: refusalCodes)] }
        set { refusals[(day &* widgets &+ w) &* refusalCodes &+ RunningCounts.index(reason, of: refusalCodes)] = newValue }
    }

    @inline(__always)
    subscript(day: Int, wanted wanted: Int, top top: Int, missed reason: MissedViewReason) -> Int64 {
        get { missedViews[((day &* (widgets &+ 1) &+ wanted) &* (widgets &+ 1) &+ top) &* MissedViewReason.count &+ Int(reason.rawValue)] }
        set { missedViews[((day &* (widgets &+ 1) &+ wanted) &* (widgets &+ 1) &+ top) &* MissedViewReason.count &+ Int(reason.rawValue)] = newValue }
    }

    /// The missed views of `day`, by wanted instance, instance on top and reason.
    @inline(__always)
    func day(_ day: Int) -> DayMissedViews {
        let slots = widgets &+ 1
        return DayMissedViews(base: missedViews + day &* slots &* slots &* MissedViewReason.count, slots: slots)
    }

    /// The tally as arrays (`PairTotals`' layout), then cleared.
    func take() -> (refusals: [Int64], missedViews: [Int64]) {
        let out = (Array(UnsafeBufferPointer(start: refusals, count: refusalCount)),
                   Array(UnsafeBufferPointer(start: missedViews, count: missedCount)))
        reset()
        return out
    }
}

/// One day's missed views in a `ReasonTally`, reached without the day's index: the
/// engine holds those of the day of the event it handles (`PersonEngine.todayMissed`).
struct DayMissedViews {
    let base: UnsafeMutablePointer<Int64>
    /// Instances + 1: the wanted and the top instance's range, the last for none.
    let slots: Int

    @inline(__always)
    subscript(wanted wanted: Int, top top: Int, missed reason: MissedViewReason) -> Int64 {
        get { base[(wanted &* slots &+ top) &* MissedViewReason.count &+ Int(reason.rawValue)] }
        nonmutating set { base[(wanted &* slots &+ top) &* MissedViewReason.count &+ Int(reason.rawValue)] = newValue }
    }
}

extension UnsafeMutablePointer where Pointee: FixedWidthInteger & BitwiseCopyable {
    /// Sets `count` counts from here on to 0, 128 at a time (1 KB of 64-bit counts). Pieces this small are
    /// cleared with vector stores; glibc clears a larger piece with `rep stosb`, one
    /// instruction that callgrind counts once per byte, so a whole person's counts
    /// cleared at once would count some 8,000 instructions a person in the benchmark's
    /// instruction count for work that takes a few hundred cycles.
    @inline(__always)
    func zero(count: Int) {
        var start = 0
        while start < count {
            let piece = Swift.min(128, count &- start)
            (self + start).update(repeating: 0, count: piece)
            start &+= piece
        }
    }
}
