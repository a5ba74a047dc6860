import Foundation
import WidgetSimModel
import WidgetSimSampling

/// A usage log drawn from a scenario's synthetic people (`widgetsim log`): each person's
/// app sessions as the person model makes them, written in a log layout that
/// `TraceReader` reads back, so a log made from known parameters can be replayed and
/// calibrated. Optionally with bursts the model cannot make.
public enum SyntheticLog {
    /// The process number of the burst draws (outside every number `StreamProcess` uses),
    /// so adding bursts changes nothing else in the log.
    static let burstProcess: UInt64 = 0xB0_0057

    /// The longest delay of a burst's second session after the first one's end, by default.
    public static let burstWindowMs: Int64 = 20_000

    public enum Problem: Error, CustomStringConvertible {
        case replayed(String)
        case appName(String, Character)
        case write(String)

        public var description: String {
            switch self {
            case .replayed(let file):
                "\(file) replays a usage log (`trace:`): its sessions are the log's, not drawn; remove `trace:` to write the model's"
            case .appName(let name, let c):
                "the app name `\(name)` holds \(c == "\t" ? "a tab" : c == "\n" ? "a line break" : "`\(c)`"), which the log layout cannot carry; give the widget another `app:`"
            case .write(let text): text
            }
        }
    }

    /// What was written.
    public struct Summary: Sendable {
        public var people = 0
        public var sessions = 0
        /// Sessions added by bursts (included in `sessions`).
        public var burstSessions = 0
        /// Sessions cut short because the same app was opened again before their end, or
        /// left out when both start at the same instant (LSApp layout only: its `Opened`
        /// and `Closed` events of one app cannot nest).
        public var cut = 0
        public var lines = 0
    }

    /// Writes the sessions of `scenario`'s people (replication 0) to `path` in `format`,
    /// through a temporary file renamed into place. `burst`: the probability that the
    /// person opens a session's app again within `burstWindowMs` (uniform) after it
    /// ends (once: the second session starts no burst), for a length drawn as the model's.
    public static func write(
        scenario s: Scenario, file: String, format: TraceFormat, burst: Double, burstWindowMs: Int64 = burstWindowMs,
        to path: String
    ) throws(Problem) -> Summary {
        guard s.replay == nil else { throw .replayed(file) }
        let forbidden: Set<Character> = format == .csv ? [",", "\"", "\n", "\r"] : ["\t", "\n", "\r"]
        for w in s.widgets {
            if let c = w.app.first(where: { forbidden.contains($0) }) { throw .appName(w.app, c) }
        }
        let builder: WorldBuilder
        do { builder = try WorldBuilder(scenario: s) } catch { throw .write("cannot build the people of \(file): \(error)") }

        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil),
              let handle = FileHandle(forWritingAtPath: temporary.path) else {
            throw .write("cannot write \(path): cannot create a file in \(url.deletingLastPathComponent().path)")
        }
        var summary = Summary()
        var buffer = ""
        func flush(_ force: Bool) throws(Problem) {
            guard force || buffer.utf8.count >= 1 << 20 else { return }
            do { try handle.write(contentsOf: Data(buffer.utf8)) } catch {
                throw .write("cannot write \(path): \(error.localizedDescription)")
            }
            buffer.removeAll(keepingCapacity: true)
        }
        func fail(_ problem: Problem) -> Problem {
            try? handle.close()
            try? FileManager.default.removeItem(at: temporary)
            return problem
        }

        buffer += format == .lsapp ? "user_id\tsession_id\ttimestamp\tapp_name\tevent_type\n" : "person,start,end,app,kind\n"
        summary.lines += 1
        let end = s.durationMs
        let bursts = RandomStream(kind: s.generator, key: StreamKey(seed: s.seed, replication: 0, person: 0, process: burstProcess))
        for person in 0 ..< s.people {
            let w = builder.build(person: person, replication: 0)
            var sessions = w.sessions.map { (start: $0.start, end: $0.end, widget: Int($0.widget), donates: $0.donates) }
            if burst > 0 {
                bursts.reseed(StreamKey(seed: s.seed, replication: 0, person: person, process: burstProcess))
                var extra: [(start: Int64, end: Int64, widget: Int, donates: Bool)] = []
                for session in sessions {
                    guard bursts.uniform() < burst else { continue }
                    let delay = Int64(bursts.uniform() * Double(burstWindowMs))
                    let length = Int64(bursts.logNormal(median: Double(s.person.sessionMedianMs), sigma: s.person.sessionSigma))
                    let donates = bursts.uniform() < s.person.donationProbability
                    let start = max(session.start, session.end) + delay
                    guard start < end else { continue }
                    extra.append((start, start + max(0, length), session.widget, donates))
                }
                summary.burstSessions += extra.count
                sessions += extra
            }
            sessions.sort { ($0.start, $0.widget) < ($1.start, $1.widget) }
            guard !sessions.isEmpty || format == .csv && w.views.contains(where: { !$0.standBy }) else { continue }
            summary.people += 1
            summary.sessions += sessions.count
            let clock = w.clock
            func stamp(_ t: Int64, offset: Bool) -> String {
                let local = clock.localMs(t)
                let day = floorDiv(local, 86_400_000), ms = floorMod(local, 86_400_000)
                let (y, m, d) = civilFromDays(day)
                var text = String(format: "%04lld-%02lld-%02lld %02lld:%02lld:%02lld", y, m, d,
                                  ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60)
                guard offset else { return text }
                let minutes = (local - clock.epochMs - t) / 60_000
                text += String(format: ".%03lld%@%02lld:%02lld", ms % 1000, minutes < 0 ? "-" : "+",
                               abs(minutes) / 60, abs(minutes) % 60)
                return text
            }
            switch format {
            case .lsapp:
                // Opened and Closed events in time order; a session whose app is opened
                // again before its end ends there, as the reader would end it.
                var events: [(time: Int64, order: Int, text: String)] = []
                var open: [String: (start: Int64, closed: Int)] = [:]   // app → its last session
                for (k, session) in sessions.enumerated() {
                    let app = s.widgets[session.widget].app
                    if let last = open[app], events[last.closed].time > session.start {
                        summary.cut += 1
                        guard last.start < session.start else { continue }
                        events[last.closed].time = session.start
                    }
                    events.append((session.start, 2 * k + 1, "\(app)\tOpened"))
                    events.append((max(session.start + 1, session.end), 2 * k, "\(app)\tClosed"))
                    open[app] = (session.start, events.count - 1)
                }
                // In time order, a Closed before an Opened at the same instant; the
                // timestamps are whole seconds, which keeps that order (the reader
                // takes lines of the same second as they come).
                events.sort { ($0.time, $0.order & 1, $0.order) < ($1.time, $1.order & 1, $1.order) }
                for e in events {
                    buffer += "\(person)\t\(person)\t\(stamp(e.time, offset: false))\t\(e.text)\n"
                    summary.lines += 1
                }
            case .csv:
                var lines: [(time: Int64, order: Int, text: String)] = []
                for session in sessions {
                    let app = s.widgets[session.widget].app
                    lines.append((session.start, lines.count, "\(person),\(stamp(session.start, offset: true)),\(stamp(max(session.start, session.end), offset: true)),\(app),session"))
                    if session.donates { lines.append((session.start, lines.count, "\(person),\(stamp(session.start, offset: true)),,\(app),donation")) }
                }
                for view in w.views where !view.standBy && view.time < end {
                    lines.append((view.time, lines.count, "\(person),\(stamp(view.time, offset: true)),,,view"))
                }
                lines.sort { ($0.time, $0.order) < ($1.time, $1.order) }
                for line in lines {
                    buffer += line.text + "\n"
                    summary.lines += 1
                }
            }
            do { try flush(false) } catch { throw fail(error) }
        }
        do { try flush(true) } catch { throw fail(error) }
        do {
            try handle.close()
            guard rename(temporary.path, path) == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: String(cString: strerror(errno))])
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw .write("cannot write \(path): \(error.localizedDescription)")
        }
        return summary
    }
}
