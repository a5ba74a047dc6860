import Foundation
import Testing
import WidgetSimModel
import WidgetSimReports

/// reasons.csv leaves out the refusal codes a pair's budget cannot give: its rows hold
/// the system's codes and those the budget's descriptor lists, and the codes left out
/// were never counted.
@Suite struct ReasonCodesPerPairTests {
    @Test func codesThatCannotOccurForAPairHaveNoRows() throws {
        var s = try loadScenario("default.yaml")
        s.people = 3
        s.days = 2
        s.warmupDays = 0
        s.replications = 1
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var options = RunOptions(outputFolder: folder, threads: 2)
        options.widgetDays = false
        guard case .finished(let r) = try RunJob.execute(s, options) else {
            Issue.record("the run did not finish")
            return
        }
        let text = try String(contentsOf: folder.appendingPathComponent("reasons.csv"), encoding: .utf8)
        let lines = text.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let header = lines[0]
        let (b, k, code) = (header.firstIndex(of: "budget")!, header.firstIndex(of: "kind")!, header.firstIndex(of: "reason")!)
        for (p, pair) in r.pairs.enumerated() {
            let written = Set(lines.dropFirst().filter { $0[b] == pair.budget && $0[header.firstIndex(of: "ranking")!] == pair.ranking }
                .filter { $0[k] == "refusal" || $0[k] == "system_refusal" }.map { $0[code] })
            let budget = s.budgets.first { $0.label == pair.budget }!
            let listed = Set(s.policies.budget(named: budget.name)!.refusals.map(\.label))
            let system = Set(RefusalReason.allCases.filter(\.isSystemRule).map(\.label))
            #expect(written == listed.union(system), "\(pair): \(written.sorted())")
            // What is left out was never counted.
            for reason in RefusalReason.allCases where !written.contains(reason.label) {
                #expect(r.totals[0][p].sum(reason) == 0, "\(pair): \(reason.label)")
            }
        }
        // unlimited refuses nothing of its own: only the system's codes.
        let unlimited = Set(lines.dropFirst().filter { $0[b] == "unlimited" && $0[k] == "refusal" }.map { $0[code] })
        #expect(unlimited.isEmpty, "\(unlimited)")
        #expect(!lines.dropFirst().contains { $0[b] == "daily_quota" && $0[code] == "tokens_empty" })
    }
}
