import Foundation
import Testing
import WidgetSimModel
@testable import WidgetSimScenario

/// Every kind of wrong input gives its exact message at the right line and column, with
/// the field path, and nothing a file says crashes the reader.
@Suite struct ScenarioErrorTests {
    // MARK: - Keys

    /// The misspelt key stands for the required one: one message, at its own line, not a
    /// second one for the missing key at the mapping.
    @Test func unknownKeySuggestsTheNearest() {
        #expect(problems(minimal(replacing: 10, with: "    timeline: {horizn: 6h}")) == [
            "test.yaml:10:16: widgets[0].timeline.horizn: unknown key `horizn`; did you mean `horizon`?",
        ])
    }

    @Test func unknownKeyWithNothingCloseListsTheValidKeys() {
        #expect(problems(minimal(adding: "colour: red")) == [
            "test.yaml:13:1: colour: unknown key `colour`; valid keys: name, description, seed, days, warmup_days, "
                + "replications, people, start, time_zone, generator, person, widgets, stack, budgets, rankings, baseline, trace",
        ])
    }

    @Test func missingRequiredKeyIsReportedAtItsMapping() {
        #expect(problems(minimal(replacing: 10, with: "    timeline: {reload: never}")) == [
            "test.yaml:10:15: widgets[0].timeline: missing required key `horizon`",
        ])
        #expect(problems(minimal(removing: 2)) == [
            "test.yaml:1:1: (file): missing required key `seed`",
        ])
        #expect(problems(minimal(removing: 9)) == [
            "test.yaml:8:5: widgets[0]: missing required key `interest`",
        ])
    }

    // MARK: - Types and ranges

    @Test func durationWithoutUnit() {
        #expect(problems(minimal(replacing: 10, with: "    timeline: {horizon: 30}")) == [
            "test.yaml:10:25: widgets[0].timeline.horizon: expected a duration with a unit (ms, s, m, h, d), got `30`",
        ])
    }

    @Test func numberThatIsAWord() {
        #expect(problems(minimal(replacing: 9, with: "    interest: {base: fast}")) == [
            "test.yaml:9:22: widgets[0].interest.base: expected a number, got `fast`",
        ])
    }

    @Test func profileOfTheWrongLength() {
        let hours = Array(repeating: "1", count: 23).joined(separator: ", ")
        #expect(problems(minimal(adding: "person:", "  view_profile: [\(hours)]")) == [
            "test.yaml:14:17: person.view_profile: expected a list of 24 numbers, got 23",
        ])
    }

    @Test func ratesThatMustBePositive() {
        #expect(problems(minimal(replacing: 9, with: "    interest: {base: -3}")) == [
            "test.yaml:9:22: widgets[0].interest.base: must be positive, got -3",
        ])
        #expect(problems(minimal(adding: "person:", "  views_per_day: 0")) == [
            "test.yaml:14:18: person.views_per_day: must be positive, got 0",
        ])
        #expect(problems(minimal(replacing: 10, with: "    timeline: {horizon: 0m}")) == [
            "test.yaml:10:25: widgets[0].timeline.horizon: must be positive, got 0m",
        ])
    }

    @Test func probabilitiesOutside0To1() {
        #expect(problems(minimal(adding: "person:", "  tap_probability: 1.5", "  donation_probability: -0.1")) == [
            "test.yaml:14:20: person.tap_probability: must be a probability in 0…1, got 1.5",
            "test.yaml:15:25: person.donation_probability: must be a probability in 0…1, got -0.1",
        ])
    }

    @Test func wholeNumbersAndTheirRanges() {
        #expect(problems(minimal(replacing: 3, with: "days: 2.5")) == [
            "test.yaml:3:7: days: expected a whole number, got `2.5`",
        ])
        #expect(problems(minimal(replacing: 4, with: "people: 0")) == [
            "test.yaml:4:9: people: must be in 1…10000000, got 0",
        ])
        #expect(problems(minimal(adding: "warmup_days: 3")) == [
            "test.yaml:13:14: warmup_days: must be less than days (3), got 3",
        ])
        #expect(problems(minimal(replacing: 2, with: "seed: -1")) == [
            "test.yaml:2:7: seed: expected a whole number in 0…9223372036854775807, got `-1`",
        ])
        #expect(problems(minimal(replacing: 9, with: "    interest: {base: 1, peaks: [{hour: 24, factor: 2}]}")) == [
            "test.yaml:9:40: widgets[0].interest.peaks[0].hour: must be in 0…23, got 24",
        ])
    }

    @Test func wrongShapes() {
        #expect(problems(minimal(replacing: 9, with: "    interest: 0.3")) == [
            "test.yaml:9:15: widgets[0].interest: expected an interest mapping, got `0.3`; "
                + "a number alone is the base interest: write `interest: {base: 0.3}`",
        ])
        #expect(problems(minimal(replacing: 7, with: "widgets: weather")
            .replacingOccurrences(of: "  - id: weather\n    interest: {base: 0.3}\n    timeline: {horizon: 6h}\n", with: "")) == [
            "test.yaml:7:10: widgets: expected a list of widgets, got `weather`",
        ])
        #expect(problems(minimal(replacing: 11, with: "budgets: []")) == [
            "test.yaml:11:10: budgets: must list at least one budget policy",
        ])
        #expect(problems(minimal(adding: "person: {interactive: true}")) == [
            "test.yaml:13:10: person.interactive: unknown key `interactive`; valid keys: views_per_day, view_profile, "
                + "sessions_per_day, session_profile, session_length, donation_probability, no_interest, "
                + "swipe_probability, tap_probability, push_while_foreground_is_free, background_pushes_per_hour, "
                + "environment_changes_per_day, travel, standby",
        ])
    }

    @Test func flagsAndNames() {
        #expect(problems(minimal(adding: "person: {push_while_foreground_is_free: yes}")) == [
            "test.yaml:13:41: person.push_while_foreground_is_free: expected true or false, got `yes`",
        ])
        #expect(problems(minimal(replacing: 1, with: "name: my scenario")) == [
            "test.yaml:1:7: name: must be letters, digits, `-` and `_` only (it names the report folder), got `my scenario`",
        ])
    }

    @Test func choicesSuggestTheNearest() {
        #expect(problems(minimal(adding: "generator: taus")) == [
            "test.yaml:13:12: generator: unknown generator `taus`; did you mean `taus2`? Valid: taus2, mt19937, ranlxd2, gfsr4",
        ])
        #expect(problems(minimal(replacing: 8, with: "  - id: weather", "    family: extralarge")) == [
            "test.yaml:9:13: widgets[0].family: unknown family `extralarge`; did you mean `extraLarge`? Valid: small, "
                + "medium, large, extraLarge, accessoryCircular, accessoryRectangular, accessoryInline",
        ])
        #expect(problems(minimal(replacing: 9, with: "    interest: {base: 1, hourly: dirunal}")) == [
            "test.yaml:9:33: widgets[0].interest.hourly: unknown profile `dirunal`; did you mean `diurnal`? "
                + "Valid: diurnal, flat, office, waking",
        ])
        #expect(problems(minimal(replacing: 10, with: "    timeline: {horizon: 6h, reload: sometimes}")) == [
            "test.yaml:10:37: widgets[0].timeline.reload: unknown reload policy `sometimes`; valid: at_end, never, {after: DURATION}",
        ])
    }

    @Test func relevanceModels() {
        #expect(problems(minimal(inserting: "    relevance: {model: breaking, score: 5, lead: 1h, duration: 2h}", after: 10)) == [
            "test.yaml:11:44: widgets[0].relevance.lead: unknown key `lead`; valid keys: model, score, levels, baseline, duration",
        ])
        #expect(problems(minimal(replacing: 10, with: "    timeline: {horizon: 6h}", "    relevance: {model: sheduled}")) == [
            "test.yaml:11:24: widgets[0].relevance.model: unknown relevance model `sheduled`; did you mean `scheduled`? "
                + "Valid: constant, scheduled, breaking",
        ])
        #expect(problems(minimal(replacing: 10, with: "    timeline: {horizon: 6h}", "    relevance: high")) == [
            "test.yaml:11:16: widgets[0].relevance: expected `none` or {model: constant | scheduled | breaking, score: …}, got `high`",
        ])
    }

    // MARK: - Dates and time zones

    @Test func datesMustBeRealAndWellFormed() {
        #expect(problems(minimal(replacing: 5, with: "start: 2026-02-29")) == [
            "test.yaml:5:8: start: `2026-02-29` is not a real date (February 2026 has 28 days)",
        ])
        #expect(problems(minimal(replacing: 5, with: "start: 03/02/2026")) == [
            "test.yaml:5:8: start: expected a date as YYYY-MM-DD, got `03/02/2026`",
        ])
        #expect(problems(minimal(replacing: 5, with: "start: 2026-13-01")) == [
            "test.yaml:5:8: start: `2026-13-01` is not a real date",
        ])
    }

    @Test func unknownTimeZoneSuggestsTheNearest() {
        #expect(problems(minimal(replacing: 6, with: "time_zone: Europe/Berln")) == [
            "test.yaml:6:12: time_zone: unknown time zone `Europe/Berln`; did you mean `Europe/Berlin`?",
        ])
        #expect(problems(minimal(replacing: 6, with: "time_zone: New York")) == [
            "test.yaml:6:12: time_zone: unknown time zone `New York`; did you mean `America/New_York`?",
        ])
        #expect(problems(minimal(adding: "person:", "  travel: {trips_per_day: 0.1, zones: [Asia/Tokio], mean_stay: 3d}")) == [
            "test.yaml:14:40: person.travel.zones[0]: unknown time zone `Asia/Tokio`; did you mean `Asia/Tokyo`?",
        ])
    }

    // MARK: - Widgets and the stack

    @Test func duplicateWidgetIdNamesTheFirstLine() {
        #expect(problems(minimal(inserting: "  - id: weather", "    interest: {base: 1}", "    timeline: {horizon: 1h}",
                                 after: 10)) == [
            "test.yaml:11:9: widgets[1].id: duplicate widget id `weather`; the first is at line 8",
        ])
    }

    static let twoFamilies = [
        "name: minimal", "seed: 7", "days: 3", "people: 10", "start: 2026-03-02", "time_zone: Europe/Berlin",
        "widgets:",
        "  - {id: weather, interest: {base: 1}, timeline: {horizon: 1h}}",     // 8
        "  - {id: news, interest: {base: 1}, timeline: {horizon: 1h}}",        // 9
        "  - {id: calendar, family: medium, interest: {base: 1}, timeline: {horizon: 1h}}", // 10
        "budgets: [unlimited]", "rankings: [static]",
    ]

    @Test func stackMemberNotDefined() {
        #expect(problems(minimal(adding: "stack: {members: [wether]}")) == [
            "test.yaml:13:19: stack.members[0]: widget `wether` is not defined; did you mean `weather`?",
        ])
        #expect(problems(minimal(adding: "stack: {members: [clock]}")) == [
            "test.yaml:13:19: stack.members[0]: widget `clock` is not defined; widgets: weather",
        ])
    }

    @Test func stackOfOneFamilyNamesTheOddOne() {
        let yaml = (Self.twoFamilies + ["stack: {members: [news, calendar, weather]}"]).joined(separator: "\n")
        #expect(problems(yaml) == [
            "test.yaml:13:25: stack.members[1]: widget `calendar` is medium, but `news` is small: a stack holds one family",
        ])
        // Without `stack:`, every widget is in it.
        #expect(problems(Self.twoFamilies.joined(separator: "\n")) == [
            "test.yaml:10:28: widgets[2].family: widget `calendar` is medium, but `weather` is small: a stack holds "
                + "one family; choose its widgets under `stack: members:`",
        ])
    }

    @Test func stackRepeatsAndSize() {
        #expect(problems(minimal(adding: "stack: {members: [weather, weather]}")) == [
            "test.yaml:13:28: stack.members[1]: widget `weather` is already in the stack",
        ])
        #expect(problems(minimal(adding: "stack: {members: []}")) == [
            "test.yaml:13:18: stack.members: must list at least 1 widget",
        ])
        let eleven = Array(repeating: "weather", count: 11).joined(separator: ", ")
        #expect(problems(minimal(adding: "stack: {members: [\(eleven)]}")).first
            == "test.yaml:13:18: stack.members: a stack holds at most 10 widgets, got 11")
    }

    // MARK: - Policies

    @Test func unknownPolicyListsEveryValidName() {
        #expect(problems(minimal(replacing: 11, with: "budgets: [dailyquota]")) == [
            "test.yaml:11:11: budgets[0]: unknown budget policy `dailyquota`; did you mean `daily_quota`? "
                + "Valid: unlimited, fixed_interval, daily_quota",
        ])
        #expect(problems(minimal(replacing: 12, with: "rankings: [{policy: best}]")) == [
            "test.yaml:12:21: rankings[0].policy: unknown ranking policy `best`; valid: static, hybrid",
        ])
    }

    /// With the real registries, the message lists exactly what they hold.
    @Test func unknownPolicyWithTheRealRegistries() throws {
        let names = BudgetPolicies.all.map(\.name)
        let name = try #require(names.last)
        let typo = String(name.dropLast())
        let yaml = minimal(replacing: 11, with: "budgets: [\(typo)]")
        #expect(throws: ScenarioErrors.self) { try ScenarioLoader.parse(yaml: yaml, file: "real.yaml") }
        do {
            _ = try ScenarioLoader.parse(yaml: yaml, file: "real.yaml")
        } catch {
            #expect(error.issues.map(\.description) == [
                "real.yaml:11:11: budgets[0]: unknown budget policy `\(typo)`; did you mean `\(name)`? "
                    + "Valid: \(names.joined(separator: ", "))",
            ])
        }
    }

    @Test func unknownParameter() {
        #expect(problems(minimal(replacing: 11, with: "budgets: [{policy: daily_quota, per_dya: 5}]")) == [
            "test.yaml:11:33: budgets[0].per_dya: unknown parameter `per_dya` of budget policy `daily_quota`; did you mean `per_day`?",
        ])
        #expect(problems(minimal(replacing: 11, with: "budgets: [{policy: daily_quota, colour: red}]")) == [
            "test.yaml:11:33: budgets[0].colour: unknown parameter `colour` of budget policy `daily_quota`; "
                + "valid: policy, label, per_day, retry",
        ])
        #expect(problems(minimal(replacing: 11, with: "budgets: [{policy: unlimited, x: 1}]")) == [
            "test.yaml:11:31: budgets[0].x: unknown parameter `x`: budget policy `unlimited` takes none",
        ])
    }

    @Test func parameterValuesAreCheckedByTheirSpecs() {
        func issue(_ entry: String) -> [String] {
            problems(minimal(replacing: 11, with: "budgets: [{policy: \(entry)}]"))
        }
        #expect(issue("daily_quota, per_day: 0") == ["test.yaml:11:42: budgets[0].per_day: 0 is outside 1…1000"])
        #expect(issue("daily_quota, per_day: 2.5") == ["test.yaml:11:42: budgets[0].per_day: 2.5 is not a whole number"])
        #expect(issue("daily_quota, per_day: many")
            == ["test.yaml:11:42: budgets[0].per_day: expected a whole number in 1…1000, got `many`"])
        #expect(issue("daily_quota, per_day: 1e300") == ["test.yaml:11:42: budgets[0].per_day: 1e300 is outside 1…1000"])
        #expect(issue("daily_quota, retry: 0s")
            == ["test.yaml:11:40: budgets[0].retry: 0s is shorter than 1s: a retry must be at least 1s after the refusal"])
        #expect(issue("daily_quota, retry: never")
            == ["test.yaml:11:40: budgets[0].retry: expected a duration with a unit (ms, s, m, h, d) of at least 1s, or `drop`, got `never`"])
        #expect(issue("fixed_interval, interval: 30s")
            == ["test.yaml:11:46: budgets[0].interval: 30s is shorter than 1m"])
        #expect(issue("fixed_interval, interval: 30")
            == ["test.yaml:11:46: budgets[0].interval: expected a duration with a unit (ms, s, m, h, d) of at least 1m, got `30`"])
        func ranking(_ entry: String) -> [String] {
            problems(minimal(replacing: 12, with: "rankings: [{policy: hybrid, \(entry)}]"))
        }
        #expect(ranking("weight: 2") == ["test.yaml:12:37: rankings[0].weight: 2 is outside 0…1"])
        #expect(ranking("mode: c") == ["test.yaml:12:35: rankings[0].mode: `c` is not one of a, b"])
        #expect(ranking("by_hour: yes") == ["test.yaml:12:38: rankings[0].by_hour: expected true or false, got `yes`"])
    }

    @Test func policyMappingNeedsAPolicy() {
        #expect(problems(minimal(replacing: 11, with: "budgets: [{label: mine}]")) == [
            "test.yaml:11:11: budgets[0]: missing required key `policy`",
        ])
    }

    @Test func duplicateLabelsSuggestLabel() {
        #expect(problems(minimal(replacing: 11, with: "budgets: [unlimited, unlimited]")) == [
            "test.yaml:11:22: budgets[1]: duplicate budget label `unlimited` (first at line 11); give each entry its own `label:`",
        ])
        #expect(problems(minimal(replacing: 11, with: "budgets:", "  - {policy: daily_quota, per_day: 10}",
                                 "  - {policy: daily_quota, per_day: 20}")) == [
            "test.yaml:13:14: budgets[1].policy: duplicate budget label `daily_quota` (first at line 12); give each entry its own `label:`",
        ])
    }

    @Test func baselineLabelsMustBeDefined() {
        #expect(problems(minimal(adding: "baseline: {budget: unlimted}")) == [
            "test.yaml:13:20: baseline.budget: budget label `unlimted` is not defined; did you mean `unlimited`? Labels: unlimited",
        ])
        #expect(problems(minimal(adding: "baseline: {ranking: best}")) == [
            "test.yaml:13:21: baseline.ranking: ranking label `best` is not defined; labels: static",
        ])
    }

    @Test func widgetPartsAndTheirRules() {
        #expect(problems(minimal(replacing: 8, with: "  - id: my weather")) == [
            "test.yaml:8:9: widgets[0].id: must be letters, digits, `-`, `_` and `.` only (it names the widget in reports), "
                + "got `my weather`",
        ])
        #expect(problems(minimal(replacing: 9, with: "    interest: {base: 1, around_scheduled: {factor: 2, before: 0s, after: 0m}}")) == [
            "test.yaml:9:43: widgets[0].interest.around_scheduled: `before` and `after` cannot both be 0",
        ])
        #expect(problems(minimal(replacing: 9, with: "    interest: {base: 1, after_push: {factor: 2}}")) == [
            "test.yaml:9:37: widgets[0].interest.after_push: missing required key `after`",
        ])
        #expect(problems(minimal(replacing: 9, with: "    interest: {base: 1, weekday: [1, 1, 1, 1, 1]}")) == [
            "test.yaml:9:34: widgets[0].interest.weekday: expected a list of 7 numbers, Monday first, got 5",
        ])
        #expect(problems(minimal(inserting: "    configuration: {city: [Berlin]}", after: 8)) == [
            "test.yaml:9:27: widgets[0].configuration.city: expected text, got a list",
        ])
        #expect(problems(minimal(inserting: "    relevance: {model: breaking, score: 5}", after: 10)) == [
            "test.yaml:11:16: widgets[0].relevance: missing required key `duration`",
        ])
        #expect(problems(minimal(inserting: "    content: {push_latency: {median: 0s}}", after: 10)) == [
            "test.yaml:11:38: widgets[0].content.push_latency.median: must be positive, got 0s",
        ])
        #expect(problems(minimal(adding: "person: {travel: {zones: []}}")) == [
            "test.yaml:13:18: person.travel: missing required key `trips_per_day`",
            "test.yaml:13:18: person.travel: missing required key `mean_stay`",
            "test.yaml:13:26: person.travel.zones: must name at least one time zone",
        ])
    }

    @Test func defaultStackOfMoreThanTenWidgets() {
        var lines = Array(minimalLines[0 ..< 7])
        for i in 0 ..< 11 { lines.append("  - {id: w\(i), interest: {base: 1}, timeline: {horizon: 1h}}") }
        lines += ["budgets: [unlimited]", "rankings: [static]"]
        #expect(problems(lines.joined(separator: "\n")) == [
            "test.yaml:18:5: widgets[10]: the stack holds every widget unless `stack: members:` chooses, "
                + "but a stack holds at most 10 and there are 11",
        ])
    }

    // MARK: - Robustness

    @Test func absurdValuesAreErrorsNotCrashes() {
        #expect(problems(minimal(replacing: 10, with: "    timeline: {horizon: 1e300d}")) == [
            "test.yaml:10:25: widgets[0].timeline.horizon: expected a duration with a unit (ms, s, m, h, d), got `1e300d`",
        ])
        #expect(problems(minimal(replacing: 3, with: "days: 99999999999999999999")) == [
            "test.yaml:3:7: days: must be in 1…100000, got 99999999999999999999",
        ])
        #expect(problems(minimal(replacing: 9, with: "    interest: {base: .nan}")) == [
            "test.yaml:9:22: widgets[0].interest.base: expected a number, got `.nan`",
        ])
        #expect(problems(minimal(replacing: 9, with: "    interest: {base: nan}")) == [
            "test.yaml:9:22: widgets[0].interest.base: expected a number, got `nan`",
        ])
        #expect(problems(minimal(replacing: 8, with: "  - id: weather", "    reload_cost: {energy: 1e300}")).count == 1)
    }
}
