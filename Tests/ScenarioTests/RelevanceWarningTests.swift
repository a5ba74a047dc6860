import Testing
import WidgetSimModel
import WidgetSimScenario

/// `validate` warns where a scenario combines relevance keys so that one has no effect
/// (MODEL §5: a baseline, a score or an event length is never silently ignored).
@Suite struct RelevanceWarningTests {
    /// The warnings of a scenario whose second widget, a calendar, has `relevance` and
    /// `content` (line 14: content, 15: relevance), with the stack's `members` if given.
    func warnings(relevance: String, content: String, stack: String? = nil) throws -> [String] {
        var lines = [
            "name: minimal", "seed: 7", "days: 3", "people: 10", "start: 2026-03-02", "time_zone: Europe/Berlin",
            "widgets:",
            "  - id: weather", "    interest: {base: 0.3}", "    timeline: {horizon: 6h}",
            "  - id: calendar", "    interest: {base: 0.3}", "    timeline: {horizon: 12h}",
            "    content: \(content)", "    relevance: \(relevance)",
        ]
        if let stack { lines += ["stack:", "  members: \(stack)"] }
        lines += ["budgets: [unlimited]", "rankings: [relevance]"]
        let text = lines.joined(separator: "\n") + "\n"
        let s = try ScenarioLoader.parse(yaml: text, file: "test.yaml")
        return ScenarioWarnings.check(yaml: text, file: "test.yaml", scenario: s).map(\.description)
    }

    @Test func meaningfulCombinationsDoNotWarn() throws {
        #expect(try warnings(relevance: "{model: scheduled, score: 10, baseline: 1, lead: 30m, duration: 30m}",
                             content: "{scheduled_per_day: 4}").isEmpty)
        #expect(try warnings(relevance: "{model: scheduled, score: 10, baseline: 1, duration: 0s}",
                             content: "{scheduled_per_day: 4, scheduled_length: 45m}").isEmpty)
        #expect(try warnings(relevance: "{model: scheduled, score: 10, lead: 10m, duration: 0s}",
                             content: "{scheduled_per_day: 4, scheduled_length: 0s}").isEmpty)
        #expect(try warnings(relevance: "{model: breaking, score: 8, baseline: 1, duration: 1h}",
                             content: "{random_per_day: 4}").isEmpty)
    }

    @Test func keysWithoutEffectWarn() throws {
        #expect(try warnings(relevance: "{model: scheduled, score: 10, baseline: 1, lead: 30m, duration: 30m}",
                             content: "{scheduled_per_day: 4, scheduled_length: 1h}") == [
            "test.yaml:14:55: widgets[1].content.scheduled_length: warning: only a `scheduled` relevance with "
                + "`duration: 0` ends with the event; for `calendar` `scheduled_length` has no effect",
        ])
        #expect(try warnings(relevance: "{model: scheduled, score: 10, baseline: 1, duration: 30m}",
                             content: "{random_per_day: 4}") == [
            "test.yaml:15:42: widgets[1].relevance.score: warning: `content.scheduled_per_day` is 0, so `calendar` "
                + "has no scheduled changes and always carries its baseline: its score has no effect",
        ])
        #expect(try warnings(relevance: "{model: scheduled, score: 10, baseline: 1, duration: 0s}",
                             content: "{scheduled_per_day: 4, scheduled_length: 0s}") == [
            "test.yaml:15:42: widgets[1].relevance.score: warning: with `lead` 0, `duration` 0 and events of "
                + "`scheduled_length` 0 each window ends where it starts: the score of `calendar` has no effect",
        ])
        #expect(try warnings(relevance: "{model: breaking, levels: [{score: 8, share: 1}], baseline: 1, duration: 1h}",
                             content: "{scheduled_per_day: 4}").map { $0.prefix(52) } == [
            "test.yaml:15:42: widgets[1].relevance.levels: warnin",
        ])
        #expect(try warnings(relevance: "{model: constant, score: 1}", content: "{}", stack: "[weather]") == [
            "test.yaml:15:16: widgets[1].relevance: warning: `calendar` is in no stack, and only stack members "
                + "are ranked: its relevance has no effect",
        ])
    }
}

