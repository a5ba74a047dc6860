import Foundation
import Testing
import WidgetSimModel
@testable import WidgetSimScenario

/// Bounds on every value, the guard before a run, and messages that stay short: each
/// case of a file that once crashed, hung or stalled a run is refused here, located.
@Suite struct BoundsTests {
    /// CPU seconds this thread has used (other tests running meanwhile do not count).
    func threadSeconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    @Test func logNormalSigmaOf30IsRefused() {
        #expect(problems(minimal(adding: "person:", "  session_length: {median: 90s, sigma: 30}")) == [
            "test.yaml:14:40: person.session_length.sigma: must be at most 4, got 30",
        ])
        #expect(problems(minimal(replacing: 10, with: "    timeline: {horizon: 6h}",
                                 "    content: {random_per_day: 2, push_latency: {median: 30s, sigma: 30}}")) == [
            "test.yaml:11:69: widgets[0].content.push_latency.sigma: must be at most 4, got 30",
        ])
    }

    @Test func interestThatOverflowsIsRefused() {
        #expect(problems(minimal(replacing: 9, with: "    interest: {base: 1e308, peaks: [{hour: 7, factor: 3}]}")) == [
            "test.yaml:9:22: widgets[0].interest.base: must be at most 1000000, got 1e308",
        ])
        // Each value in bounds, their product not: three peaks over one hour.
        let issues = problems(minimal(replacing: 9, with:
            "    interest: {base: 1e6, peaks: [{hour: 7, factor: 1000}, {hour: 7, factor: 1000}, {hour: 7, factor: 1000}]}"))
        #expect(issues.count == 1)
        #expect(issues.first?.hasPrefix("test.yaml:9:15: widgets[0].interest: interest reaches 1e+15 at its largest") == true)
    }

    @Test func hugeRatesAreRefused() {
        #expect(problems(minimal(replacing: 10, with: "    timeline: {horizon: 6h}", "    content: {random_per_day: 4294967296}")) == [
            "test.yaml:11:31: widgets[0].content.random_per_day: must be at most 10000, got 4294967296",
        ])
        #expect(problems(minimal(adding: "person:", "  views_per_day: 18446744073709551616")) == [
            "test.yaml:14:18: person.views_per_day: must be at most 5000, got 18446744073709551616",
        ])
        let hours = (["1e308"] + Array(repeating: "1", count: 23)).joined(separator: ", ")
        #expect(problems(minimal(adding: "person:", "  session_profile: [\(hours)]")) == [
            "test.yaml:14:21: person.session_profile[0]: must be at most 1000, got 1e308",
        ])
        #expect(problems(minimal(adding: "person:", "  sessions_per_day: {mean: 1e26}")) == [
            "test.yaml:14:28: person.sessions_per_day.mean: must be at most 1000, got 1e26",
        ])
    }

    @Test func millisecondRetriesAndIntervalsAreRefused() {
        #expect(problems(minimal(replacing: 11, with: "budgets: [{policy: daily_quota, retry: 1ms}]")) == [
            "test.yaml:11:40: budgets[0].retry: 1ms is shorter than 1s: a retry must be at least 1s after the refusal",
        ])
        #expect(problems(minimal(replacing: 10, with: "    timeline: {horizon: 6h, reload: {after: 1ms}}")) == [
            "test.yaml:10:45: widgets[0].timeline.reload.after: must be at least 1s, got 1ms",
        ])
        #expect(problems(minimal(replacing: 10, with: "    timeline: {horizon: 6h}", "    content: {periodic: 1ms}")) == [
            "test.yaml:11:25: widgets[0].content.periodic: must be at least 1s, got 1ms",
        ])
    }

    /// An entry spacing of a millisecond made a widget reloading at its timeline's end
    /// ask again every millisecond: a run that did not finish.
    @Test func millisecondEntrySpacingIsRefused() throws {
        #expect(problems(minimal(replacing: 10, with: "    timeline: {horizon: 6h, entry_spacing: 1ms}")) == [
            "test.yaml:10:44: widgets[0].timeline.entry_spacing: must be at least 1s, got 1ms",
        ])
        #expect(try parse(minimal(replacing: 10, with: "    timeline: {horizon: 6h, entry_spacing: 1s}"))
            .widgets[0].timeline.entrySpacingMs == 1_000)
    }

    /// Each session's donation walks the widget's configurations.
    @Test func donatedConfigurationsAreCounted() {
        let many = (0 ... 100).map { "{configuration: {n: \"\($0)\"}}" }
        let issues = problems(minimal(inserting: "    donated_configurations: [\(many.joined(separator: ", "))]", after: 10))
        #expect(issues == [
            "test.yaml:11:29: widgets[0].donated_configurations: must list at most 100 configurations, got 101",
        ])
    }

    @Test func aFiveMillionCharacterNameIsRefusedQuicklyAndShortly() {
        let start = threadSeconds()
        let issues = problems(minimal(replacing: 1, with: "name: " + String(repeating: "a", count: 5_000_000)))
        #expect(threadSeconds() - start < 1)
        // Refused as too large to be a scenario, before any parsing.
        #expect(issues.count == 1)
        #expect((issues.first?.count ?? .max) < 200)
        #expect(issues.first?.hasPrefix("test.yaml:1:1: (file): the file is 5") == true)
        // A name just too long for a folder name, read and refused with an excerpt.
        let long = problems(minimal(replacing: 1, with: "name: " + String(repeating: "a", count: 300)))
        #expect(long == [
            "test.yaml:1:7: name: must be at most 64 characters (it names the report folder), got 300: "
                + "`\(String(repeating: "a", count: 40))… (300 characters)`",
        ])
    }

    @Test func aLongUnknownTimeZoneIsAnsweredQuickly() {
        let start = threadSeconds()
        let issues = problems(minimal(replacing: 6, with: "time_zone: " + String(repeating: "Europe/Berlin", count: 50_000)))
        #expect(threadSeconds() - start < 1)
        #expect(issues == ["test.yaml:6:12: time_zone: unknown time zone `\(String(repeating: "Europe/Berlin", count: 4).prefix(40))… (650000 characters)`"])
    }

    @Test func timeZonesMatchExactly() {
        #expect(problems(minimal(replacing: 6, with: "time_zone: \" Europe/Berlin\"")) == [
            "test.yaml:6:12: time_zone: time zone ` Europe/Berlin` has spaces around it; did you mean `Europe/Berlin`?",
        ])
        #expect(problems(minimal(replacing: 6, with: "time_zone: europe/berlin")) == [
            "test.yaml:6:12: time_zone: unknown time zone `europe/berlin`; did you mean `Europe/Berlin`?",
        ])
        #expect((try? parse(minimal(replacing: 6, with: "time_zone: UTC")))?.timeZone == "UTC")
    }

    @Test func suggestionsCompareOnlySimilarLengths() {
        #expect(Suggestions.nearest(to: "horizn", in: ["horizon", "reload"]) == "horizon")
        #expect(Suggestions.nearest(to: String(repeating: "x", count: 65), in: ["x"]) == nil)
        let start = threadSeconds()
        for _ in 0 ..< 1000 {
            _ = Suggestions.nearest(to: String(repeating: "ab", count: 30), in: ScenarioReader.topLevelKeys)
        }
        #expect(threadSeconds() - start < 1)
    }

    @Test func tenMegabyteFilesAreAnsweredInUnderASecond() {
        let huge = [
            minimal(replacing: 6, with: "time_zone: " + String(repeating: "x", count: 10_000_000)),
            minimal + String(repeating: "junk_key: 1\n", count: 800_000),
            minimal + "junk: [" + String(repeating: "1,", count: 5_000_000) + "]\n",
            // Under the size limit: a mapping of many keys, every one unknown.
            minimal + (0 ..< 9_900).map { "key\($0): 1\n" }.joined(),
        ]
        for yaml in huge {
            let start = threadSeconds()
            let issues = problems(yaml)
            let used = threadSeconds() - start
                        #expect(used < 1, "\(yaml.utf8.count) bytes")
            #expect(!issues.isEmpty && issues.count <= ScenarioReader.mostIssues + 1)
            #expect(issues.allSatisfy { $0.count < 1_000 })
        }
    }

    @Test func idsWithControlCharactersAreRefusedAndEscaped() {
        #expect(problems(minimal(replacing: 8, with: "  - id: \"wea\\nther\"")) == [
            "test.yaml:8:9: widgets[0].id: must be letters, digits, `-`, `_` and `.` only (it names the widget in reports), got `wea\\nther`",
        ])
        #expect(problems(minimal(replacing: 11, with: "budgets: [{policy: unlimited, label: \"a\\u0007b\"}]")) == [
            "test.yaml:11:38: budgets[0].label: must be letters, digits, `-` and `_` only (it names the policy in reports), got `a\\u{7}b`",
        ])
        let issues = problems(minimal(replacing: 9, with: "    configuration: {city: \"Ber\\nlin\"}", "    interest: {base: 0.3}"))
        #expect(issues == [
            "test.yaml:9:27: widgets[0].configuration.city: must not hold control characters (line breaks, tabs, …), got `Ber\\nlin`",
        ])
    }

    @Test func horizonsAndStaysFitInTheRun() {
        #expect(problems(minimal(replacing: 10, with: "    timeline: {horizon: 4d}")) == [
            "test.yaml:10:25: widgets[0].timeline.horizon: must be at most the run's length (3d, from `days: 3`), got 4d",
        ])
        #expect(problems(minimal(adding: "person:", "  travel: {trips_per_day: 0.1, zones: [Asia/Tokyo], mean_stay: 30d}")) == [
            "test.yaml:14:64: person.travel.mean_stay: must be at most the run's length (3d, from `days: 3`), got 30d",
        ])
    }

    @Test func seedIsA64BitSignedInteger() throws {
        #expect(try parse(minimal(replacing: 2, with: "seed: 9223372036854775807")).seed == UInt64(Int64.max))
        #expect(problems(minimal(replacing: 2, with: "seed: 9223372036854775808")) == [
            "test.yaml:2:7: seed: expected a whole number in 0…9223372036854775807, got `9223372036854775808`",
        ])
    }

    /// Every numeric key refuses a value far out of range, with a located message
    /// that states its bound.
    @Test(arguments: [
        ("person:\n  views_per_day: 1e300", "at most 5000"),
        ("person:\n  views_per_day: {mean: 5, cv: 1e300}", "at most 3"),
        ("person:\n  sessions_per_day: 1e300", "at most 1000"),
        ("person:\n  session_length: {median: 1e300d}", "expected a duration"),
        ("person:\n  no_interest: 1e300", "at most 1000000"),
        ("person:\n  environment_changes_per_day: 1e300", "at most 100"),
        ("person:\n  travel: {trips_per_day: 1e300, zones: [UTC], mean_stay: 1d}", "at most 10"),
        ("person:\n  view_profile: [1e300, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]", "at most 1000"),
        ("replications: 1e300", "must be in 1…10000"),
        ("warmup_days: 1e300", "at most"),
    ])
    func everyNumberHasABound(_ lines: String, _ expected: String) {
        let issues = problems(minimal + lines + "\n")
        #expect(issues.count == 1, "\(issues)")
        #expect(issues.first?.contains(expected) == true, "\(issues)")
    }

    @Test(arguments: [
        ("{base: 1e300}", "at most 1000000"),
        ("{base: 1, peaks: [{hour: 3, factor: 1e300}]}", "at most 1000"),
        ("{base: 1, weekday: [1e300, 1, 1, 1, 1, 1, 1]}", "at most 1000"),
        ("{base: 1, after_push: {factor: 1e300, after: 1h}}", "at most 1000"),
        ("{base: 1, after_push: {factor: 2, after: 1ms}}", "at least 1s"),
    ])
    func everyInterestValueHasABound(_ interest: String, _ expected: String) {
        let issues = problems(minimal(replacing: 9, with: "    interest: \(interest)"))
        #expect(issues.count == 1, "\(issues)")
        #expect(issues.first?.contains(expected) == true, "\(issues)")
    }

    @Test(arguments: [
        ("{random_per_day: 1e300}", "at most 10000"),
        ("{scheduled_per_day: 1e300}", "at most 1000"),
        ("{push_fraction: 2}", "probability"),
        ("{random_per_day: 1, push_latency: {sigma: 1e300}}", "at most 4"),
    ])
    func everyContentValueHasABound(_ content: String, _ expected: String) {
        let issues = problems(minimal(replacing: 10, with: "    timeline: {horizon: 6h}", "    content: \(content)"))
        #expect(issues.count == 1, "\(issues)")
        #expect(issues.first?.contains(expected) == true, "\(issues)")
    }

    @Test func theGuardRefusesTooManyEventsNamingTheValues() {
        // 30 widgets reloading every second: 2.6 million reloads a person-day.
        var lines = Array(minimalLines[0 ..< 6]) + ["widgets:"]
        for i in 0 ..< 30 {
            lines += ["  - id: w\(i)", "    interest: {base: 0.3}", "    timeline: {horizon: 6h, reload: {after: 1s}}"]
        }
        lines += ["stack: {members: [w0]}", "budgets: [unlimited]", "rankings: [static]"]
        let issues = problems(lines.joined(separator: "\n") + "\n")
        #expect(issues.count == 1, "\(issues)")
        let issue = issues.first ?? ""
        #expect(issue.hasPrefix("test.yaml:10:45: widgets[0].timeline.reload.after: the scenario would simulate about 2,592,250 events per person-day (limit 2,000,000)"), "\(issue)")
        #expect(issue.contains("events per person-day (limit 2,000,000)"))
        #expect(issue.contains("widgets[0].timeline.reload.after (a reload every 1s)"))
    }

    /// A widget reloading at its timeline's end asks again one entry spacing after a
    /// reload when its timeline has a single entry: 30 such widgets spaced 1s apart ask
    /// 2.6 million times a person-day.
    @Test func theGuardCountsTimelineRequestsAtTheEntrySpacing() {
        var lines = Array(minimalLines[0 ..< 6]) + ["widgets:"]
        for i in 0 ..< 30 {
            lines += ["  - id: w\(i)", "    interest: {base: 0.3}", "    timeline: {horizon: 6h, entry_spacing: 1s}"]
        }
        lines += ["stack: {members: [w0]}", "budgets: [unlimited]", "rankings: [static]"]
        let issues = problems(lines.joined(separator: "\n") + "\n")
        #expect(issues.count == 1, "\(issues)")
        let issue = issues.first ?? ""
        #expect(issue.hasPrefix("test.yaml:10:44: widgets[0].timeline.entry_spacing: the scenario would simulate about 2,592,250 events per person-day"), "\(issue)")
        #expect(issue.contains("widgets[0].timeline.entry_spacing (a timeline request every 1s at the timeline's end)"), "\(issue)")
    }

    /// Timeline entries are walked one by one as views ask for them: a change every
    /// second, entries a second apart, is 86,400 entries a widget-day.
    @Test func theGuardCountsTimelineEntriesOfPeriodicContent() {
        var lines = Array(minimalLines[0 ..< 6]) + ["widgets:"]
        for i in 0 ..< 30 {
            lines += ["  - id: w\(i)", "    interest: {base: 0.3}",
                      "    timeline: {horizon: 6h, entry_spacing: 1s, reload: {after: 6h}}", "    content: {periodic: 1s}"]
        }
        lines += ["stack: {members: [w0]}", "budgets: [unlimited]", "rankings: [static]"]
        let issues = problems(lines.joined(separator: "\n") + "\n")
        #expect(issues.count == 1, "\(issues)")
        let issue = issues.first ?? ""
        #expect(issue.hasPrefix("test.yaml:11:25: widgets[0].content.periodic: the scenario would simulate about 2,592,"), "\(issue)")
        #expect(issue.contains("widgets[0].content.periodic (a timeline entry every 1s)"), "\(issue)")
        // Entries 5 minutes apart (the default spacing) coalesce the changes: it runs.
        let spaced = lines.joined(separator: "\n").replacingOccurrences(of: "entry_spacing: 1s, ", with: "")
        #expect((try? parse(spaced + "\n")).map { RunGuard.check($0).isEmpty } == true)
    }

    @Test func theGuardRefusesTooMuchMemoryNamingTheValues() {
        let issues = problems(minimal(replacing: 3, with: "days: 100000") + "person:\n  views_per_day: {mean: 2000, cv: 1}\n")
        #expect(issues.count == 1, "\(issues)")
        let issue = issues.first ?? ""
        #expect(issue.hasPrefix("test.yaml:14:18: person.views_per_day: one simulated person would need about"), "\(issue)")
        #expect(issue.contains("over 100000 days (limit 1.0 GB)"))
        #expect(issue.contains("person.views_per_day (8,000 views a day × 100000 days)"))
    }

    @Test func extremeButValidValuesPass() throws {
        let s = try parse(minimal(replacing: 10, with: "    timeline: {horizon: 3d, reload: {after: 1s}}",
                                  "    content: {random_per_day: 10000, push_latency: {median: 3d, sigma: 4}}")
            + "person:\n  views_per_day: {mean: 5000, cv: 3}\n  sessions_per_day: {mean: 1000, cv: 3}\n")
        #expect(s.person.viewsPerDay.mean == 5000)
        #expect(RunGuard.check(s).isEmpty)
    }

    @Test func messagesQuoteShortEscapedExcerpts() {
        #expect(Excerpt.of("a\nb\tc") == "a\\nb\\tc")
        #expect(Excerpt.of(String(repeating: "é", count: 100)) == String(repeating: "é", count: 40) + "… (100 characters)")
        let issue = ScenarioReader(file: "f.yaml")
        issue.report("bad\nvalue", line: 1, column: 2, path: "x")
        #expect(issue.issues.map(\.description) == ["f.yaml:1:2: x: bad\\nvalue"])
    }

    @Test func aNamedPipeOrADeviceIsRefusedByItsKind() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("widgetsim-fifo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent("scenario.yaml").path
        #expect(mkfifo(fifo, 0o644) == 0)
        func issue(_ path: String) -> String {
            do {
                _ = try ScenarioLoader.load(path: path)
                return "read"
            } catch {
                return error.description
            }
        }
        #expect(issue(fifo) == "\(fifo):0:0: (file): is a named pipe (FIFO), not a scenario file; save the scenario to a file first")
        #expect(issue("/dev/null") == "/dev/null:0:0: (file): is a device, not a scenario file")
    }

    @Test func anAcceptedNameMakesAValidFolderName() throws {
        let name = String(repeating: "n", count: Bounds.nameLength)
        let s = try parse(minimal(replacing: 1, with: "name: \(name)"))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reports-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent(s.name), withIntermediateDirectories: true)
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(s.name).path))
    }
}
