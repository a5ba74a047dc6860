import ArgumentParser
import Foundation
import WidgetSimModel

struct Policies: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the budget and ranking policies with their parameters.",
        discussion: """
        A scenario names policies under `budgets:` and `rankings:`, either by name
        alone (every parameter at its default) or as a mapping:
          {policy: NAME, label: LABEL, PARAMETER: VALUE, ...}
        The list is wrapped to the terminal's width (COLUMNS when set).
        """)

    func run() throws {
        let width = max(40, terminalWidth())
        print("BUDGET POLICIES (scenario key `budgets:`)\n")
        for d in BudgetPolicies.all { describe(d, width) }
        print("RANKING POLICIES (scenario key `rankings:`)\n")
        for d in RankingPolicies.all { describe(d, width) }
    }

    func describe<P>(_ d: PolicyDescriptor<P>, _ width: Int) {
        print("  \(d.name)\(d.unofficial ? "  (unofficial: calibration only)" : "")")
        let body = String(repeating: " ", count: 6)
        for line in wrap(d.summary, width: width, indent: body, firstIndent: body) { print(line) }
        for line in wrap("source: " + d.source, width: width, indent: body + "  ", firstIndent: body) { print(line) }
        for p in d.parameters {
            let text = "\(p.name) = \(p.defaultValue): \(p.summary) [\(p.kind.expectation)]"
            for line in wrap(text, width: width, indent: body + "    ", firstIndent: body) { print(line) }
        }
        print("")
    }
}
