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
        let registry = WidgetSimCLI.policies
        for d in registry.budgets { describe(d, width, added: !registry.isBuiltIn(d.name, role: .budget)) }
        print("RANKING POLICIES (scenario key `rankings:`)\n")
        for d in registry.rankings { describe(d, width, added: !registry.isBuiltIn(d.name, role: .ranking)) }
        let body = String(repeating: " ", count: 6)
        func say(_ text: String, _ indent: String = "") {
            for line in wrap(text, width: width, indent: body + indent, firstIndent: body) { print(line) }
        }
        print("SYSTEM RULES (applied to every policy pair)\n")
        print("  rotation governor  (scenario keys under `stack:`)")
        say("The ranking proposes an order; the governor decides what is on top: Smart Rotate off never "
            + "rotates; a widget with relevance <= 0 is never rotated in; a rotated-in widget is held, then "
            + "cools down; each widget rotates in at most its soft/hard quota per 24 h (1/2, 3/4, 5/6 by "
            + "the diversity of its own relevance scores).")
        say("source: decompiled iOS 26.1 (unofficial: calibration only)", "  ")
        say("rotation_limits = ios: `ios` applies the limits, `none` lifts them [one of ios, none]", "    ")
        for p in RotationLimits.parameters {
            say("\(p.name) = \(p.defaultValue): \(p.summary) [\(p.kind.expectation)]", "    ")
        }
        say("missed-view reasons: \(MissedViewReason.allCases.map(\.label).joined(separator: ", "))", "  ")
        print("")
        print("  background push throttle  (scenario key under `person:`)")
        say("At most N background pushes per app in any rolling hour are delivered; a throttled push is dropped.")
        say("source: Apple, \"Pushing background updates to your App\" (no more than two or three an hour)", "  ")
        let p = PushThrottle.parameter
        say("\(p.name) = \(p.defaultValue): \(p.summary) [\(p.kind.expectation) or `none`]", "    ")
        say("refusals: \(RefusalReason.pushThrottled.label)", "  ")
        print("")
        print("  one pending request per instance")
        say("A refused and deferred request of an instance that already has one pending becomes one request, "
            + "asked at the earlier time with the stronger reason (timeline over background); a background "
            + "request that finds a background request pending is folded into it.")
        say("refusals: \(RefusalReason.coalescedIntoPending.label)", "  ")
        print("")
        for line in wrap("Every duration is at most 100000 days; the bounds of scenario keys are in "
                         + "scenarios/README.md (Bounds).", width: width, indent: "", firstIndent: "") {
            print(line)
        }
    }

    /// `added`: registered by the program running the command line, not built in.
    func describe<P>(_ d: PolicyDescriptor<P>, _ width: Int, added: Bool) {
        let notes = (added ? ["added by this program"] : []) + (d.unofficial ? ["unofficial: calibration only"] : [])
        print("  \(d.name)\(notes.isEmpty ? "" : "  (\(notes.joined(separator: "; ")))")")
        let body = String(repeating: " ", count: 6)
        for line in wrap(d.summary, width: width, indent: body, firstIndent: body) { print(line) }
        for line in wrap("source: " + d.source, width: width, indent: body + "  ", firstIndent: body) { print(line) }
        if !d.refusals.isEmpty {
            let text = "refusals: " + d.refusals.map(\.label).joined(separator: ", ")
            for line in wrap(text, width: width, indent: body + "  ", firstIndent: body) { print(line) }
        }
        for p in d.parameters {
            let text = "\(p.name) = \(p.defaultValue): \(p.summary) [\(p.kind.expectation)]"
            for line in wrap(text, width: width, indent: body + "    ", firstIndent: body) { print(line) }
        }
        print("")
    }
}
