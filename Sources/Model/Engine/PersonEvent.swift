import WidgetSimKernel

/// The events of one person's simulation, and the rule for events at the same
/// millisecond: they run in the order of `rank` below, then in scheduling order.
///
/// Only reload requests (rank 6) go through the kernel's queue. The items of the
/// person's world (ranks 0–5 and 7) are known in advance: the engine merges them with
/// the queue by time and rank (`EventQueue.popNext(before:rank:)`), items of one process in
/// their list's order. A world item and a queued event never share a rank, so the order
/// is the one a single queue holding every event would give.
///
/// | rank | event | why this place |
/// |---|---|---|
/// | 0 | time change (midnight, DST, new zone) | the new day's reloads come first |
/// | 1 | environment change, then widget added | forced reloads, like time changes |
/// | 2 | random content change | a change at t is already true at t |
/// | 3 | push | follows the change it announces |
/// | 4 | session end, audio session end, StandBy end | an app leaves the foreground before another arrives |
/// | 5 | session start, audio session start, StandBy start | |
/// | 6 | reload request (timeline due, deferred retry, StandBy display refresh) | a request held until a change is granted after it |
/// | 7 | home-screen view | a view sees everything else that happened at its instant |
public enum PersonEvent: Sendable {
    /// Widget instance `w`'s timeline asks to be reloaded (or its refused request retries).
    case timelineDue(Int32)
    /// A deferred background request of instance `w` is asked again.
    case backgroundRetry(Int32)
    /// In StandBy, the system refreshes the display of every widget (`StandByModel`).
    case standByRefresh

    var rank: UInt8 {
        switch self {
        case .timelineDue, .backgroundRetry, .standByRefresh: 6
        }
    }
}

/// The exogenous processes, each a time-ordered list in `PersonWorld`, numbered in
/// the order of their ranks (the engine's merge relies on it; processes of one rank
/// run in the order listed here).
public enum WorldProcess: Int, CaseIterable, Sendable {
    case timeChange, environmentChange, widgetAdded, contentChange, push
    case sessionEnd, audioEnd, standByEnd, sessionStart, audioStart, standByStart, view

    var rank: UInt8 {
        switch self {
        case .timeChange: 0
        case .environmentChange, .widgetAdded: 1
        case .contentChange: 2
        case .push: 3
        case .sessionEnd, .audioEnd, .standByEnd: 4
        case .sessionStart, .audioStart, .standByStart: 5
        case .view: 7
        }
    }

    public var label: String {
        switch self {
        case .timeChange: "time_change"
        case .environmentChange: "environment_change"
        case .contentChange: "content_change"
        case .push: "push"
        case .sessionEnd: "session_end"
        case .sessionStart: "session_start"
        case .widgetAdded: "widget_added"
        case .audioEnd: "audio_end"
        case .standByEnd: "standby_end"
        case .audioStart: "audio_start"
        case .standByStart: "standby_start"
        case .view: "view"
        }
    }
}

/// Receives one line per handled event when a trace is asked for.
public protocol TraceSink: AnyObject {
    /// `pair` is the engine's policy pair when several share the trace; `widget` the
    /// instance id or empty; `decision` says what happened, in words; `reason` is the
    /// reason code of a refusal, a dropped push or a missed view, or empty.
    func record(time: SimTime, person: Int, pair: PolicyPair?, event: String, widget: String, decision: String, reason: String)

    /// One line with its decision in columns (`TraceLine`). By default, the line in
    /// words: `record(time:…)` with the line's `detail` as its decision.
    func record(_ line: TraceLine)
}

extension TraceSink {
    public func record(_ line: TraceLine) {
        record(time: line.time, person: line.person, pair: line.pair, event: line.event, widget: line.widget,
               decision: line.detail, reason: line.reason)
    }
}

/// One trace line, its decision in columns.
public struct TraceLine: Sendable {
    public var time: SimTime
    /// The simulated day (from 0) and the person's local time of day, in seconds since local midnight.
    public var day: Int
    public var localSeconds: Int
    public var person: Int
    public var pair: PolicyPair?
    public var event: String
    /// The instance the event is about (its id), or empty.
    public var widget: String
    /// What the phone did, as one word: `reloaded_charged`, `reloaded_free`, `deferred`,
    /// `denied`, `coalesced`, `push_dropped`, `shown`, …
    public var decision: String
    /// What the columns do not say, in words (for a view: swipes, taps, holds, rotations).
    public var detail: String
    /// The reason code of a refusal, a dropped push or a missed view, or empty.
    public var reason: String
    /// When a deferred request is due, in seconds of simulated time; nil otherwise.
    public var until: SimTime?
    /// At a view: the instance on top and the one wanted (empty for none), and the
    /// relevance score each currently shows (nil without one).
    public var topWidget: String = ""
    public var topRelevance: Double?
    public var wantedWidget: String = ""
    public var wantedRelevance: Double?

    public init(time: SimTime, day: Int, localSeconds: Int, person: Int, pair: PolicyPair?, event: String, widget: String,
                decision: String, detail: String, reason: String) {
        self.time = time
        self.day = day
        self.localSeconds = localSeconds
        self.person = person
        self.pair = pair
        self.event = event
        self.widget = widget
        self.decision = decision
        self.detail = detail
        self.reason = reason
    }
}
