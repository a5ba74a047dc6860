import ArgumentParser
import WidgetSimModel

struct Policies: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the budget and ranking policies with their parameters and defaults.",
        discussion: """
        A scenario names policies under `budgets:` and `rankings:`, either by name alone \
        (every parameter at its default) or as a mapping: {policy: NAME, label: LABEL, PARAMETER: VALUE, ...}.
        """)

    func run() throws {
        print("BUDGET POLICIES (scenario key `budgets:`)\n")
        for d in BudgetPolicies.all { describe(d) }
        print("RANKING POLICIES (scenario key `rankings:`)\n")
        for d in RankingPolicies.all { describe(d) }
        print("Every duration is at most 100000 days; the bounds of scenario keys are in scenarios/README.md (Bounds).")
    }

    func describe<P>(_ d: PolicyDescriptor<P>) {
        print("  \(d.name)\(d.unofficial ? "  (unofficial: calibration only)" : "")")
        print("      \(d.summary)")
        print("      source: \(d.source)")
        for p in d.parameters {
            print("      \(p.name) = \(p.defaultValue)    \(p.summary) [\(p.kind.expectation)]")
        }
        print("")
    }
}
