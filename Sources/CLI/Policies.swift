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
        let registry = WidgetSimCLI.policies
        for d in registry.budgets { describe(d, added: !registry.isBuiltIn(d.name, role: .budget)) }
        print("RANKING POLICIES (scenario key `rankings:`)\n")
        for d in registry.rankings { describe(d, added: !registry.isBuiltIn(d.name, role: .ranking)) }
    }

    /// `added`: registered by the program running the command line, not built in.
    func describe<P>(_ d: PolicyDescriptor<P>, added: Bool) {
        let notes = (added ? ["added by this program"] : []) + (d.unofficial ? ["unofficial: calibration only"] : [])
        print("  \(d.name)\(notes.isEmpty ? "" : "  (\(notes.joined(separator: "; ")))")")
        print("      \(d.summary)")
        print("      source: \(d.source)")
        for p in d.parameters {
            print("      \(p.name) = \(p.defaultValue)    \(p.summary) [\(p.kind.expectation)]")
        }
        print("")
    }
}
