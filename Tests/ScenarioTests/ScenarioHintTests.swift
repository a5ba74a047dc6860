import Foundation
import Testing
import WidgetSimKernel
import WidgetSimModel
@testable import WidgetSimScenario

/// Hints for the commonest mistakes, and warnings for files that run but likely mean
/// something else.
@Suite struct ScenarioHintTests {
    @Test func misspeltTopLevelKeyIsReportedAtItsOwnLine() {
        // `people` misspelt on line 4: not "missing required key `people`" at 1:1.
        #expect(problems(minimal(replacing: 4, with: "peeple: 10")) == [
            "test.yaml:4:1: peeple: unknown key `peeple`; did you mean `people`?",
        ])
        // A missing key with no misspelling in sight is still reported at its mapping.
        #expect(problems(minimal(removing: 4)) == ["test.yaml:1:1: (file): missing required key `people`"])
    }

    @Test func keyThatIsAPrefixOfAValidOne() {
        #expect(problems(minimal(adding: "warmup: 1")) == [
            "test.yaml:13:1: warmup: unknown key `warmup`; did you mean `warmup_days`?",
        ])
        // And one a valid key is a prefix of.
        #expect(problems(minimal(adding: "replications_count: 2")) == [
            "test.yaml:13:1: replications_count: unknown key `replications_count`; did you mean `replications`?",
        ])
        #expect(Hints.nearestKey("re", in: ["replications", "reload"]) == nil)
    }

    @Test func interestGivenAsANumber() {
        #expect(problems(minimal(replacing: 9, with: "    interest: 0.2")) == [
            "test.yaml:9:15: widgets[0].interest: expected an interest mapping, got `0.2`; "
                + "a number alone is the base interest: write `interest: {base: 0.2}`",
        ])
    }

    @Test func stackGivenAsAList() {
        #expect(problems(minimal(adding: "stack: [weather]")) == [
            "test.yaml:13:8: stack: expected a mapping, got a list; "
                + "the stack is a mapping of its members and settings: write `stack: {members: [weather]}`",
        ])
    }

    @Test func durationWithASpaceIsRefused() {
        #expect(problems(minimal(replacing: 10, with: "    timeline: {horizon: 6 h}")) == [
            "test.yaml:10:25: widgets[0].timeline.horizon: expected a duration with a unit (ms, s, m, h, d), "
                + "got `6 h`; write `6h`, without a space",
        ])
        #expect(DurationText.parse("30 m") == nil && DurationText.parse("30m") == 30 * Milliseconds.minute)
        #expect(DurationText.parse("250 ms") == nil && DurationText.parse(" 1.5h ") == 90 * Milliseconds.minute)
    }

    @Test func fixedOffsetZoneWarns() throws {
        let est = minimal(replacing: 6, with: "time_zone: EST")
        let s = try parse(est)  // it runs
        #expect(ScenarioWarnings.check(yaml: est, file: "test.yaml", scenario: s).map(\.description) == [
            "test.yaml:6:12: time_zone: warning: `EST` is a fixed offset (UTC−05:00 all year) with no daylight "
                + "saving time; for a place that changes its clocks use its region's zone, e.g. `America/New_York`",
        ])
        // Zones with daylight saving, and UTC, are meant as written.
        for zone in ["Europe/Berlin", "America/New_York", "UTC", "EST5EDT", "America/Phoenix"] {
            let text = minimal(replacing: 6, with: "time_zone: \(zone)")
            #expect(ScenarioWarnings.check(yaml: text, file: "test.yaml", scenario: try parse(text)).isEmpty, "\(zone)")
        }
        // Trips' zones too.
        let trip = minimal(adding: "person:", "  travel: {trips_per_day: 0.1, zones: [Europe/London, Etc/GMT+5], mean_stay: 2d}")
        #expect(ScenarioWarnings.check(yaml: trip, file: "test.yaml", scenario: try parse(trip)).map(\.path)
            == ["person.travel.zones[1]"])
    }
}
