import Foundation
import Testing
import WidgetSimKernel
import WidgetSimSampling
@testable import WidgetSimModel

/// A `WorldBuilder` writes each person's lists over the last person's (`Array.resize(to:filler:)`),
/// longer or shorter, and shares the clock of those who stay at
/// home: each world it builds must be the one a fresh builder builds for that person.
@Suite struct WorldReuseTests {
    /// Every list of `w` the engine reads, one string each.
    static func lists(_ w: PersonWorld) -> [String] {
        [
            w.views.map { "\($0.time) \($0.hour) \($0.weekday) \($0.wanted) \($0.wouldSwipe) \($0.wouldTap) \($0.standBy)" }
                .joined(separator: ","),
            w.sessions.map { "\($0.start) \($0.end) \($0.widget) \($0.donates) \($0.donatedInstance) \($0.hour)" }
                .joined(separator: ","),
            "\(w.sessionEnds.map { "\($0.time) \($0.widget)" })",
            "\(w.pushTimes)", "\(w.scheduled)", "\(w.timeChanges)",
            "\(w.randomChanges.map { "\($0.time) \($0.widget)" })", "\(w.pushes.map { "\($0.time) \($0.widget)" })",
            "\(Array(w.order.keys)) \(w.order.viewCount)", "\(w.hours.spans.count) \(w.clock.pieces.count)",
        ]
    }

    @Test(arguments: [(GeneratorKind.taus2, 0.0, "UTC"), (.taus2, 0.7, "Europe/Berlin"), (.mt19937, 0.0, "UTC"),
                      (.mt19937, 0.7, "America/New_York")])
    func aReusedBuilderBuildsWhatAFreshOneBuilds(generator: GeneratorKind, sigma: Double, zone: String) throws {
        var s = try loadScenario("bench-reference.yaml")
        s.days = 9
        s.timeZone = zone
        s.start = CalendarDate(year: 2026, month: 3, day: 25)
        s.generator = generator
        // Rates that differ from person to person, so that the lists grow and shrink.
        s.person.viewsPerDay.cv = 0.8
        s.person.sessionsPerDay.cv = 0.8
        s.person.sessionSigma = sigma
        for i in s.widgets.indices { s.widgets[i].content.pushLatencySigma = sigma }
        let reused = try WorldBuilder(scenario: s)
        var compared = 0
        for person in 0 ..< 12 {
            let expected = Self.lists(try WorldBuilder(scenario: s).build(person: person, replication: 0))
            let got = Self.lists(reused.build(person: person, replication: 0))
            for (i, (a, b)) in zip(got, expected).enumerated() where a != b {
                Issue.record("person \(person), list \(i): the reused builder's differs from a fresh one's")
            }
            compared += expected[0].count + expected[1].count
        }
        #expect(compared > 10_000)
    }
}
