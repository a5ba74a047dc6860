import Foundation

/// What a log says about its people, gathered in one streaming pass (`add`): counts
/// by app, local hour and weekday, each person's span of days and daily counts, and
/// session lengths. Memory grows with people and apps, never with lines.
public struct TraceTally: Sendable {
    struct Person: Sendable {
        var firstDay: Int64 = .max
        var lastDay: Int64 = .min
        var sessions = 0
        var views = 0
        /// Sessions by local hour.
        var byHour = [Int32](repeating: 0, count: 24)
        /// Views: Σ over days of (views that day)², and the day being counted.
        var viewSquares = 0.0
        var viewDay: Int64 = .min
        var viewDayCount = 0
        /// Sessions: the same.
        var squares = 0.0
        var day: Int64 = .min
        var dayCount = 0
        /// The last session's start (UTC ms), for the gaps between sessions.
        var lastStart: Int64 = .min
    }

    /// The reader's app indices 0 ..< widgetCount are the widgets' apps (`TraceReader`'s
    /// `knownApps`); others are counted only in `appSessions` and the like.
    let widgetCount: Int
    var people: [Person] = []
    /// Mapped sessions by widget, at `widget * 168 + weekday * 24 + hour`.
    var cells: [Int]
    /// Sessions of every app (mapped or not), and their donations and pushes, by app index.
    var appSessions: [Int] = []
    var appDonations: [Int] = []
    var appPushes: [Int] = []
    /// Views by local hour.
    var viewHours = [Int](repeating: 0, count: 24)
    /// ln(length in s) sums over closed mapped sessions, pooled and by widget.
    var logSum = 0.0, logSquares = 0.0, lengthCount = 0
    var widgetLogSum: [Double], widgetLengthCount: [Int]
    /// Mapped sessions with no end in the log, and ones shorter than a second.
    var unclosed = 0, instant = 0
    /// Gaps between a person's consecutive mapped session starts shorter than `burstGapMs`.
    var shortGaps = 0
    static let burstGapMs: Int64 = 60_000
    var firstDay: Int64 = .max
    var lastDay: Int64 = .min

    /// A tally for `widgets` (ids) mapped to app names, read by a `TraceReader` whose
    /// `knownApps` are those names in that order.
    public let widgets: [String]
    public let appNames: [String]

    public init(widgets: [String], appNames: [String]) {
        self.widgets = widgets
        self.appNames = appNames
        widgetCount = widgets.count
        cells = Array(repeating: 0, count: widgets.count * 168)
        widgetLogSum = Array(repeating: 0, count: widgets.count)
        widgetLengthCount = Array(repeating: 0, count: widgets.count)
    }

    /// Adds one event.
    public mutating func add(_ e: TraceEvent) {
        let p = Int(e.person)
        while people.count <= p { people.append(Person()) }
        while appSessions.count <= Int(e.app) {
            appSessions.append(0)
            appDonations.append(0)
            appPushes.append(0)
        }
        let day = e.start.day
        firstDay = min(firstDay, day)
        lastDay = max(lastDay, day)
        people[p].firstDay = min(people[p].firstDay, day)
        people[p].lastDay = max(people[p].lastDay, day)
        switch e.kind {
        case .view:
            people[p].views += 1
            viewHours[e.start.hour] += 1
            if people[p].viewDay != day {
                people[p].viewSquares += Double(people[p].viewDayCount * people[p].viewDayCount)
                people[p].viewDay = day
                people[p].viewDayCount = 0
            }
            people[p].viewDayCount += 1
        case .donation:
            appDonations[Int(e.app)] += 1
        case .push:
            appPushes[Int(e.app)] += 1
        case .session:
            appSessions[Int(e.app)] += 1
            let w = Int(e.app)
            guard w < widgetCount else { return }
            let hour = e.start.hour
            cells[w * 168 + e.start.weekday * 24 + hour] += 1
            people[p].sessions += 1
            people[p].byHour[hour] += 1
            if people[p].day != day {
                people[p].squares += Double(people[p].dayCount * people[p].dayCount)
                people[p].day = day
                people[p].dayCount = 0
            }
            people[p].dayCount += 1
            if people[p].lastStart != .min {
                let gap = e.start.utcMs - people[p].lastStart
                if gap >= 0 && gap < Self.burstGapMs { shortGaps += 1 }
            }
            people[p].lastStart = max(people[p].lastStart, e.start.utcMs)
            if e.closed {
                var ms = e.end.utcMs - e.start.utcMs
                if ms < 1000 {
                    instant += 1
                    ms = max(ms, 500)
                }
                let l = log(Double(ms) / 1000)
                logSum += l
                logSquares += l * l
                lengthCount += 1
                widgetLogSum[w] += l
                widgetLengthCount[w] += 1
            } else {
                unclosed += 1
            }
        }
    }

    /// Closes the per-day counts (call once, after the last event).
    public mutating func finish() {
        for p in people.indices {
            people[p].squares += Double(people[p].dayCount * people[p].dayCount)
            people[p].dayCount = 0
            people[p].viewSquares += Double(people[p].viewDayCount * people[p].viewDayCount)
            people[p].viewDayCount = 0
        }
    }
}
