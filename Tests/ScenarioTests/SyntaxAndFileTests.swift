import Foundation
import Testing
import WidgetSimModel
@testable import WidgetSimScenario

/// Files that are not YAML, not there, or wrong in many places at once.
@Suite struct SyntaxAndFileTests {
    @Test func syntaxErrorIsLocated() {
        // A key at the wrong indentation inside a block mapping.
        #expect(problems(minimal(replacing: 10, with: "    timeline: {horizon: 6h}", "   oops: 1")) == [
            "test.yaml:11:4: (file): invalid YAML: did not find expected '-' indicator "
                + "(while parsing a block collection at line 8, column 3)",
        ])
    }

    @Test func unclosedFlowListIsLocated() {
        #expect(problems(minimal(replacing: 11, with: "budgets: [unlimited")) == [
            "test.yaml:12:9: (file): invalid YAML: did not find expected ',' or ']' "
                + "(while parsing a flow sequence at line 11, column 10)",
        ])
    }

    @Test func tabIndentationIsLocated() {
        #expect(problems(minimal(replacing: 10, with: "\ttimeline: {horizon: 6h}")) == [
            "test.yaml:10:1: (file): invalid YAML: found character that cannot start any token "
                + "(while scanning for the next token at line 10, column 1)",
        ])
    }

    /// Keys and values are read trimmed of white space and line breaks at either end,
    /// Unicode's too (a no-break space, an ideographic space, a line separator), and
    /// those with none are read as written.
    @Test func keysAndValuesAreTrimmed() throws {
        let s = try parse(minimal(replacing: 1, with: "name: \" mini\u{3000}\"", "\"days\u{00A0}\": \"\u{2028}4\t\"")
            .replacingOccurrences(of: "days: 3\n", with: "")
            .replacingOccurrences(of: "people: 10", with: "people: \"10\u{00A0}\""))
        #expect(s.name == "mini")
        #expect(s.days == 4)
        #expect(s.people == 10)
        let described = try parse(minimal(adding: "description: \"two  words\""))
        #expect(described.description == "two  words")
    }

    @Test func duplicateKeyIsLocated() {
        #expect(problems(minimal(adding: "days: 4")) == [
            "test.yaml:3:1: (file): invalid YAML: key `days` appears more than once in one mapping",
        ])
    }

    @Test func emptyFileAndWrongTopLevel() {
        #expect(problems("") == [
            "test.yaml:1:1: (file): the file is empty: a scenario needs at least name, seed, days, people, "
                + "start, time_zone, widgets, budgets and rankings",
        ])
        #expect(problems("# only a comment\n") == [
            "test.yaml:1:1: (file): the file is empty: a scenario needs at least name, seed, days, people, "
                + "start, time_zone, widgets, budgets and rankings",
        ])
        #expect(problems("- a\n- b\n") == [
            "test.yaml:1:1: (file): expected a mapping of scenario settings, got a list",
        ])
        #expect(problems("---\nname: a\n---\nname: b\n").first?.hasPrefix("test.yaml:3:1: (file): invalid YAML: ") == true)
    }

    @Test func missingFile() {
        let path = "/nonexistent/folder/scenario.yaml"
        do {
            _ = try ScenarioLoader.load(path: path)
            Issue.record("a missing file loaded")
        } catch {
            #expect(error.issues.count == 1)
            #expect(error.description == "\(path):0:0: (file): no such file")
            #expect(error.issues.first?.line == 0 && error.issues.first?.column == 0)
        }
    }

    @Test func folderInsteadOfAFile() {
        let folder = fixture("")
        #expect(throws: ScenarioErrors.self) { try ScenarioLoader.load(path: folder) }
        do {
            _ = try ScenarioLoader.load(path: folder)
        } catch {
            #expect(error.description == "\(folder):0:0: (file): is a folder, not a scenario file")
        }
    }

    @Test func fileThatIsNotUTF8() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("widgetsim-latin1-\(UUID()).yaml")
        try Data([0x6E, 0x61, 0x6D, 0x65, 0x3A, 0x20, 0xE9, 0x0A]).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        do {
            _ = try ScenarioLoader.load(path: url.path)
            Issue.record("a latin-1 file loaded")
        } catch {
            #expect(error.description == "\(url.path):0:0: (file): the file is not UTF-8 text")
        }
    }

    /// One file with many independent mistakes: every one is reported, in file order,
    /// and the names in the file come from the file it was loaded from.
    @Test func severalErrorsAreReportedTogether() {
        let path = fixture("several-errors.yaml")
        do {
            _ = try ScenarioLoader.load(path: path, budgets: TestCatalogs.budgets, rankings: TestCatalogs.rankings)
            Issue.record("a file with errors loaded")
        } catch {
            #expect(error.issues.allSatisfy { $0.file == path })
            let lines = error.issues.map { "\($0.line):\($0.column): \($0.path): \($0.message)" }
            #expect(lines == [
                "1:1: (file): missing required key `start`",
                "2:7: seed: expected a whole number in 0…9223372036854775807, got `many`",
                "5:12: time_zone: unknown time zone `Europe/Berln`; did you mean `Europe/Berlin`?",
                "7:3: person.tap_probabilty: unknown key `tap_probabilty`; did you mean `tap_probability`?",
                "8:18: person.views_per_day: must be positive, got -3",
                "10:5: widgets[0]: missing required key `interest`",
                "11:25: widgets[0].timeline.horizon: expected a duration with a unit (ms, s, m, h, d), got `30`",
                "15:9: widgets[2].id: duplicate widget id `weather`; the first is at line 10",
                "16:22: widgets[2].interest.base: must be positive, got 0",
                "18:19: stack.members[0]: widget `wether` is not defined; did you mean `weather`?",
                "20:5: budgets[0]: unknown budget policy `dailyquota`; did you mean `daily_quota`? "
                    + "Valid: unlimited, fixed_interval, daily_quota",
                "21:36: budgets[1].per_day: 0 is outside 1…1000",
                "23:5: rankings[0]: unknown ranking policy `statc`; did you mean `static`? Valid: static, hybrid",
            ])
        }
    }

    @Test func issueAndErrorsDescriptions() {
        let a = ScenarioIssue(file: "s.yaml", line: 3, column: 9, path: "widgets[2].timeline.horizon", message: "m1")
        let b = ScenarioIssue(file: "s.yaml", line: 0, column: 0, path: ScenarioIssue.wholeFile, message: "m2")
        #expect(a.description == "s.yaml:3:9: widgets[2].timeline.horizon: m1")
        #expect(ScenarioErrors(issues: [a, b]).description
            == "s.yaml:3:9: widgets[2].timeline.horizon: m1\ns.yaml:0:0: (file): m2")
    }
}
