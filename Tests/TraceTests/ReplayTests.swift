import Foundation
import Testing
import WidgetSimKernel
import WidgetSimModel
import WidgetSimScenario
@testable import WidgetSimTrace

/// `trace:` in a scenario: the log's people and sessions replace the drawn ones.
@Suite struct ReplayTests {
    static func scenario(trace: String, log: String = TraceReaderTests.lsapp, days: Int = 7) throws -> (String, String) {
        let logPath = try temporaryFile("small.tsv", log)
        let yaml = """
            name: replay
            seed: 3
            days: \(days)
            time_zone: Europe/Rome
            trace: \(trace)
            widgets:
              - {id: mail, interest: {base: 0.5}, timeline: {horizon: 1h}}
              - {id: weather, interest: {base: 0.3}, timeline: {horizon: 1h}}
              - {id: news, interest: {base: 0.2}, timeline: {horizon: 1h}}
            budgets: [unlimited]
            rankings: [static, time_of_day]

            """
        let file = URL(fileURLWithPath: logPath).deletingLastPathComponent().appendingPathComponent("replay.yaml").path
        try Data(yaml.utf8).write(to: URL(fileURLWithPath: file))
        return (file, logPath)
    }

    @Test func theLogGivesPeopleDaysAndSessions() throws {
        let (file, _) = try Self.scenario(trace: "{path: small.tsv, format: lsapp, apps: {mail: Gmail, weather: Weather}}")
        let s = try ScenarioLoader.load(path: file)
        #expect(s.people == 2)
        #expect(s.start == CalendarDate(year: 2026, month: 3, day: 2))
        #expect(s.days == 2)
        let replay = try #require(s.replay)
        // Person 1: Gmail at 08:00 for 2 min, Weather at 08:03 for 10 s (News is not mapped).
        let h8 = 8 * Milliseconds.hour, minute = Milliseconds.minute
        #expect(replay.people[0] == [
            ReplayedSession(start: h8, end: h8 + 2 * minute, widget: 0),
            ReplayedSession(start: h8 + 3 * minute, end: h8 + 3 * minute + 10_000, widget: 1),
        ])
        // Person 2, a day later: Gmail reopened after 40 s, then 4 min 20 s.
        let noon = Milliseconds.day + 12 * Milliseconds.hour + 10 * minute
        #expect(replay.people[1] == [
            ReplayedSession(start: noon, end: noon + 40_000, widget: 0),
            ReplayedSession(start: noon + 40_000, end: noon + 5 * minute, widget: 0),
        ])
        // The world holds exactly these sessions, at their local hours, the same at every build.
        let builder = try WorldBuilder(scenario: s)
        let world = builder.build(person: 0, replication: 0)
        #expect(world.sessions.map(\.start) == [h8, h8 + 3 * minute])
        #expect(world.sessions.map(\.widget) == [0, 1])
        #expect(world.sessions.map(\.hour) == [8, 8])
        #expect(world.sessions.map(\.weekday) == [0, 0])
        #expect(world.sessionEnds.map(\.time) == [h8 + 2 * minute, h8 + 3 * minute + 10_000])
        let donations = world.sessions.map(\.donates)
        let again = builder.build(person: 0, replication: 0)
        #expect(again.sessions.map(\.donates) == donations)
        // Views are still drawn from the model.
        #expect(world.views.count > 100)
        // The reading's warnings are the scenario's, at `trace:`.
        let warnings = ScenarioWarnings.check(path: file, scenario: s).map(\.description)
        #expect(warnings.contains { $0.hasPrefix("\(file):5:8: trace: ") && $0.contains("a line earlier than its person's previous line") })
    }

    @Test func fewerScenarioDaysCutTheLog() throws {
        let (file, _) = try Self.scenario(trace: "{path: small.tsv, format: lsapp, apps: {mail: Gmail}}", days: 1)
        let s = try ScenarioLoader.load(path: file)
        #expect(s.days == 1)
        let world = try WorldBuilder(scenario: s).build(person: 1, replication: 0)
        #expect(world.sessions.isEmpty)
    }

    @Test func problemsAreLocated() throws {
        let (unknown, _) = try Self.scenario(trace: "{path: small.tsv, format: lsapp, apps: {mial: Gmail}}")
        let e1 = try #require(throws: ScenarioErrors.self) { try ScenarioLoader.load(path: unknown) }
        #expect(e1.description == "\(unknown):5:48: trace.apps: widget `mial` is not defined under widgets")
        let (format, _) = try Self.scenario(trace: "{path: small.tsv, format: tsv, apps: {mail: Gmail}}")
        let e2 = try #require(throws: ScenarioErrors.self) { try ScenarioLoader.load(path: format) }
        #expect(e2.description == ("\(format):5:34: trace.format: unknown log format `tsv`; did you mean `csv`? Valid: lsapp, csv"))
        let (broken, log) = try Self.scenario(trace: "{path: small.tsv, format: lsapp, apps: {mail: Gmail}}",
                                              log: "u\t1\t2026-03-02 08:00:00\tGmail\n")
        let e3 = try #require(throws: ScenarioErrors.self) { try ScenarioLoader.load(path: broken) }
        #expect(e3.description == "\(broken):5:8: trace.path: the log cannot be read: \(log):1: 4 tab-separated fields, expected 5: user_id, session_id, timestamp, app_name, event_type")
    }
}
