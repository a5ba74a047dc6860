import Foundation
import WidgetSimModel

/// The sessions of a log's people, for replay: the sessions of the mapped apps, by
/// person, in absolute time, and the span of local days the log covers.
public struct TraceReplayLog: Sendable {
    /// Every person of the log (in order of first appearance), with their sessions of
    /// the mapped apps as (UTC ms start, UTC ms end, widget index).
    public var people: [[(start: Int64, end: Int64, widget: Int32)]]
    /// The first and last local day (days since 1970-01-01) of any event.
    public var firstDay: Int64
    public var lastDay: Int64
    public var warnings: [TraceWarning]
    /// Mapped apps (by the log's name) with no session in the log.
    public var missingApps: [String]

    /// Reads the log at `path`; `apps` are the log's names of the widgets' apps, widget
    /// i's app at index i (a widget without an app in the log: no entry past the end).
    public static func read(path: String, format: TraceFormat, zone: TimeZone, apps: [String]) throws(TraceError) -> TraceReplayLog {
        var reader = TraceReader(path: path, format: format, zone: zone, knownApps: apps)
        var people: [[(start: Int64, end: Int64, widget: Int32)]] = []
        var first = Int64.max, last = Int64.min
        var seen = [Bool](repeating: false, count: apps.count)
        let count = apps.count
        try reader.read { (e: TraceEvent) throws(TraceError) in
            while people.count <= Int(e.person) { people.append([]) }
            first = min(first, e.start.day)
            last = max(last, e.start.day)
            guard e.kind == .session, e.app < count else { return }
            seen[Int(e.app)] = true
            people[Int(e.person)].append((e.start.utcMs, e.end.utcMs, e.app))
        }
        while people.count < reader.personNames.count { people.append([]) }
        return TraceReplayLog(
            people: people, firstDay: first, lastDay: last, warnings: reader.warnings,
            missingApps: apps.indices.filter { !seen[$0] }.map { apps[$0] })
    }

    /// The log's first day as a date.
    public var firstDate: CalendarDate {
        let (y, m, d) = civilFromDays(firstDay)
        return CalendarDate(year: Int(y), month: Int(m), day: Int(d))
    }

    /// Days from the first to the last, both counted.
    public var days: Int { lastDay >= firstDay ? Int(lastDay - firstDay + 1) : 0 }
}
