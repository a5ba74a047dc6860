import Foundation
import Testing
import WidgetSim

extension RefusalReason {
    /// A refusal code of the tests' own.
    static let quietHours = RefusalReason("quiet_hours")
}

/// A budget of a program's own with a code of its own: it refuses charged requests from
/// 22:00 to 07:00 UTC and grants the rest.
final class QuietHoursBudget: BudgetPolicy {
    static let descriptor = BudgetPolicyDescriptor(
        name: "quiet_hours", summary: "Refuses charged requests at night.", source: "tests",
        refusals: [.quietHours], parameters: [], make: { _ in QuietHoursBudget() })
    func begin(instances: Int) {}
    func decide(instance: Int, reason: ReloadReason, at now: SimTime) -> BudgetDecision {
        let hour = now % Milliseconds.day / Milliseconds.hour
        return hour >= 22 || hour < 7 ? .deny(because: .quietHours) : .grant
    }
    func didReload(instance: Int, charged: Bool, at now: SimTime) {}
    /// Nothing but its own requests: it learns from no view, app use or addition.
    var observes: BudgetObservations { [] }
}

@Suite struct OwnRefusalCodeTests {
    static let yaml = """
        name: quiet
        seed: 5
        days: 2
        people: 4
        start: 2026-03-02
        time_zone: UTC
        widgets:
          - id: weather
            interest: {base: 0.4}
            timeline: {horizon: 1h, reload: {after: 30m}}
          - id: news
            interest: {base: 0.3}
            timeline: {horizon: 1h, reload: {after: 20m}}
        budgets:
          - daily_quota
          - quiet_hours
        rankings:
          - static

        """

    @Test("a policy's own refusal code is counted and written to reasons.csv like a built-in one")
    func ownCodeReachesReasonsCSV() throws {
        #expect(RefusalReason("quiet_hours") == .quietHours)
        #expect(RefusalReason.quietHours.label == "quiet_hours" && !RefusalReason.quietHours.isSystemRule)
        #expect(RefusalReason.allCases.contains(.quietHours))
        let registry = try PolicyRegistry.builtIn.adding(budgets: [QuietHoursBudget.descriptor])
        let s = try ScenarioLoader.parse(yaml: Self.yaml, file: "quiet.yaml", policies: registry)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("widgetsim-quiet-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var options = RunOptions(outputFolder: folder, threads: 2)
        options.widgetDays = false
        guard case .finished(let result) = try RunJob.execute(s, options) else {
            Issue.record("the run did not finish")
            return
        }
        let p = result.pairs.firstIndex(of: PolicyPair(budget: "quiet_hours", ranking: "static"))!
        let counted = result.totals[0][p].sum(.quietHours)
        // Nine hours of every day refuse: a third or so of the charged requests.
        #expect(counted > 0)

        let lines = try String(contentsOf: folder.appendingPathComponent("reasons.csv"), encoding: .utf8)
            .split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let header = lines[0]
        let (budget, kind, reason, count) = (
            header.firstIndex(of: "budget")!, header.firstIndex(of: "kind")!, header.firstIndex(of: "reason")!,
            header.firstIndex(of: "count")!)
        let quiet = lines.dropFirst().filter { $0[reason] == "quiet_hours" }
        #expect(!quiet.isEmpty)
        #expect(quiet.allSatisfy { $0[budget] == "quiet_hours" && $0[kind] == "refusal" })
        #expect(quiet.reduce(Int64(0)) { $0 + Int64($1[count])! } == counted)
        // Its budget's refusals are its own code's alone; daily_quota's pair never lists it.
        let ownRefusals = Set(lines.dropFirst().filter { $0[budget] == "quiet_hours" && $0[kind] == "refusal" }.map { $0[reason] })
        #expect(ownRefusals == ["quiet_hours"])
        let summary = try String(contentsOf: folder.appendingPathComponent("summary.csv"), encoding: .utf8)
        #expect(summary.contains(",quiet_hours,static,"))
    }

    @Test("registration refuses a refusal code that is not a lower-case word")
    func illFormedCodeIsRefused() {
        let d = BudgetPolicyDescriptor(
            name: "loud", summary: "Refuses with a code of the wrong form.", source: "tests",
            refusals: [RefusalReason("Quiet Hours")], parameters: [], make: { _ in QuietHoursBudget() })
        #expect(throws: PolicyRegistrationError.self) { _ = try PolicyRegistry.builtIn.adding(budgets: [d]) }
        do {
            _ = try PolicyRegistry.builtIn.adding(budgets: [d])
        } catch {
            #expect("\(error)".contains("refusal `Quiet Hours`: a refusal code is a lower-case word"))
        }
    }
}
