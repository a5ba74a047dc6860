import Foundation
import Testing
import WidgetSimModel
import WidgetSimScenario

/// A run that would write more than 1 GB of widget_days.csv says so before it starts,
/// and how to avoid it.
@Suite struct BigOutputTests {
    func defaultScenario(people: Int) throws -> Scenario {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent("scenarios/default.yaml"), encoding: .utf8)
        var s = try ScenarioLoader.parse(yaml: text, file: "default.yaml")
        s.people = people
        return s
    }

    /// 2,000 people of the default scenario wrote 4.2 GB: the estimate is within a factor
    /// of 1.25 of it, and 200 people (a tenth) stay below the warning.
    @Test func theEstimateMatchesTheSizeSeen() throws {
        let big = RunEstimate([try defaultScenario(people: 2000)], threads: 2)
        #expect(big.widgetDaysBytes > 4.2e9 / 1.25 && big.widgetDaysBytes < 4.2e9 * 1.25, "\(big.widgetDaysBytes)")
        #expect(big.widgetDaysWarningText?.contains("add --no-widget-days to skip it") == true)
        let small = RunEstimate([try defaultScenario(people: 200)], threads: 2)
        #expect(small.widgetDaysWarningText == nil, "\(small.widgetDaysBytes)")
    }

    @Test func theRunWarnsBeforeItStarts() throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("widgetsim-big-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let out = work.appendingPathComponent("out").path
        let tiny = repositoryRoot.appendingPathComponent("scenarios/tiny.yaml").path
        let first = try widgetsim(["run", tiny, "--out", out, "--quiet", "--no-report"])
        #expect(first.status == 0, "\(first.stderr)")
        // Refused by the folder (another run's report) right after the warning: nothing is simulated.
        let scenario = repositoryRoot.appendingPathComponent("scenarios/default.yaml").path
        let big = try widgetsim(["run", scenario, "--people", "2000", "--out", out, "--quiet"])
        #expect(big.status == 2, "\(big.stderr)")
        #expect(big.stderr.contains("widgetsim: widget_days.csv will be about") && big.stderr.contains("GB"), "\(big.stderr)")
        #expect(big.stderr.contains("add --no-widget-days to skip it"))
        let without = try widgetsim(["run", scenario, "--people", "2000", "--out", out, "--quiet", "--no-widget-days"])
        #expect(without.status == 2)
        #expect(!without.stderr.contains("widget_days.csv will be"), "\(without.stderr)")
    }
}
