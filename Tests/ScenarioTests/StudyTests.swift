import Foundation
import Testing
import WidgetSimKernel
import WidgetSimModel
@testable import WidgetSimScenario

/// `study:` sections, study paths, `--set` and `--sweep`: what a study reads into, and
/// where its mistakes are reported.
@Suite struct StudyTests {
    /// The minimal scenario with two budgets (one labelled), a widget with content, and
    /// the given study lines after it (line 17 on).
    func file(_ study: String...) -> String {
        """
        name: minimal
        seed: 7
        days: 3
        people: 10
        start: 2026-03-02
        time_zone: Europe/Berlin
        widgets:
          - id: weather
            interest: {base: 0.3}
            timeline: {horizon: 6h, reload: {after: 1h}}
            content: {random_per_day: 2}
        budgets:
          - unlimited
          - {policy: daily_quota, label: quota, per_day: 12}
          - fixed_interval
        rankings: [static, hybrid]

        """ + study.joined(separator: "\n") + "\n"
    }

    func study(_ yaml: String, _ request: StudyRequest = StudyRequest()) throws(ScenarioErrors) -> Study {
        try ScenarioLoader.study(yaml: yaml, file: "s.yaml", request, budgets: TestCatalogs.budgets, rankings: TestCatalogs.rankings)
    }

    func errors(_ yaml: String, _ request: StudyRequest = StudyRequest(), sourceLocation: SourceLocation = #_sourceLocation) -> [String] {
        do {
            let s = try study(yaml, request)
            Issue.record("expected errors, but a study of \(s.points.count) points was read", sourceLocation: sourceLocation)
            return []
        } catch {
            return error.issues.map(\.description)
        }
    }

    func quota(_ s: Scenario) -> ParameterValue? { s.budgets.first { $0.label == "quota" }?.parameters["per_day"] }

    @Test func gridPointsVaryTheLastParameterFastest() throws {
        let s = try study(file(
            "study:",
            "  parameters:",
            "    - {path: budgets.quota.per_day, values: [20, 40]}",
            "    - {path: widgets.weather.timeline.reload.after, values: [5m, 15m, 1h]}"))
        #expect(s.parameters == ["budgets.quota.per_day", "widgets.weather.timeline.reload.after"])
        #expect(s.points.map(\.values) == [["20", "5m"], ["20", "15m"], ["20", "1h"], ["40", "5m"], ["40", "15m"], ["40", "1h"]])
        #expect(s.points.map(\.number) == Array(0 ..< 6))
        #expect(s.points.map { quota($0.scenario) } == [.number(20), .number(20), .number(20), .number(40), .number(40), .number(40)])
        #expect(s.points.map(\.scenario.widgets[0].timeline.reload) == [5, 15, 60, 5, 15, 60].map { .after(Int64($0) * Milliseconds.minute) })
        // Everything else is the file's.
        for p in s.points {
            #expect(p.scenario.seed == 7 && p.scenario.people == 10 && p.scenario.budgets.count == 3)
        }
    }

    @Test func zipRangesBaselineAndEnums() throws {
        let s = try study(file(
            "study:",
            "  parameters:",
            "    - {path: person.views_per_day.mean, range: {from: 40, to: 120, step: 40}}",
            "    - {path: generator, values: [taus2, mt19937, gfsr4]}",
            "  combine: zip",
            "  baseline_point: 1"))
        #expect(s.points.map(\.values) == [["40", "taus2"], ["80", "mt19937"], ["120", "gfsr4"]])
        #expect(s.points.map(\.scenario.person.viewsPerDay.mean) == [40, 80, 120])
        #expect(s.points.map(\.scenario.generator) == [.taus2, .mt19937, .gfsr4])
        #expect(s.baselinePoint == 1)
    }

    @Test func rangesOfDecimalsAndDurationsReadAsWritten() throws {
        #expect(try StudyRange.values(from: "0.1", to: "0.5", step: "0.2").get() == ["0.1", "0.3", "0.5"])
        #expect(try StudyRange.values(from: "5m", to: "1h", step: "15m").get() == ["5m", "20m", "35m", "50m"])
        #expect(try StudyRange.values(from: "30m", to: "2h", step: "30m").get() == ["30m", "1h", "90m", "2h"])
        #expect(try StudyRange.values(from: "20", to: "70", step: "10").get().count == 6)
    }

    @Test func aBarePolicyNameAndAMissingKeyCanBeSet() throws {
        let s = try study(file(), StudyRequest(sets: ["budgets.fixed_interval.interval=2h", "person.no_interest=0.9"]))
        #expect(s.points.count == 1 && !s.isStudy)
        #expect(s.first.budgets[2].parameters["interval"] == .duration(2 * Milliseconds.hour))
        #expect(s.first.person.noInterest == 0.9)
    }

    @Test func sweepsAddParametersAndPointSelectsOne() throws {
        let s = try study(file(), StudyRequest(sweeps: ["budgets.quota.per_day=20..70:10", "rankings.hybrid.mode=a,b"], point: 7))
        #expect(s.totalPoints == 12)
        #expect(s.points.map(\.number) == [7])
        #expect(s.points[0].values == ["50", "b"])
        #expect(quota(s.first) == .number(50))
    }

    @Test func unknownPathsSuggestTheNearestValidOne() {
        let lines = ["study:", "  parameters:", "    - {path: budgets.quota.per_dya, values: [20]}"]
        #expect(errors(file(lines[0], lines[1], lines[2])) == [
            "s.yaml:19:14: study.parameters[0].path: unknown path `budgets.quota.per_dya`; did you mean `budgets.quota.per_day`?",
        ])
        #expect(errors(file(), StudyRequest(sweeps: ["widgets.wether.content.random_per_day=1,2"])) == [
            "(command line):0:0: --sweep widgets.wether.content.random_per_day=1,2: unknown path `widgets.wether.content.random_per_day`: `widgets` has no entry `wether`; did you mean `widgets.weather`?",
        ])
        #expect(errors(file(), StudyRequest(sets: ["person.no_intrest=1"])) == [
            "(command line):0:0: --set person.no_intrest=1: unknown path `person.no_intrest`; did you mean `person.no_interest`?",
        ])
        // A key that exists but has nothing inside.
        #expect(errors(file(), StudyRequest(sets: ["seed.value=1"])).first?.contains("`seed` is a single value in the file") == true)
    }

    @Test func wrongValuesAreReportedWhereTheyAreWritten() {
        #expect(errors(file(
            "study:",
            "  parameters:",
            "    - {path: budgets.quota.per_day, values: [20, 2.5, 0]}",
            "    - path: widgets.weather.timeline.horizon",
            "      values: [1h, 30]")) == [
            "s.yaml:19:50: study.parameters[0].values[1]: `budgets.quota.per_day` = `2.5`: 2.5 is not a whole number",
            "s.yaml:19:55: study.parameters[0].values[2]: `budgets.quota.per_day` = `0`: 0 is outside 1…1000",
            "s.yaml:21:20: study.parameters[1].values[1]: `widgets.weather.timeline.horizon` = `30`: expected a duration with a unit (ms, s, m, h, d), got `30`",
        ])
        #expect(errors(file("study: {parameters: [{path: generator, values: [taus3]}]}")).count == 1)
    }

    @Test func emptyInfiniteAndUnequalStudiesAreRefused() {
        let p = "    - {path: budgets.quota.per_day, "
        #expect(errors(file("study:", "  parameters:", p + "range: {from: 50, to: 20, step: 10}}")) == [
            "s.yaml:19:59: study.parameters[0].range.to: is below `from`: the range is empty",
        ])
        #expect(errors(file("study:", "  parameters:", p + "range: {from: 20, to: 50, step: 0}}")) == [
            "s.yaml:19:69: study.parameters[0].range.step: must be positive, got 0: the range would never end",
        ])
        #expect(errors(file("study:", "  parameters:", p + "values: []}")) == [
            "s.yaml:19:45: study.parameters[0].values: must list at least one value",
        ])
        #expect(errors(file(
            "study:", "  parameters:", p + "values: [10, 20]}", "    - {path: person.no_interest, values: [0.1, 0.2, 0.3]}",
            "  combine: zip")) == [
            "s.yaml:21:12: study.combine: zip needs parameters of equal lengths, but study.parameters[0] has 2 values and study.parameters[1] has 3",
        ])
        #expect(errors(file("study:", "  parameters:", p + "values: [10, 20]}", "  baseline_point: 2")) == [
            "s.yaml:20:19: study.baseline_point: must be a point number in 0…1, got 2",
        ])
    }

    @Test func studiesBeyondTheMaximumNeedPoint() throws {
        let sweeps = ["budgets.quota.per_day=1..100:1", "person.no_interest=0..1:0.1"]
        #expect(errors(file(), StudyRequest(sweeps: sweeps)) == [
            "(command line):0:0: study: a study of 1100 points, more than the maximum of 1000 run together; run it point by point with --point K (list the points with --points)",
        ])
        #expect(try study(file(), StudyRequest(sweeps: sweeps, point: 1099)).points[0].values == ["100", "1.0"])
        #expect(try study(file(), StudyRequest(sweeps: sweeps, listOnly: true)).points.count == 1100)
    }

    @Test func combinationsAreCheckedPointByPoint() {
        // Each value fits on its own; one combination leaves no day to measure.
        #expect(errors(file(
            "study:", "  parameters:", "    - {path: days, values: [2, 5]}", "    - {path: warmup_days, values: [1, 2]}")) == [
            "s.yaml:18:3: study: point 1 (days=2, warmup_days=2): warmup_days: must be less than days (2), got 2",
        ])
    }

    @Test func theNameAndListsCannotVary() {
        #expect(errors(file("study: {parameters: [{path: name, values: [a, b]}]}")) == [
            "s.yaml:17:29: study.parameters[0]: `name` cannot vary within a study: it names the report folder",
        ])
        #expect(errors(file("study: {parameters: [{path: budgets.quota, values: [a]}]}")) == [
            "s.yaml:17:29: study.parameters[0].path: `budgets.quota` is an entry of a list, not a value: a path names one value (a number, duration, word or flag)",
        ])
    }

    @Test func idsWithDotsAndPositionsNameListEntries() throws {
        let yaml = file().replacingOccurrences(of: "id: weather", with: "id: com.example.weather")
            .replacingOccurrences(of: "interest: {base: 0.3}", with: "interest: {base: 0.3, peaks: [{hour: 7, factor: 2}]}")
        let s = try study(yaml, StudyRequest(sweeps: [
            "widgets.com.example.weather.content.random_per_day=1,5",
            "widgets.com.example.weather.interest.peaks.0.factor=3",
        ]))
        #expect(s.points.map(\.scenario.widgets[0].content.randomPerDay) == [1, 5])
        #expect(s.points.map { $0.scenario.widgets[0].interest.peaks[0].factor } == [3, 3])
    }

    @Test func theFilesProblemsAndTheStudysAreReportedTogether() {
        let yaml = file("study: {parameters: [{path: days, values: [1]}], combine: grip}")
            .replacingOccurrences(of: "seed: 7", with: "seed: seven")
        #expect(errors(yaml) == [
            "s.yaml:2:7: seed: expected a whole number in 0…9223372036854775807, got `seven`",
            "s.yaml:17:59: study.combine: unknown combination `grip`; did you mean `grid`? Valid: grid, zip",
        ])
    }

    @Test func aFileWithAStudyParsesToItsFirstPoint() throws {
        let s = try parse(file("study: {parameters: [{path: budgets.quota.per_day, values: [30, 40]}]}"))
        #expect(quota(s) == .number(30))
    }
}

extension StudyTests {
    /// The system's rules (the rotation governor's limits in `stack:`, the push throttle
    /// in `person:`) are values of the file like any other: a study reaches them, even
    /// when the file does not write them, and checks them as the file would.
    @Test func theSystemsRulesCanVary() throws {
        let s = try study(file(
            "study:",
            "  parameters:",
            "    - {path: stack.rotation_limits, values: [ios, none]}",
            "    - {path: stack.hold_min, values: [5m, 20m]}",
            "    - {path: person.background_pushes_per_hour, values: [none, 2]}"))
        #expect(s.points.count == 8)
        #expect(s.points.map(\.scenario.stack.rotationLimits.mode) == [.ios, .ios, .ios, .ios, .none, .none, .none, .none])
        #expect(s.points.map(\.scenario.stack.rotationLimits.holdMinMs) == [5, 5, 20, 20, 5, 5, 20, 20].map { Int64($0) * Milliseconds.minute })
        #expect(s.points.map(\.scenario.person.backgroundPushesPerHour) == [nil, 2, nil, 2, nil, 2, nil, 2])
        // The file's other stack values stay the file's (the default members, in file order).
        #expect(s.points.allSatisfy { $0.scenario.stack.members == [0] && $0.scenario.stack.smartRotate })

        #expect(errors(file(
            "study:",
            "  parameters:",
            "    - {path: stack.rotation_limits, values: [ios, strict]}",
            "    - {path: person.background_pushes_per_hour, values: [0]}")) == [
            "s.yaml:19:51: study.parameters[0].values[1]: `stack.rotation_limits` = `strict`: `strict` is not one of ios, none",
            "s.yaml:20:58: study.parameters[1].values[0]: `person.background_pushes_per_hour` = `0`: 0 is outside 1…3600",
        ])
        #expect(errors(file(), StudyRequest(sweeps: ["stack.rotation_limit=ios,none"])) == [
            "(command line):0:0: --sweep stack.rotation_limit=ios,none: unknown path `stack.rotation_limit`; did you mean `stack.rotation_limits`?",
        ])
    }
}
