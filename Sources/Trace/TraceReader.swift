import Foundation

/// The layouts a usage log may have.
public enum TraceFormat: String, Sendable, CaseIterable {
    /// Tab-separated `user_id, session_id, timestamp, app_name, event_type`, the layout
    /// of the public LSApp data set; events `Opened` and `Closed` make sessions,
    /// `User Interaction` and `Broken` are known and skipped.
    case lsapp
    /// Comma-separated `person,start,end,app,kind` with kind one of `session`,
    /// `donation`, `push`, `view` (see scenarios/README.md, "Usage logs").
    case csv
}

/// A log problem that stops the reading, located: `FILE:LINE: message`.
public struct TraceError: Error, Sendable, Hashable, CustomStringConvertible {
    public var file: String
    /// The 1-based line (0 when the file itself cannot be read).
    public var line: Int
    public var message: String

    public init(file: String, line: Int, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String { "\(file):\(line): \(message)" }
}

/// A kind of line that is skipped or read with a default, counted: the reading goes on.
public struct TraceWarning: Sendable, Hashable, CustomStringConvertible {
    public var file: String
    /// How many lines (or apps) it concerns.
    public var count: Int
    /// The first line concerned (0 when it concerns no line).
    public var firstLine: Int
    public var message: String

    public var description: String {
        "\(file):\(firstLine): warning: \(message) (\(count) in all\(firstLine > 0 ? ", the first here" : ""))"
    }
}

/// What one line of a log says, once read.
public enum TraceKind: UInt8, Sendable {
    case session, donation, push, view
}

/// One event of a log: a session of an app (with its end), or a donation, push or
/// home-screen view at an instant.
public struct TraceEvent: Sendable {
    public var kind: TraceKind
    /// The person: an index into `TraceReader.people`, in order of first appearance.
    public var person: Int32
    /// The app: an index into `TraceReader.apps` (−1 for a view).
    public var app: Int32
    public var start: TraceTime
    /// The session's end (the start for the other kinds).
    public var end: TraceTime
    /// Whether a session's end came from the log (false: `defaultSessionMs` after it began).
    public var closed: Bool
    /// The line that began it.
    public var line: Int
}

/// Reads a usage log in one pass, streaming: the events come out through a callback
/// as they are complete, and memory holds only each person's sessions still open.
public struct TraceReader {
    /// A session whose end the log does not give lasts this long (or until the same
    /// app is opened again, if sooner).
    public static let defaultSessionMs: Int64 = 90_000

    public let path: String
    public let format: TraceFormat
    /// The zone that timestamps without an offset are read in, and whose local hours
    /// and weekdays are reported.
    public let zone: TimeZone?
    /// People and apps by first appearance: their names in the log.
    private(set) var people = ByteInterner()
    private(set) var apps = ByteInterner()
    public private(set) var warnings: [TraceWarning] = []
    /// Lines read, and events handed over.
    public private(set) var lines = 0
    public private(set) var events = 0

    /// A reader of the log at `path`; the apps named in `knownApps` get the indices
    /// 0, 1, … in that order, whether or not they occur.
    public init(path: String, format: TraceFormat, zone: TimeZone?, knownApps: [String] = []) {
        self.path = path
        self.format = format
        self.zone = zone
        for name in knownApps {
            var bytes = Array(name.utf8)
            _ = bytes.withUnsafeMutableBufferPointer { apps.id(UnsafeBufferPointer($0)) }
        }
    }

    public var personNames: [String] { people.names }
    public var appNames: [String] { apps.names }

    /// The counted warning kinds, in the order the warnings are listed.
    enum WarningKind: Int, CaseIterable {
        case unsorted, unknownEvent, closedWithoutOpened, openedWithoutClosed, reopened, endBeforeStart
        var message: String {
            switch self {
            case .unsorted: "a line earlier than its person's previous line: the log must be in time order for each person; skipped"
            case .unknownEvent: "an unknown event type: skipped"
            case .closedWithoutOpened: "a Closed event with no Opened event of that app before it: skipped"
            case .openedWithoutClosed: "an Opened event with no Closed event after it: the session lasts 90s (the default)"
            case .reopened: "an app opened again before its Closed event: the first session ends there (at most 90s)"
            case .endBeforeStart: "a session whose end is before its start: skipped"
            }
        }
    }

    /// Reads the whole log, calling `body` with each event. Throws the first malformed
    /// line (located) or the first error `body` throws.
    public mutating func read(_ body: (TraceEvent) throws(TraceError) -> Void) throws(TraceError) {
        var converter = ZoneConverter(zone: zone)
        var counts = Array(repeating: 0, count: WarningKind.allCases.count)
        var firsts = Array(repeating: 0, count: WarningKind.allCases.count)
        func warn(_ kind: WarningKind, _ line: Int) {
            if counts[kind.rawValue] == 0 { firsts[kind.rawValue] = line }
            counts[kind.rawValue] += 1
        }
        // Per person: the last time read, and the sessions still open (app, start, line).
        var lastTime: [Int64] = []
        var open: [[(app: Int32, start: TraceTime, line: Int)]] = []
        var people = self.people, apps = self.apps
        var eventCount = 0
        let path = self.path, format = self.format
        defer {
            self.people = people
            self.apps = apps
            self.events = eventCount
        }
        func emit(_ e: TraceEvent) throws(TraceError) {
            eventCount += 1
            try body(e)
        }
        func time(_ field: UnsafeBufferPointer<UInt8>, _ line: Int, _ what: String) throws(TraceError) -> TraceTime {
            guard let written = parseTimestamp(field) else {
                throw TraceError(
                    file: path, line: line,
                    message: "\(what) `\(String(decoding: field, as: UTF8.self))` is not a timestamp (YYYY-MM-DD HH:MM:SS, optionally with T, fractions of a second and Z or ±HH:MM)")
            }
            guard let t = converter.time(written) else {
                throw TraceError(
                    file: path, line: line,
                    message: "\(what) `\(String(decoding: field, as: UTF8.self))` has no zone: give the log's time zone (--time-zone, or time_zone: under trace:) to read it in")
            }
            return t
        }
        func person(_ field: UnsafeBufferPointer<UInt8>, _ line: Int) throws(TraceError) -> Int32 {
            guard !field.isEmpty else { throw TraceError(file: path, line: line, message: "the person (user) field is empty") }
            let id = people.id(field)
            if Int(id) == lastTime.count {
                lastTime.append(.min)
                open.append([])
            }
            return id
        }
        /// Whether the line is in time order for its person (and notes its time).
        func inOrder(_ p: Int32, _ t: TraceTime, _ line: Int) -> Bool {
            if t.utcMs < lastTime[Int(p)] {
                warn(.unsorted, line)
                return false
            }
            lastTime[Int(p)] = t.utcMs
            return true
        }
        func defaultEnd(_ start: TraceTime) -> TraceTime {
            TraceTime(localMs: start.localMs + Self.defaultSessionMs, utcMs: start.utcMs + Self.defaultSessionMs)
        }
        var fields = [UnsafeBufferPointer<UInt8>](repeating: UnsafeBufferPointer(start: nil, count: 0), count: 6)
        var lineCount = 0
        try LineReader(path: path).forEachLine { (bytes: UnsafeBufferPointer<UInt8>, line: Int) throws(TraceError) in
            lineCount = line
            if bytes.isEmpty { return }
            // Split into at most 6 fields (one more than any layout has, to catch extras).
            let separator: UInt8 = format == .lsapp ? 9 : 44
            var count = 0, start = 0
            for i in 0 ..< bytes.count where bytes[i] == separator {
                if count < 5 { fields[count] = UnsafeBufferPointer(rebasing: bytes[start ..< i]) }
                count += 1
                start = i + 1
            }
            if count < 6 { fields[count] = UnsafeBufferPointer(rebasing: bytes[start...]) }
            count += 1
            if line == 1 && Self.isHeader(fields[0]) { return }
            guard count == 5 else {
                throw TraceError(
                    file: path, line: line,
                    message: format == .lsapp
                        ? "\(count) tab-separated fields, expected 5: user_id, session_id, timestamp, app_name, event_type"
                        : "\(count) comma-separated fields, expected 5: person,start,end,app,kind")
            }
            switch format {
            case .lsapp:
                let p = try person(fields[0], line)
                let t = try time(fields[2], line, "timestamp")
                let event = fields[4]
                let opened = Self.equals(event, "Opened"), closed = Self.equals(event, "Closed")
                if !opened && !closed {
                    if !Self.equals(event, "User Interaction") && !Self.equals(event, "Broken") { warn(.unknownEvent, line) }
                    _ = inOrder(p, t, line)
                    return
                }
                guard !fields[3].isEmpty else { throw TraceError(file: path, line: line, message: "the app_name field is empty") }
                guard inOrder(p, t, line) else { return }
                let app = apps.id(fields[3])
                let k = open[Int(p)].firstIndex { $0.app == app }
                if opened {
                    if let k {
                        let o = open[Int(p)][k]
                        warn(.reopened, o.line)
                        let end = min(t.utcMs - o.start.utcMs, Self.defaultSessionMs)
                        try emit(TraceEvent(
                            kind: .session, person: p, app: app, start: o.start,
                            end: TraceTime(localMs: o.start.localMs + end, utcMs: o.start.utcMs + end), closed: false, line: o.line))
                        open[Int(p)][k] = (app, t, line)
                    } else {
                        open[Int(p)].append((app, t, line))
                    }
                } else if let k {
                    let o = open[Int(p)].remove(at: k)
                    try emit(TraceEvent(kind: .session, person: p, app: app, start: o.start, end: t, closed: true, line: o.line))
                } else {
                    warn(.closedWithoutOpened, line)
                }
            case .csv:
                let p = try person(fields[0], line)
                let kindField = fields[4]
                let kind: TraceKind
                if Self.equals(kindField, "session") { kind = .session }
                else if Self.equals(kindField, "donation") { kind = .donation }
                else if Self.equals(kindField, "push") { kind = .push }
                else if Self.equals(kindField, "view") { kind = .view }
                else {
                    warn(.unknownEvent, line)
                    return
                }
                let start = try time(fields[1], line, "start")
                guard inOrder(p, start, line) else { return }
                var app: Int32 = -1
                if kind != .view {
                    guard !fields[3].isEmpty else {
                        throw TraceError(file: path, line: line, message: "the app field is empty (needed for a \(String(decoding: kindField, as: UTF8.self)))")
                    }
                    app = apps.id(fields[3])
                }
                var end = start, closed = true
                if kind == .session {
                    if fields[2].isEmpty {
                        end = defaultEnd(start)
                        closed = false
                        warn(.openedWithoutClosed, line)
                    } else {
                        end = try time(fields[2], line, "end")
                        if end.utcMs < start.utcMs {
                            warn(.endBeforeStart, line)
                            return
                        }
                    }
                }
                try emit(TraceEvent(kind: kind, person: p, app: app, start: start, end: end, closed: closed, line: line))
            }
        }
        // Sessions still open at the end of the log.
        for p in open.indices {
            for o in open[p] {
                warn(.openedWithoutClosed, o.line)
                try emit(TraceEvent(kind: .session, person: Int32(p), app: o.app, start: o.start, end: defaultEnd(o.start), closed: false, line: o.line))
            }
        }
        lines = lineCount
        warnings = WarningKind.allCases.compactMap { kind in
            counts[kind.rawValue] == 0 ? nil
                : TraceWarning(file: path, count: counts[kind.rawValue], firstLine: firsts[kind.rawValue], message: kind.message)
        }
    }

    static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ text: StaticString) -> Bool {
        guard bytes.count == text.utf8CodeUnitCount else { return false }
        let p = text.utf8Start
        for i in 0 ..< bytes.count where bytes[i] != p[i] { return false }
        return true
    }

    /// A first line naming the columns (`user_id…` or `person…`) rather than holding data.
    static func isHeader(_ first: UnsafeBufferPointer<UInt8>) -> Bool {
        equals(first, "user_id") || equals(first, "person")
    }
}
