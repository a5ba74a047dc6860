import Foundation
import WidgetSimModel
import WidgetSimTrace
import Yams

/// `trace:`: the people's sessions replayed from a usage log (scenarios/README.md,
/// "Replaying a log").
struct TraceRequest {
    var path: String
    var format: TraceFormat
    var timeZone: String?
    /// (widget id, the log's app name), in file order.
    var apps: [(widget: String, app: String, node: Node)]
    var node: Node
}

extension ScenarioReader {
    static let traceKeys = ["path", "format", "time_zone", "apps"]

    func trace(_ node: Node, _ path: String) -> TraceRequest? {
        guard let f = fields(node, path, keys: Self.traceKeys, what: "a mapping {path, format, time_zone, apps}") else { return nil }
        let file = required("path", in: f).flatMap { text($0, f.path("path")) }
        let format = required("format", in: f).flatMap {
            choice($0, f.path("format"), what: "log format", options: TraceFormat.allCases.map { ($0.rawValue, $0) })
        }
        let zone = f.read("time_zone") { self.timeZone($0, $1) }
        var apps: [(widget: String, app: String, node: Node)] = []
        if let appsNode = required("apps", in: f) {
            if case .mapping(let mapping) = appsNode, !mapping.isEmpty {
                for (key, value) in pairs(of: mapping, f.path("apps")) {
                    let keyPath = f.path("apps")
                    guard let widget = word(key, keyPath, allowing: [".", "-"]),
                          let app = text(value, keyPath.appending(key: widget)) else { continue }
                    apps.append((widget, app, key))
                }
            } else {
                report("expected a mapping of widget ids to the log's app names ({mail: \"Gmail\"}), got \(Self.found(appsNode))",
                       at: appsNode, path: f.path("apps"))
            }
        }
        guard let file, let format, !apps.isEmpty else { return nil }
        return TraceRequest(path: file, format: format, timeZone: zone, apps: apps, node: node)
    }

    /// Reads the log of `request` into `scenario`: its people and sessions, its first day
    /// as the start, and at most its days. Problems are reported at `trace:`.
    func replay(_ request: TraceRequest, into scenario: inout Scenario, path: String) {
        var appOfWidget = [String?](repeating: nil, count: scenario.widgets.count)
        for a in request.apps {
            guard let i = scenario.widgets.firstIndex(where: { $0.id == a.widget }) else {
                report("widget `\(a.widget)` is not defined under widgets", at: a.node, path: path.appending(key: "apps"))
                continue
            }
            appOfWidget[i] = a.app
        }
        guard issues.isEmpty else { return }
        // The widgets' apps, widget i's at index i; a widget not mapped gets a name no log holds.
        let names = appOfWidget.enumerated().map { $0.element ?? "\u{0}unmapped \($0.offset)" }
        let zoneName = request.timeZone ?? scenario.timeZone
        guard let zone = TimeZone(identifier: zoneName) else { return }
        var logPath = request.path
        if !logPath.hasPrefix("/") {
            logPath = URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent(logPath).path
        }
        let log: TraceReplayLog
        do {
            log = try TraceReplayLog.read(path: logPath, format: request.format, zone: zone, apps: names)
        } catch {
            report("the log cannot be read: \(error.description)", at: request.node, path: path.appending(key: "path"))
            return
        }
        guard !log.people.isEmpty, log.days > 0 else {
            report("the log \(logPath) holds no person", at: request.node, path: path.appending(key: "path"))
            return
        }
        scenario.start = log.firstDate
        scenario.days = min(scenario.days, log.days)
        scenario.people = log.people.count
        guard let epoch = LocalClock.startOfDay(scenario.start, in: TimeZone(identifier: scenario.timeZone) ?? zone) else { return }
        var warnings = log.warnings.map(\.description)
        for app in log.missingApps where !app.hasPrefix("\u{0}") {
            warnings.append("\(logPath):0: warning: the mapped app \"\(app)\" never occurs in the log: its widget has no sessions")
        }
        scenario.replay = ReplayedSessions(
            people: log.people.map { sessions in
                sessions.map { ReplayedSession(start: $0.start - epoch, end: max($0.end, $0.start + 1) - epoch, widget: $0.widget) }
            },
            source: logPath, warnings: warnings)
    }
}
