import Foundation
import Testing
@testable import WidgetSimReportPage
import WidgetSimReports
import WidgetSimScenario

/// The studies section of report.html on a study of two parameters: every point drawn,
/// the count said, and where each curve flattens.
@Suite("report.html studies")
struct StudyPageTests {
    /// scenarios/study-budget.yaml (8 limits × 2 view rates, two budgets) with 6 people over one day.
    func studyRun() throws -> URL {
        let path = repositoryRoot.appendingPathComponent("scenarios/study-budget.yaml").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
            .replacingOccurrences(of: "\npeople: 200\n", with: "\npeople: 6\n").replacingOccurrences(of: "\ndays: 3\n", with: "\ndays: 1\n")
        let study = try ScenarioLoader.study(yaml: text, file: "study-budget.yaml")
        let folder = temporaryFolder().appendingPathComponent("study")
        var options = RunOptions(outputFolder: folder, threads: 1)
        options.widgetDays = false
        options.provenance.scenarioPath = "scenarios/study-budget.yaml"
        options.provenance.scenarioText = text
        guard case .finished = try RunJob.execute(study, options) else { throw TestFailure("the study did not finish") }
        return folder
    }

    @Test("two parameters: every chart draws all 32 points × pairs, one line per pair and value of the other parameter")
    func everyPointDrawn() throws {
        let folder = try studyRun()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let written = try ReportPage.build(in: folder)
        let inputs = try Inputs.read(folder)
        let study = try #require(inputs.study)
        #expect(study.parameters == ["budgets.quota.per_day", "person.views_per_day.mean"])
        #expect(study.rows.count == 32)
        let charts = Sections.make(inputs).flatMap(\.charts).filter { $0.name.hasPrefix("study_") }
        #expect(charts.count == 2 * study.metrics.count)
        for chart in charts {
            #expect(chart.marks == 32, "\(chart.name) draws \(chart.marks) of 32")
            #expect(chart.caption.contains("draws 32 of the study's 32 points × pairs (all of them)"), "\(chart.caption)")
        }
        // Along the limit: 2 pairs × 2 view rates; along the view rate: 2 pairs × 8 limits.
        let first = try String(contentsOf: folder.appendingPathComponent("report/study_1.csv"), encoding: .utf8)
        let header = first.split(separator: "\n")[0]
        #expect(header.components(separatedBy: "ci95_half_width").count - 1 == 4, "\(header)")
        #expect(first.split(separator: "\n").count == 1 + 8)

        let html = try String(contentsOf: written.page, encoding: .utf8)
        // The steps table: one row per parameter and line (4 along the limit, 16 along the views).
        let table = try #require(html.element(starting: "<table class=\"headline steps\" id=\"study-steps\"", ending: "</table>"))
        #expect(table.occurrences(of: "<tr data-parameter=\"budgets.quota.per_day\"") == 4)
        #expect(table.occurrences(of: "<tr data-parameter=\"person.views_per_day.mean\"") == 16)
        // 7 steps along the limit per line, 1 along the views.
        #expect(table.occurrences(of: "data-from=") == 4 * 7 + 16)
        // Code shows as code: no literal backtick anywhere on the page.
        #expect(!html.contains("`"))
        #expect(html.contains("<h2 id=\"recommend\">Recommendations</h2>"))
    }

    @Test("a curve flattens where every further step's interval holds zero")
    func flattening() {
        func step(_ from: String, _ to: String, _ mean: Double, _ half: Double?) -> StudySteps.Step {
            .init(from: from, to: to, difference: Estimate(mean: mean, halfWidth: half))
        }
        var s = StudySteps(parameter: "p", metric: "m", series: "a", steps: [
            step("8", "16", -0.10, 0.02), step("16", "24", -0.04, 0.01), step("24", "32", -0.005, 0.01), step("32", "48", 0.002, 0.01),
        ])
        #expect(s.flattensAt == "24")
        // A change beyond noise after a flat step: the curve has not flattened there.
        s.steps.append(step("48", "64", -0.03, 0.01))
        #expect(s.flattensAt == nil)
        // No interval: nothing can be said.
        s.steps = [step("8", "16", -0.01, nil)]
        #expect(s.flattensAt == nil)
    }
}
