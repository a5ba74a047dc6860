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
        print("SYSTEM RULES (applied to every policy pair)\n")
        print("  rotation governor  (scenario keys under `stack:`)")
        print("      The ranking proposes an order; the governor decides what is on top: Smart Rotate off never")
        print("      rotates; a widget with relevance <= 0 is never rotated in; a rotated-in widget is held, then")
        print("      cools down; each widget rotates in at most its soft/hard quota per 24 h (1/2, 3/4, 5/6 by")
        print("      the diversity of its own relevance scores).")
        print("      source: decompiled iOS 26.1 (unofficial: calibration only)")
        print("      rotation_limits = ios    `ios` applies the limits, `none` lifts them [one of ios, none]")
        for p in RotationLimits.parameters {
            print("      \(p.name) = \(p.defaultValue)    \(p.summary) [\(p.kind.expectation)]")
        }
        print("      missed-view reasons: \(MissedViewReason.allCases.map(\.label).joined(separator: ", "))")
        print("")
        print("  background push throttle  (scenario key under `person:`)")
        print("      At most N background pushes per app in any rolling hour are delivered; a throttled push is dropped.")
        print("      source: Apple, \"Pushing background updates to your App\" (no more than two or three an hour)")
        let p = PushThrottle.parameter
        print("      \(p.name) = \(p.defaultValue)    \(p.summary) [\(p.kind.expectation) or `none`]")
        print("      refusals: \(RefusalReason.pushThrottled.label)")
        print("")
        print("  one pending request per instance")
        print("      A refused and deferred request of an instance that already has one pending becomes one request,")
        print("      asked at the earlier time with the stronger reason (timeline over background); a background")
        print("      request that finds a background request pending is folded into it.")
        print("      refusals: \(RefusalReason.coalescedIntoPending.label)")
        print("")
    }

    func describe<P>(_ d: PolicyDescriptor<P>) {
        print("  \(d.name)\(d.unofficial ? "  (unofficial: calibration only)" : "")")
        print("      \(d.summary)")
        print("      source: \(d.source)")
        if !d.refusals.isEmpty {
            print("      refusals: \(d.refusals.map(\.label).joined(separator: ", "))")
        }
        for p in d.parameters {
            print("      \(p.name) = \(p.defaultValue)    \(p.summary) [\(p.kind.expectation)]")
        }
        print("")
    }
}
