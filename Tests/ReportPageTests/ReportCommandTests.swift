import Foundation
import Testing
import WidgetSimExecution
@testable import WidgetSimReportPage
import WidgetSimReports
import WidgetSimScenario

/// `widgetsim report` and `run --no-report`, through the built program.
@Suite("widgetsim report")
struct ReportCommandTests {
    /// A finished tiny run with its page, and the bytes of that page.
    func runWithPage() throws -> (URL, Data) {
        let folder = try tinyRunFolder()
        let r = try runProgram(try widgetsimBinary(), ["report", folder.path])
        #expect(r.status == 0, "\(r.err)")
        return (folder, try Data(contentsOf: folder.appendingPathComponent("report.html")))
    }

    /// Runs `widgetsim report` after `damage`; expects exit 2, an error naming `file`
    /// (and `line` when given), the earlier page and charts untouched and no temporary left.
    func expectRefusal(file: String, line: Int? = nil, _ damage: (URL) throws -> Void) throws {
        let (folder, before) = try runWithPage()
        let chartsBefore = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("report").path).sorted()
        try damage(folder)
        let r = try runProgram(try widgetsimBinary(), ["report", folder.path])
        #expect(r.status == 2)
        let place = file + (line.map { ":\($0):" } ?? "")
        #expect(r.err.contains(place), "stderr: \(r.err)")
        #expect(try Data(contentsOf: folder.appendingPathComponent("report.html")) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("report").path).sorted() == chartsBefore)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).allSatisfy { !$0.hasPrefix(".report-") })
    }

    @Test("a run of one policy pair (no differences in comparison.csv) gets its page")
    func onePair() throws {
        var s = try ScenarioLoader.load(path: repositoryRoot.appendingPathComponent("scenarios/tiny.yaml").path)
        var overrides = RunOverrides()
        overrides.budgets = [s.budgets[0].label]
        overrides.rankings = [s.rankings[0].label]
        try overrides.apply(to: &s)
        let folder = temporaryFolder().appendingPathComponent("tiny")
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        var options = RunOptions(outputFolder: folder, threads: 1)
        options.widgetDays = false
        guard case .finished = try RunJob.execute(s, options) else { throw TestFailure("the run did not finish") }
        let header = try String(contentsOf: folder.appendingPathComponent("comparison.csv"), encoding: .utf8).prefix { $0 != "\n" }
        #expect(!header.contains("diff_mean"))
        let r = try runProgram(try widgetsimBinary(), ["report", folder.path])
        #expect(r.status == 0, "\(r.err)")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("report.html").path))
    }

    @Test("a missing CSV: exit 2, the file named, nothing written")
    func missingFile() throws {
        for name in ["daily.csv", "comparison.csv", "summary.csv"] {
            try expectRefusal(file: name) { try FileManager.default.removeItem(at: $0.appendingPathComponent(name)) }
        }
    }

    @Test("a truncated row, a word where a number belongs, an empty file: exit 2 with file and line")
    func damagedFiles() throws {
        try expectRefusal(file: "comparison.csv", line: 4) { folder in
            let url = folder.appendingPathComponent("comparison.csv")
            var lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init)
            lines[3] = String(lines[3].prefix(30))
            try (lines.joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
        }
        try expectRefusal(file: "daily.csv", line: 3) { folder in
            let url = folder.appendingPathComponent("daily.csv")
            var lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init)
            var fields = lines[2].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            let header = lines[0].split(separator: ",").map(String.init)
            fields[header.firstIndex(of: "accuracy")!] = "lots"
            lines[2] = fields.joined(separator: ",")
            try (lines.joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
        }
        try expectRefusal(file: "summary.csv") { folder in
            try "".write(to: folder.appendingPathComponent("summary.csv"), atomically: true, encoding: .utf8)
        }
        try expectRefusal(file: "reasons.csv", line: 2) { folder in
            try "scenario,budget,ranking,replication,seed,day,kind,reason,count\ntiny,unlimited,static,0,7,0,refusal,x,many\n"
                .write(to: folder.appendingPathComponent("reasons.csv"), atomically: true, encoding: .utf8)
        }
    }

    @Test("a folder that is not there: exit 2")
    func noFolder() throws {
        let r = try runProgram(try widgetsimBinary(), ["report", "/nonexistent/run"])
        #expect(r.status == 2)
        #expect(r.err.contains("/nonexistent/run"))
    }

    @Test("run writes report.html unless --no-report")
    func runWritesThePage() throws {
        let out = temporaryFolder()
        let with = out.appendingPathComponent("with"), without = out.appendingPathComponent("without")
        for (folder, extra) in [(with, [String]()), (without, ["--no-report"])] {
            let r = try runProgram(try widgetsimBinary(), ["run", "scenarios/tiny.yaml", "--quiet", "--no-widget-days", "--out", folder.path] + extra,
                                   in: repositoryRoot)
            #expect(r.status == 0, "\(r.err)")
        }
        let page = try String(contentsOf: with.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(page.contains("<title>WidgetSim report: tiny</title>"))
        #expect(FileManager.default.fileExists(atPath: with.appendingPathComponent("report/learning.gp").path))
        #expect(!FileManager.default.fileExists(atPath: without.appendingPathComponent("report.html").path))
        #expect(!FileManager.default.fileExists(atPath: without.appendingPathComponent("report").path))
        #expect(FileManager.default.fileExists(atPath: without.appendingPathComponent("comparison.csv").path))
    }

    /// The reports leave out a column empty on every row: no difference columns with
    /// one policy pair, no accuracy when no view ever wanted a widget. The page is drawn
    /// without them.
    @Test("columns left out because they are empty everywhere: the page is still written")
    func columnsLeftOutWhenEmpty() throws {
        let folder = temporaryFolder().appendingPathComponent("one-pair")
        let r = try runProgram(try widgetsimBinary(), ["run", "scenarios/bench-reference.yaml", "--people", "2", "--days", "2",
                                                       "--quiet", "--no-widget-days", "--out", folder.path], in: repositoryRoot)
        #expect(r.status == 0, "\(r.err)")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("report.html").path))
        let comparison = try String(contentsOf: folder.appendingPathComponent("comparison.csv"), encoding: .utf8)
        #expect(!comparison.contains("diff_mean"))
        // daily.csv without its ratio columns, as a run whose ratios are never defined writes it.
        let url = folder.appendingPathComponent("daily.csv")
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        let keep = lines[0].indices.filter { !["accuracy", "ceiling"].contains(lines[0][$0]) }
        #expect(keep.count == lines[0].count - 2)
        try (lines.map { row in keep.map { row[$0] }.joined(separator: ",") }.joined(separator: "\n") + "\n")
            .write(to: url, atomically: true, encoding: .utf8)
        let again = try runProgram(try widgetsimBinary(), ["report", folder.path])
        #expect(again.status == 0, "\(again.err)")
    }

    /// A person who almost never looks: no accuracy on any day, no point for some pairs.
    /// gnuplot refuses a plot whose every point is undefined, so such series are left out.
    @Test("a run whose figures have series without a single value: the page is still written")
    func seriesWithoutValues() throws {
        let folder = temporaryFolder()
        let scenario = folder.appendingPathComponent("rare.yaml")
        let tiny = try String(contentsOf: repositoryRoot.appendingPathComponent("scenarios/tiny.yaml"), encoding: .utf8)
        #expect(tiny.contains("views_per_day: {mean: 40, cv: 0.2}"))
        try tiny.replacingOccurrences(of: "views_per_day: {mean: 40, cv: 0.2}", with: "views_per_day: 0.0001")
            .write(to: scenario, atomically: true, encoding: .utf8)
        let out = folder.appendingPathComponent("out")
        let r = try runProgram(try widgetsimBinary(), ["run", scenario.path, "--quiet", "--no-widget-days", "--out", out.path])
        #expect(r.status == 0, "\(r.err)")
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("report.html").path))
    }

    @Test("a chart's script redraws its figure from the files beside the page")
    func scriptsRedraw() throws {
        let (folder, _) = try runWithPage()
        let charts = folder.appendingPathComponent("report")
        let svg = charts.appendingPathComponent("learning.svg")
        try FileManager.default.removeItem(at: svg)
        let r = try runProgram(ReportPage.findExecutable("gnuplot")!, ["learning.gp"], in: charts)
        #expect(r.status == 0, "\(r.err)")
        #expect(try String(contentsOf: svg, encoding: .utf8).contains("<title>learning</title>"))
    }
}

@Suite("report page pieces")
struct ReportPiecesTests {
    @Test("the Pareto front keeps exactly the undominated pairs, sorted by x")
    func paretoFront() {
        let p = { (r: String) in PairKey(budget: "b", ranking: r) }
        let points = [(p("a"), 1.0, 5.0), (p("b"), 2.0, 3.0), (p("c"), 2.5, 3.0), (p("d"), 4.0, 1.0), (p("e"), 3.0, 4.0), (p("f"), 1.0, 6.0)]
        #expect(Figures.paretoFront(points).map(\.0.ranking) == ["a", "b", "d"])
    }

    @Test("CSV reading: quoted fields, doubled quotes, CRLF; a short row named by line")
    func csvTable() throws {
        let t = try CSVTable(text: "a,b,c\r\n1,\"x, \"\"y\"\"\",3\n4,5,6\n", file: "t.csv")
        #expect(t.rows == [["1", "x, \"y\"", "3"], ["4", "5", "6"]])
        #expect(t.lines == [2, 3])
        #expect(throws: ReportInputError.damaged(file: "t.csv", line: 3, problem: "2 fields where the header has 3 (a truncated or damaged row)")) {
            try CSVTable(text: "a,b,c\n1,2,3\n4,5\n", file: "t.csv")
        }
    }

    /// A row cut to nothing leaves an empty line among the rows: the file is damaged, not
    /// a row shorter. Empty lines at the end of the file are only its end.
    @Test("CSV reading: an empty line among the rows is refused by line")
    func csvTableEmptyLine() throws {
        #expect(throws: ReportInputError.damaged(file: "t.csv", line: 3, problem: "an empty line among the rows (a truncated or damaged row)")) {
            try CSVTable(text: "a,b,c\n1,2,3\n\n4,5,6\n", file: "t.csv")
        }
        #expect(throws: ReportInputError.damaged(file: "t.csv", line: 2, problem: "an empty line among the rows (a truncated or damaged row)")) {
            try CSVTable(text: "a,b,c\r\n\r\n4,5,6", file: "t.csv")
        }
        #expect(try CSVTable(text: "a,b,c\n1,2,3\n\n\n", file: "t.csv").rows == [["1", "2", "3"]])
    }

    @Test("columns are found by name, today's or the newer one")
    func columnNames() throws {
        let t = try CSVTable(text: "charged_reloads_per_widget_day,x\n1,2\n", file: "t.csv")
        #expect(t.column(HeadlineMetric.chargedPerWidgetDay.names) == 0)
        #expect(t.column(HeadlineMetric.reloadsPerWidgetDay.names) == nil)
    }
}

extension ReportCommandTests {
    /// A study whose baseline point has no views (accuracy undefined on every day the
    /// page shows) still gets its page: the lines without a value are left out.
    @Test("a study whose baseline point has no views: the page is written")
    func studyWithoutViewsAtTheBaselinePoint() throws {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent("scenarios/study-budget.yaml"), encoding: .utf8)
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("study.yaml")
        try text.replacingOccurrences(of: "values: [40, 120]", with: "values: [1e-308, 120]")
            .write(to: file, atomically: true, encoding: .utf8)
        let out = folder.appendingPathComponent("out")
        let r = try runProgram(try widgetsimBinary(), ["run", file.path, "--people", "2", "--days", "2", "--replications", "1",
                                                        "--threads", "1", "--quiet", "--no-widget-days", "--out", out.path])
        #expect(r.status == 0, "\(r.err)")
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("report.html").path))
        let page = try String(contentsOf: out.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(page.contains("id=\"studies\""))
    }
}
