import EngineTestSupport
import Foundation
import Testing
import WidgetSimExecution
import WidgetSimModel
import WidgetSimReports

/// The order of events of the shipped scenarios, pinned by its fingerprint
/// (`Golden/fingerprints.txt`): a change that moves one event shows here even when every
/// report byte stays. After an intended change of event order, regenerate with
/// `WIDGETSIM_UPDATE_GOLDEN=1 swift test --filter EventFingerprintTests` and say why.
@Suite struct EventFingerprintTests {
    /// The scenarios and sizes fingerprinted: every budget and ranking of the default
    /// scenario, the tiny scenario of the golden reports, the reference workload.
    static let cases: [(file: String, people: Int, days: Int)] = [
        ("tiny.yaml", 3, 3), ("default.yaml", 2, 3), ("bench-reference.yaml", 5, 7),
    ]

    func fingerprint(_ s: Scenario) throws -> EventFingerprint {
        let print = EventFingerprint()
        let runner = Runner(scenario: s, threads: 2)
        runner.trace = print
        _ = try runner.run()
        return print
    }

    func scenario(_ file: String, people: Int, days: Int) throws -> Scenario {
        var s = try loadScenario(file)
        s.people = people
        s.days = days
        s.replications = 1
        return s
    }

    @Test func theShippedScenariosKeepTheirOrderOfEvents() throws {
        var lines: [String] = []
        for c in Self.cases {
            let s = try scenario(c.file, people: c.people, days: c.days)
            let print = try fingerprint(s)
            // Every event the run counted went through the fingerprint (a view and its
            // decision are one line).
            #expect(print.events > 0)
            lines.append("\(c.file) people=\(c.people) days=\(c.days) events=\(print.events) fingerprint=\(print.value)")
        }
        let text = lines.joined(separator: "\n") + "\n"
        let url = repositoryRoot.appendingPathComponent("Tests/ReportsTests/Golden/fingerprints.txt")
        if ProcessInfo.processInfo.environment["WIDGETSIM_UPDATE_GOLDEN"] == "1" {
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        #expect(text == (try String(contentsOf: url, encoding: .utf8)))
    }

    /// The fingerprint sees what the reports may not: another seed, or one person's
    /// events in another order, changes it; the same run gives the same one.
    @Test func theFingerprintChangesWithTheOrderOfEvents() throws {
        let s = try scenario("tiny.yaml", people: 2, days: 2)
        let a = try fingerprint(s), b = try fingerprint(s)
        #expect(a.value == b.value && a.events == b.events)
        var other = s
        other.seed &+= 1
        #expect(try fingerprint(other).value != a.value)

        let x = EventFingerprint(), y = EventFingerprint()
        x.record(time: 1, person: 0, pair: nil, event: "view", widget: "", decision: "", reason: "")
        x.record(time: 2, person: 0, pair: nil, event: "session_start", widget: "mail", decision: "", reason: "")
        y.record(time: 2, person: 0, pair: nil, event: "session_start", widget: "mail", decision: "", reason: "")
        y.record(time: 1, person: 0, pair: nil, event: "view", widget: "", decision: "", reason: "")
        #expect(x.value != y.value)
        #expect(x.events == 2 && y.events == 2)
    }
}
