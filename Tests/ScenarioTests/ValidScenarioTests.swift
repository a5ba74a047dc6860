import Foundation
import Testing
import WidgetSimModel
import WidgetSimSampling
@testable import WidgetSimScenario
import WidgetSimTrace

/// Files that are right parse into exactly the values they say, with the model's defaults
/// for everything they leave out.
@Suite struct ValidScenarioTests {
    static func full() throws -> Scenario {
        try ScenarioLoader.load(path: fixture("full.yaml"), budgets: TestCatalogs.budgets, rankings: TestCatalogs.rankings)
    }

    @Test func topLevelSettings() throws {
        let s = try Self.full()
        #expect(s.name == "full-example_1")
        #expect(s.description == "Two people's phones, one week")
        #expect(s.seed == UInt64(Int64.max))
        #expect(s.days == 14)
        #expect(s.warmupDays == 2)
        #expect(s.replications == 3)
        #expect(s.people == 250)
        #expect(s.start == CalendarDate(year: 2028, month: 2, day: 29))
        #expect(s.timeZone == "Europe/Berlin")
        #expect(s.generator == .mt19937)
    }

    @Test func person() throws {
        let p = try Self.full().person
        #expect(p.viewsPerDay == PerPersonRate(mean: 90, cv: 0.25))
        #expect(p.viewProfile == HourProfile.waking)
        #expect(p.sessionsPerDay == PerPersonRate(mean: 12, cv: 0))
        #expect(p.sessionProfile.count == 24 && p.sessionProfile[18] == 3 && p.sessionProfile[22] == 0.5)
        #expect(p.sessionMedianMs == 90_000)
        #expect(p.sessionSigma == 0.4)
        #expect(p.donationProbability == 0.6)
        #expect(p.noInterest == 0.75)
        #expect(p.swipeProbability == 0.25)
        #expect(p.tapProbability == 0.1)
        #expect(p.pushWhileForegroundIsFree == false)
        #expect(p.environmentChangesPerDay == 0.05)
        let travel = try #require(p.travel)
        #expect(travel.tripsPerDay == 0.1)
        #expect(travel.zones == ["America/New_York", "Asia/Tokyo"])
        #expect(travel.meanStayMs == 216_000_000)
    }

    @Test func firstWidgetEveryField() throws {
        let w = try Self.full().widgets[0]
        #expect(w.id == "weather" && w.kind == "weather" && w.app == "weather")
        #expect(w.family == .medium)
        #expect(w.configuration == ["city": "Berlin", "units": "2", "metric": "true"])
        #expect(w.interactive == false)
        #expect(w.reloadCostMilli == 1250)
        #expect(w.usesNetwork == false)
        #expect(w.interest.base == 0.3)
        #expect(w.interest.hourly == HourProfile.office)
        #expect(w.interest.peaks == [InterestPeak(hour: 7, widthHours: 2, factor: 3),
                                     InterestPeak(hour: 18, widthHours: 1, factor: 1.5)])
        #expect(w.interest.weekday == [1, 1, 1, 1, 1, 0.5, 0])
        #expect(w.interest.afterPush == Burst(factor: 3, beforeMs: 0, afterMs: 1_800_000))
        #expect(w.interest.aroundScheduled == Burst(factor: 4, beforeMs: 900_000, afterMs: 3_600_000))
        #expect(w.timeline == TimelineSpec(horizonMs: 21_600_000, entrySpacingMs: 1500, reload: .after(90_000)))
        #expect(w.content.periodicMs == 3_600_000)
        #expect(w.content.scheduledPerDay == 4)
        #expect(w.content.scheduledProfile == HourProfile.flat)
        #expect(w.content.randomPerDay == 12)
        #expect(w.content.randomProfile == HourProfile.diurnal)
        #expect(w.content.pushFraction == 0.5)
        #expect(w.content.pushLatencyMedianMs == 45_000)
        #expect(w.content.pushLatencySigma == 0.2)
        #expect(w.relevance == .scheduled(score: 10, baseline: 1, leadMs: 1_800_000, durationMs: 3_600_000))
    }

    @Test func widgetDefaultsAndVariants() throws {
        let widgets = try Self.full().widgets
        #expect(widgets.map(\.id) == ["weather", "news", "calendar.work", "clock"])
        let news = widgets[1]
        #expect(news.kind == "headlines" && news.app == "headlines")
        #expect(news.interactive)
        #expect(news.timeline.reload == .never)
        #expect(news.timeline.entrySpacingMs == 300_000)
        #expect(news.relevance == .breaking(score: 8, baseline: 0, durationMs: 7_200_000))
        let calendar = widgets[2]
        #expect(calendar.kind == "calendar" && calendar.app == "com.example.calendar")
        #expect(calendar.timeline == TimelineSpec(horizonMs: 86_400_000, reload: .atEnd))
        #expect(calendar.relevance == .constant(score: 2))
        // Nothing but the required keys: the model's defaults.
        let clock = widgets[3]
        let defaults = ContentSpec()
        #expect(clock.family == .small)
        #expect(clock.configuration.isEmpty)
        #expect(clock.reloadCostMilli == 1000 && clock.usesNetwork)
        #expect(clock.interest.hourly == HourProfile.flat && clock.interest.peaks.isEmpty)
        #expect(clock.interest.weekday == Array(repeating: 1, count: 7))
        #expect(clock.interest.afterPush == nil && clock.interest.aroundScheduled == nil)
        #expect(clock.timeline.reload == .atEnd)
        #expect(clock.content == defaults)
        #expect(clock.relevance == .none)
    }

    @Test func stackMembersAreIndicesInTheGivenOrder() throws {
        let s = try Self.full()
        #expect(s.stack == StackSpec(members: [2, 0, 1], smartRotate: false))
    }

    @Test func policiesAndParameters() throws {
        let s = try Self.full()
        #expect(s.budgets == [
            PolicyChoice(name: "unlimited"),
            PolicyChoice(label: "quota48", name: "daily_quota",
                         parameters: PolicyParameters(["per_day": .number(48), "retry": .text("drop")])),
            PolicyChoice(name: "daily_quota",
                         parameters: PolicyParameters(["per_day": .number(12), "retry": .duration(900_000)])),
            PolicyChoice(label: "every-30m", name: "fixed_interval",
                         parameters: PolicyParameters(["interval": .duration(1_800_000)])),
        ])
        #expect(s.rankings == [
            PolicyChoice(name: "static"),
            PolicyChoice(name: "hybrid", parameters: PolicyParameters(
                ["weight": .number(0.25), "mode": .text("b"), "by_hour": .flag(true)])),
        ])
        #expect(s.baseline == PolicyPair(budget: "quota48", ranking: "hybrid"))
        #expect(s.policyPairs.count == 8)
    }

    @Test func minimalFileTakesTheModelDefaults() throws {
        let s = try parse(minimal)
        let person = PersonModel()
        #expect(s.description == "")
        #expect(s.warmupDays == 0 && s.replications == 1)
        #expect(s.generator == GeneratorKind.default)
        #expect(s.person.viewsPerDay == person.viewsPerDay)
        #expect(s.person.viewProfile == person.viewProfile)
        #expect(s.person.sessionMedianMs == person.sessionMedianMs)
        #expect(s.person.donationProbability == person.donationProbability)
        #expect(s.person.travel == nil)
        #expect(s.stack == StackSpec(members: [0], smartRotate: true))
        #expect(s.baseline == PolicyPair(budget: "unlimited", ranking: "static"))
    }

    @Test func partialMappingsKeepTheOtherDefaults() throws {
        let s = try parse(minimal(adding:
            "person:",
            "  views_per_day: {mean: 40}",
            "  session_length: {sigma: 0}",
            "stack: {members: [weather]}",
            "baseline: {ranking: static}"))
        #expect(s.person.viewsPerDay == PerPersonRate(mean: 40, cv: 0))
        #expect(s.person.sessionMedianMs == PersonModel().sessionMedianMs)
        #expect(s.person.sessionSigma == 0)
        #expect(s.stack.smartRotate == true)
        #expect(s.baseline == PolicyPair(budget: "unlimited", ranking: "static"))
    }

    @Test func durationsAndNumbersInTheirForms() throws {
        let s = try parse(minimal(replacing: 10, with: "    timeline: {horizon: 1.5h, entry_spacing: 2d, reload: {after: 1500ms}}"))
        #expect(s.widgets[0].timeline == TimelineSpec(horizonMs: 5_400_000, entrySpacingMs: 172_800_000, reload: .after(1500)))
        let t = try parse(minimal(replacing: 4, with: "people: 1e3"))
        #expect(t.people == 1000)
    }

    @Test func anchorsAndMergeKeysShareSettings() throws {
        let yaml = minimalLines[0 ..< 7].joined(separator: "\n") + """

              - &base
                id: weather
                family: medium
                reload_cost: {energy: 2}
                interest: {base: 0.3}
                timeline: {horizon: 6h}
              - <<: *base
                id: radar
                interest: {base: 0.9}
            budgets: [unlimited]
            rankings: [static]
            """
        let s = try parse(yaml)
        #expect(s.widgets.map(\.id) == ["weather", "radar"])
        #expect(s.widgets[1].family == .medium && s.widgets[1].reloadCostMilli == 2000)
        #expect(s.widgets[1].interest.base == 0.9)
        #expect(s.widgets[1].timeline.horizonMs == 21_600_000)
    }

    @Test func mergeKeysInPolicies() throws {
        let s = try parse(minimal(replacing: 11, with:
            "budgets:",
            "  - &quota {policy: daily_quota, per_day: 20}",
            "  - {<<: *quota, label: quota-drop, retry: drop}"))
        #expect(s.budgets[1] == PolicyChoice(label: "quota-drop", name: "daily_quota",
                                             parameters: PolicyParameters(["per_day": .number(20), "retry": .text("drop")])))
    }

    /// The real registries: every registered policy is accepted by name, with its defaults.
    @Test func everyRegisteredPolicyIsAcceptedByName() throws {
        var lines = Array(minimalLines.dropLast(2))
        lines.append("budgets: [\(BudgetPolicies.all.map(\.name).joined(separator: ", "))]")
        lines.append("rankings: [\(RankingPolicies.all.map(\.name).joined(separator: ", "))]")
        let s = try ScenarioLoader.parse(yaml: lines.joined(separator: "\n"), file: "all.yaml")
        #expect(s.budgets.map(\.name) == BudgetPolicies.all.map(\.name))
        #expect(s.rankings.map(\.name) == RankingPolicies.all.map(\.name))
        #expect(s.budgets.allSatisfy { $0.parameters.values.isEmpty })
    }

    /// The real registries: each registered parameter's default, written back into a file,
    /// reads as the same value.
    @Test func everyRegisteredParameterDefaultReadsBack() throws {
        func entries(_ policies: [(String, [ParameterSpec])]) -> String {
            policies.map { name, specs in
                let params = specs.map { ", \($0.name): \"\($0.defaultValue)\"" }.joined()
                return "  - {policy: \(name)\(params)}"
            }.joined(separator: "\n")
        }
        var lines = Array(minimalLines.dropLast(2))
        lines.append("budgets:\n" + entries(BudgetPolicies.all.map { ($0.name, $0.parameters) }))
        lines.append("rankings:\n" + entries(RankingPolicies.all.map { ($0.name, $0.parameters) }))
        let s = try ScenarioLoader.parse(yaml: lines.joined(separator: "\n"), file: "defaults.yaml")
        for (choice, descriptor) in zip(s.budgets, BudgetPolicies.all) {
            for spec in descriptor.parameters { #expect(choice.parameters[spec.name] == spec.defaultValue) }
        }
        for (choice, descriptor) in zip(s.rankings, RankingPolicies.all) {
            for spec in descriptor.parameters { #expect(choice.parameters[spec.name] == spec.defaultValue) }
        }
    }
}

/// The scenario files shipped in `scenarios/` (and its subfolders) all read without a problem, against the
/// real policy registries.
@Suite struct ShippedScenarioTests {
    static var folder: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scenarios")
    }

    /// Every `.yaml` under `scenarios/`, subfolders (`validation/`) included, relative to it.
    static var files: [String] {
        let names = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
        return names.filter { $0.hasSuffix(".yaml") }.sorted()
    }

    /// The usage logs that the replaying validation scenarios read (under `reports/`,
    /// not kept in the repository), made as docs/VALIDATION.md says where missing.
    static let logs: Void = {
        let root = folder.deletingLastPathComponent()
        let source = folder.appendingPathComponent("validation/log-people.yaml").path
        for (name, burst) in [("people", 0.0), ("bursty", 0.5)] {
            let log = root.appendingPathComponent("reports/validation/logs/\(name).tsv")
            guard !FileManager.default.fileExists(atPath: log.path) else { continue }
            try? FileManager.default.createDirectory(at: log.deletingLastPathComponent(), withIntermediateDirectories: true)
            guard let s = try? ScenarioLoader.load(path: source) else { continue }
            _ = try? SyntheticLog.write(scenario: s, file: source, format: .lsapp, burst: burst, to: log.path)
        }
    }()

    @Test(arguments: files) func shippedScenarioReads(_ name: String) {
        Self.logs
        do {
            let s = try ScenarioLoader.load(path: Self.folder.appendingPathComponent(name).path)
            #expect(!s.widgets.isEmpty)
        } catch {
            Issue.record("\(error)")
        }
    }
}

/// The system's rules as scenario keys: `stack: rotation_limits` with its parameters and
/// `person: background_pushes_per_hour`.
@Suite struct SystemRuleKeyTests {
    @Test func defaultsAreTheIOSLimitsAndThreePushesAnHour() throws {
        let s = try parse(minimal(adding: "# nothing more"))
        #expect(s.stack.rotationLimits == RotationLimits())
        #expect(s.stack.rotationLimits.mode == .ios && s.stack.rotationLimits.cooldownMs == 3_600_000)
        #expect(s.person.backgroundPushesPerHour == 3)
    }

    @Test func keysReadAsWritten() throws {
        let s = try parse(minimal(adding:
            "stack: {rotation_limits: none, hold_min: 10m, hold_max: 5m, cooldown: 0s}",
            "person: {background_pushes_per_hour: none}"))
        #expect(s.stack.rotationLimits == RotationLimits(mode: .none, holdMinMs: 600_000, holdMaxMs: 600_000, cooldownMs: 0))
        #expect(s.person.backgroundPushesPerHour == nil)
        let t = try parse(minimal(adding: "person: {background_pushes_per_hour: 12}"))
        #expect(t.person.backgroundPushesPerHour == 12)
    }

    @Test func wrongValuesAreLocated() {
        #expect(problems(minimal(adding: "stack: {rotation_limits: android}")) == [
            "test.yaml:13:26: stack.rotation_limits: `android` is not one of ios, none",
        ])
        #expect(problems(minimal(adding: "person: {background_pushes_per_hour: 0}")) == [
            "test.yaml:13:38: person.background_pushes_per_hour: 0 is outside 1…3600",
        ])
        #expect(problems(minimal(adding: "stack: {hold_min: 0s}")) == [
            "test.yaml:13:19: stack.hold_min: 0s is shorter than 1s",
        ])
    }
}
