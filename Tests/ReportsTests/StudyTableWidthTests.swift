import Foundation
import Testing
import WidgetSimModel
import WidgetSimReports
import WidgetSimScenario

/// The table a study prints fits 80 columns: parameters by a short name (with a legend),
/// each metric's mean and its paired difference to the baseline point.
@Suite struct StudyTableWidthTests {
    @Test func aStudysTableFitsEightyColumns() throws {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent("scenarios/tiny.yaml"), encoding: .utf8)
        let request = StudyRequest(sets: ["replications=2"], sweeps: [
            "budgets.daily_quota.per_day=4,12", "widgets.news.timeline.reload.after=15m,1h",
        ])
        let study = try ScenarioLoader.study(yaml: text, file: "tiny.yaml", request)
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        guard case .finished(let result) = try RunJob.execute(study, RunOptions(outputFolder: folder, threads: 2)) else {
            Issue.record("the study did not finish")
            return
        }
        let lines = StudyTable.render(result.results, study: study).split(separator: "\n").map(String.init)
        #expect(lines.allSatisfy { $0.count <= 80 }, "\(lines.map(\.count))\n\(lines.joined(separator: "\n"))")
        // Each point on a line of its own with its values, then one row per pair.
        #expect(lines.contains("point 0 (baseline): budgets.daily_quota.per_day = 4,"))
        #expect(lines.contains { $0.contains("widgets.news.timeline.reload.after = 1h") })
        let header = try #require(lines.first { $0.hasPrefix("  budget ") })
        #expect(header.contains("accuracy") && header.contains("Δ"))
        #expect(lines.filter { $0.hasPrefix("point ") && $0.contains(": budgets.") }.count == 4)
        #expect(lines.filter { $0.hasPrefix("  daily_quota ") || $0.hasPrefix("  unlimited ") }.count == 16)
    }
}
