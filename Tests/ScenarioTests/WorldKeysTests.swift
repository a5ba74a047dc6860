import Foundation
import Testing
import WidgetSimModel
@testable import WidgetSimScenario

/// The keys of the world's processes: StandBy, audio sessions, widgets added, donated
/// configurations and Widget Suggestions.
@Suite struct WorldKeysTests {
    static let yaml = minimal(inserting:
        "    configuration: {city: Berlin}",
        "    donated_configurations: [{configuration: {city: Berlin}, weight: 3}, {configuration: {city: Oslo}}]",
        "    audio_sessions: {per_day: 2, length: {median: 20m, sigma: 0.5}}",
        "  - id: maps",
        "    interest: {base: 0.5}",
        "    timeline: {horizon: 1h}",
        "    added_after: 34h",
        "  - id: music",
        "    interest: {base: 0.2}",
        "    timeline: {horizon: 1h}",
        "stack: {members: [weather, maps], widget_suggestions: true, suggestable: [music]}",
        "person: {standby: {start_hour: 22.5, spread: 1h, length: {median: 8h}, views_per_hour: 1, refresh_interval: 30m}}",
        after: 10)

    @Test func theKeysReadIntoTheModel() throws {
        let s = try parse(Self.yaml)
        let weather = s.widgets[0]
        #expect(weather.donatedConfigurations == [
            DonatedConfiguration(["city": "Berlin"], weight: 3), DonatedConfiguration(["city": "Oslo"], weight: 1),
        ])
        #expect(weather.audioSessions?.perDay == 2 && weather.audioSessions?.medianMs == 20 * 60_000)
        #expect(weather.audioSessions?.sigma == 0.5 && weather.audioSessions?.profile == HourProfile.diurnal)
        #expect(s.widgets[1].addedAfterMs == 34 * 3_600_000 && weather.addedAfterMs == nil)
        #expect(s.stack.members == [0, 1] && s.stack.suggestable == [2] && s.stack.widgetSuggestions)
        let standBy = try #require(s.person.standBy)
        #expect(standBy.startHour == 22.5 && standBy.spreadMs == 3_600_000 && standBy.medianMs == 8 * 3_600_000)
        #expect(standBy.sigma == StandByModel().sigma && standBy.viewsPerHour == 1)
        #expect(standBy.refreshIntervalMs == 30 * 60_000 && StandByModel().refreshIntervalMs == 15 * 60_000)
        #expect(try parse(minimal).stack.widgetSuggestions == false)
        #expect(try parse(minimal(adding: "person: {standby: {}}")).person.standBy == StandByModel())
    }

    @Test func badValuesAreLocated() {
        #expect(problems(minimal(adding: "person: {standby: {start_hour: 24}}")) == [
            "test.yaml:13:32: person.standby.start_hour: must be less than 24, got 24",
        ])
        #expect(problems(minimal(adding: "person: {standby: {refresh_interval: 30s}}")) == [
            "test.yaml:13:38: person.standby.refresh_interval: must be at least 1m (each refresh reloads every widget), got 30s",
        ])
        #expect(problems(minimal(inserting: "    donated_configurations: [{configuration: {a: b}, weight: 0}]", after: 10)) == [
            "test.yaml:11:62: widgets[0].donated_configurations[0].weight: must be positive, got 0",
        ])
        #expect(problems(minimal(inserting: "    audio_sessions: {length: {median: 1m}}", after: 10)).first?
            .contains("widgets[0].audio_sessions: missing required key `per_day`") == true)
        #expect(problems(minimal(adding: "stack: {members: [weather], suggestable: [weather]}")) == [
            "test.yaml:13:43: stack.suggestable[0]: widget `weather` is in the stack; suggestable widgets are placed nowhere",
        ])
    }
}
