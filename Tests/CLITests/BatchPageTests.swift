import Foundation
import Testing

/// `widgetsim batch` draws each scenario's page and the batch's own, and its combined
/// comparison.csv names the run of every row.
@Suite struct BatchPageTests {
    @Test func eachScenarioOfABatchHasItsPage() throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("widgetsim-batch-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let out = work.appendingPathComponent("batch")
        let scenarios = ["tiny.yaml", "validation/evening-freeze.yaml"].map { repositoryRoot.appendingPathComponent("scenarios/" + $0).path }
        let r = try widgetsim(["batch"] + scenarios + ["--people", "2", "--days", "2", "--warmup-days", "0", "--out", out.path, "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        // The scenarios' folders, beside the batch page's report/.
        let folders = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { !$0.contains(".") && $0 != "report" }.sorted()
        #expect(folders.count == 2, "\(folders)")
        for folder in folders {
            #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent(folder + "/report.html").path), "\(folder)")
        }
        // The combined comparison keeps each row's run id.
        let comparison = try String(contentsOf: out.appendingPathComponent("comparison.csv"), encoding: .utf8)
        let lines = comparison.split(separator: "\n")
        #expect(lines.first?.hasPrefix("run_id,scenario,") == true)
        let ids = Set(lines.dropFirst().map { $0.split(separator: ",")[0] })
        #expect(ids.count == 2 && ids.allSatisfy { $0.count == 17 }, "\(ids)")
        // --no-report leaves the pages out.
        let bare = work.appendingPathComponent("bare")
        let s = try widgetsim(["batch", scenarios[0], "--people", "2", "--days", "1", "--out", bare.path, "--quiet", "--no-report"])
        #expect(s.status == 0, "\(s.stderr)")
        #expect(!FileManager.default.fileExists(atPath: bare.appendingPathComponent("tiny/report.html").path))
    }

    /// The text of `html` between the first `start` and the next `end` (empty when either is absent).
    func between(_ html: String, _ start: String, _ end: String) -> String {
        guard let a = html.range(of: start), let b = html.range(of: end, range: a.upperBound ..< html.endIndex) else { return "" }
        return String(html[a.upperBound ..< b.lowerBound])
    }

    /// The values of the attribute `name` in `html`, in order.
    func values(of name: String, in html: String) -> [String] {
        html.components(separatedBy: name + "=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
    }

    /// The batch's page: its sections, a row per scenario in both tables with a link that
    /// opens a file of the batch, a verdict per goal, a chart per goal with a point per
    /// scenario and pair; skipped with --no-report; redrawn the same by --resume and by
    /// `widgetsim report` on the batch's folder; a damaged scenario file named by path.
    @Test func theBatchHasItsOwnPage() throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("widgetsim-batchpage-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let out = work.appendingPathComponent("batch")
        let scenarios = ["tiny.yaml", "validation/evening-freeze.yaml"].map { repositoryRoot.appendingPathComponent("scenarios/" + $0).path }
        let options = ["--people", "3", "--days", "2", "--warmup-days", "0", "--replications", "3", "--out", out.path, "--quiet"]
        let r = try widgetsim(["batch"] + scenarios + options)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("the batch's report.html"), "\(r.stdout)")
        let pageURL = out.appendingPathComponent("report.html")
        let page = try String(contentsOf: pageURL, encoding: .utf8)
        for id in ["recommend", "scenarios", "side-by-side", "answers", "batch-recommend-table", "scenarios-table"] {
            #expect(page.contains("id=\"\(id)\""), "no #\(id)")
        }
        // One row per scenario in each table, in the batch's order, each linking to its page.
        let names = ["tiny", "evening-freeze"]
        for table in ["batch-recommend-table", "scenarios-table"] {
            let rows = between(page, "id=\"\(table)\"", "</table>")
            #expect(values(of: "<tr data-scenario", in: rows) == names, "\(table)")
            #expect(values(of: "href", in: between(rows, "<tbody>", "</tbody>")) == names.map { "\($0)/report.html" }, "\(table)")
        }
        for link in values(of: "href", in: between(page, "<body>", "</body>")) where !link.hasPrefix("#") {
            #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent(link).path), "\(link) does not resolve")
        }
        // A verdict per scenario and goal, from Recommendation's words.
        let verdicts = values(of: "data-verdict", in: page)
        #expect(verdicts.count == 6 && verdicts.allSatisfy { ["best", "tie", "none better", "unknown"].contains($0) }, "\(verdicts)")
        // tiny runs 4 pairs and evening-freeze 3: every chart draws 7 points, its files in report/.
        for goal in ["accuracy", "freshness", "cost"] {
            #expect(page.contains("id=\"chart-scenarios_\(goal)\" data-marks=\"7\""), "\(goal)")
            let data = try String(contentsOf: out.appendingPathComponent("report/scenarios_\(goal).csv"), encoding: .utf8)
            #expect(data.split(separator: "\n").count == 8, "\(goal): \(data)")
            #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("report/scenarios_\(goal).gp").path))
        }
        // The sentences, one per goal and scenario.
        #expect(page.components(separatedBy: "<ul class=\"answers\"").count - 1 == 2)

        // --resume skips both scenarios and redraws the page, byte for byte.
        try FileManager.default.removeItem(at: pageURL)
        let resumed = try widgetsim(["batch"] + scenarios + options + ["--resume"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stdout.components(separatedBy: "finished earlier, skipped").count - 1 == 2, "\(resumed.stdout)")
        #expect(try String(contentsOf: pageURL, encoding: .utf8) == page)

        // `widgetsim report` on the batch's folder draws the batch's page, the same.
        try FileManager.default.removeItem(at: pageURL)
        let redrawn = try widgetsim(["report", out.path])
        #expect(redrawn.status == 0, "\(redrawn.stderr)")
        #expect(try String(contentsOf: pageURL, encoding: .utf8) == page)

        // A damaged scenario file: exit 2, the file named from the batch folder, the page kept.
        let comparison = out.appendingPathComponent("evening-freeze/comparison.csv")
        try (String(contentsOf: comparison, encoding: .utf8) + "tiny,only,two\n").write(to: comparison, atomically: true, encoding: .utf8)
        let damaged = try widgetsim(["report", out.path])
        #expect(damaged.status == 2)
        #expect(damaged.stderr.contains(out.path + "/evening-freeze/comparison.csv:"), "\(damaged.stderr)")
        #expect(try String(contentsOf: pageURL, encoding: .utf8) == page)

        // --no-report writes no page for the batch either.
        let bare = work.appendingPathComponent("bare")
        let s = try widgetsim(["batch", scenarios[0], "--people", "2", "--days", "1", "--out", bare.path, "--quiet", "--no-report"])
        #expect(s.status == 0, "\(s.stderr)")
        #expect(!FileManager.default.fileExists(atPath: bare.appendingPathComponent("report.html").path))
        #expect(!FileManager.default.fileExists(atPath: bare.appendingPathComponent("report").path))
    }

    @Test func aScenarioNamedReportIsRefusedWithAPage() throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("widgetsim-batchpage-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent("scenarios/tiny.yaml"), encoding: .utf8)
        let file = work.appendingPathComponent("report.yaml")
        try text.replacingOccurrences(of: "name: tiny", with: "name: report").write(to: file, atomically: true, encoding: .utf8)
        let r = try widgetsim(["batch", file.path, "--people", "2", "--days", "1", "--out", work.appendingPathComponent("out").path, "--quiet"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("is named `report`"), "\(r.stderr)")
    }
}

