import Foundation
import Testing
import WidgetSim

/// A budget that refuses every charged request (a quota of zero): with it, no charged
/// reload can happen.
final class RefuseAllBudget: BudgetPolicy {
    static let descriptor = BudgetPolicyDescriptor(
        name: "refuse_all", summary: "Refuses every charged request.", source: "tests",
        refusals: [.quotaExhausted], parameters: [], make: { _ in RefuseAllBudget() })
    func begin(instances: Int) {}
    func decide(instance: Int, reason: ReloadReason, at now: SimTime) -> BudgetDecision { .deny(because: .quotaExhausted) }
    func didReload(instance: Int, charged: Bool, at now: SimTime) {}
}

/// A ranking that puts the last member on top: `reverse` with `shift` rotates instead.
final class ReversedRanking: RankingPolicy {
    static let shift = ParameterSpec("shift", .count(0 ... 9), default: .number(0), "members to rotate by instead of reversing")
    static let descriptor = RankingPolicyDescriptor(
        name: "reversed", summary: "The person's order backwards.", source: "tests",
        parameters: [shift], make: { _ in ReversedRanking() })
    func begin(members: Int, stream: RandomStream) {}
    func rank(_ view: ViewContext, history: StackHistory, order: inout [Int]) { order.reverse() }
}

func budget(
    _ name: String, _ parameters: [ParameterSpec] = [], summary: String = "A rule.", refusals: [RefusalReason] = []
) -> BudgetPolicyDescriptor {
    BudgetPolicyDescriptor(name: name, summary: summary, source: "tests", refusals: refusals, parameters: parameters,
                           make: { _ in RefuseAllBudget() })
}

func ranking(_ name: String, _ parameters: [ParameterSpec] = []) -> RankingPolicyDescriptor {
    RankingPolicyDescriptor(name: name, summary: "A rule.", source: "tests", parameters: parameters,
                            make: { _ in ReversedRanking() })
}

/// The registration error `body` throws, as text; nil if it throws none.
func refusal(_ body: () throws -> Void) -> String? {
    do {
        try body()
        return nil
    } catch {
        return (error as? PolicyRegistrationError)?.description ?? "unexpected \(error)"
    }
}

@Suite("Policy registration")
struct RegistrationTests {
    @Test("the built-ins are registered through `register`, in listing order, and pass its checks")
    func builtInsUseRegister() throws {
        var r = PolicyRegistry()
        for d in BudgetPolicies.all { try r.register(d) }
        for d in RankingPolicies.all { try r.register(d) }
        #expect(r.budgets.map(\.name) == PolicyRegistry.builtIn.budgets.map(\.name))
        #expect(r.rankings.map(\.name) == PolicyRegistry.builtIn.rankings.map(\.name))
        #expect(PolicyRegistry.builtIn.budgets.count == BudgetPolicies.all.count)
        #expect(PolicyRegistry.builtIn.rankings.count == RankingPolicies.all.count)
        // Registering the same built-ins into a registry that has them fails: it is one
        // mechanism, and the built-in registry is made of such registrations.
        for d in BudgetPolicies.all {
            #expect(refusal { try r.register(d) } != nil, "\(d.name)")
        }
        // The built-in lookups answer from the registry.
        #expect(BudgetPolicies.named("daily_quota")?.name == "daily_quota")
        #expect(RankingPolicies.named("oracle")?.name == "oracle")
        for d in PolicyRegistry.builtIn.budgets { #expect(PolicyRegistry.builtIn.isBuiltIn(d.name, role: .budget)) }
    }

    @Test("a name that collides with a built-in is refused with a clear error")
    func collisionRefused() throws {
        var r = PolicyRegistry.builtIn
        #expect(refusal { try r.register(budget("daily_quota")) }
            == "cannot register budget policy `daily_quota`: a built-in budget policy has this name; choose another name")
        #expect(refusal { try r.register(ranking("static")) }
            == "cannot register ranking policy `static`: a built-in ranking policy has this name; choose another name")
        #expect(r.budgets.map(\.name) == PolicyRegistry.builtIn.budgets.map(\.name), "a refused policy is not added")
        // Budget and ranking names are apart: a budget may be called like a ranking.
        try r.register(budget("static"))
        #expect(r.budget(named: "static") != nil)
        #expect(!r.isBuiltIn("static", role: .budget))
        #expect(refusal { try r.register(budget("static")) }
            == "cannot register budget policy `static`: a budget policy of this name is already registered")
        #expect(throws: PolicyRegistrationError.self) {
            try PolicyRegistry.builtIn.adding(budgets: [budget("fresh")], rankings: [ranking("oracle")])
        }
    }

    @Test("registration checks names, parameter names and defaults")
    func descriptorChecks() {
        var r = PolicyRegistry.builtIn
        let count = ParameterSpec("n", .count(1 ... 5), default: .number(9), "a count")
        let cases: [(BudgetPolicyDescriptor, String)] = [
            (budget("Night"), "a policy name is a lower-case word"),
            (budget("night-saver"), "a policy name is a lower-case word"),
            (budget("night", [ParameterSpec("label", .flag, default: .flag(true), "x")]), "`policy` and `label` are keys"),
            (budget("night", [ParameterSpec("n", .flag, default: .flag(true), "x"),
                              ParameterSpec("n", .flag, default: .flag(true), "y")]), "parameter `n` is declared twice"),
            (budget("night", [count]), "its default 9 does not fit its kind: 9 is outside 1…5"),
            (budget("night", [ParameterSpec("d", .duration(minimumMs: 60_000), default: .number(3), "x")]),
             "expected a duration"),
            (budget("night", summary: ""), "the summary is empty"),
            (budget("night", refusals: [.coalescedIntoPending]),
             "refusal `coalesced` is a system rule's code, counted by the system, not by a policy"),
            (budget("night", refusals: [.minSpacing, .quotaExhausted, .minSpacing]), "refusal `min_spacing` is declared twice"),
        ]
        for (d, expected) in cases {
            let message = refusal { try r.register(d) }
            #expect(message?.contains(expected) == true, "\(message ?? "accepted")")
        }
        #expect(r.budgets.count == BudgetPolicies.all.count)
    }

    static let yaml = """
        name: custom
        seed: 3
        days: 2
        people: 4
        start: 2026-03-02
        time_zone: UTC
        widgets:
          - id: weather
            interest: {base: 0.4}
            timeline: {horizon: 1h, reload: {after: 30m}}
            content: {periodic: 1h}
          - id: news
            interest: {base: 0.3}
            timeline: {horizon: 1h, reload: {after: 20m}}
        budgets:
          - unlimited
          - refuse_all
        rankings:
          - static
          - {policy: reversed, shift: SHIFT}
        stack: {rotation_limits: none}

        """

    @Test("scenario files name registered policies; their parameters are checked with located errors")
    func scenarioValidation() throws {
        let registry = try PolicyRegistry.builtIn.adding(budgets: [RefuseAllBudget.descriptor],
                                                         rankings: [ReversedRanking.descriptor])
        let s = try ScenarioLoader.parse(yaml: Self.yaml.replacingOccurrences(of: "SHIFT", with: "2"),
                                         file: "custom.yaml", policies: registry)
        #expect(s.budgets.map(\.name) == ["unlimited", "refuse_all"])
        #expect(s.rankings[1].parameters["shift"] == .number(2))
        #expect(s.policies.ranking(named: "reversed") != nil)

        func issues(_ yaml: String, _ policies: PolicyRegistry) -> [String] {
            do {
                _ = try ScenarioLoader.parse(yaml: yaml, file: "custom.yaml", policies: policies)
                return []
            } catch {
                return error.issues.map(\.description)
            }
        }
        #expect(issues(Self.yaml.replacingOccurrences(of: "SHIFT", with: "12"), registry)
            == ["custom.yaml:20:31: rankings[1].shift: 12 is outside 0…9"])
        #expect(issues(Self.yaml.replacingOccurrences(of: "SHIFT", with: "2, shfit: 1"), registry)
            == ["custom.yaml:20:34: rankings[1].shfit: unknown parameter `shfit` of ranking policy `reversed`; did you mean `shift`?"])
        // Without the registration the names are unknown, and the message lists the added ones
        // only where they are registered.
        let unknown = issues(Self.yaml.replacingOccurrences(of: "SHIFT", with: "2"), .builtIn)
        #expect(unknown.count == 2)
        #expect(unknown.first?.hasPrefix("custom.yaml:17:5: budgets[1]: unknown budget policy `refuse_all`") == true)
    }

    @Test("registered policies run: the budget and ranking decide what happens")
    func registeredPoliciesRun() throws {
        let registry = try PolicyRegistry.builtIn.adding(budgets: [RefuseAllBudget.descriptor],
                                                         rankings: [ReversedRanking.descriptor])
        let s = try ScenarioLoader.parse(yaml: Self.yaml.replacingOccurrences(of: "SHIFT", with: "0"),
                                         file: "custom.yaml", policies: registry)
        let result = try Runner(scenario: s).run()
        func charged(_ budget: String) -> Int64 {
            result.totals[0][result.pairs.firstIndex(of: PolicyPair(budget: budget, ranking: "static"))!].sum(.charged)
        }
        #expect(charged("unlimited") > 0)
        #expect(charged("refuse_all") == 0)
        // Views at which each widget was on screen: mostly the stack's top, which is the
        // ranking's first with the rotation limits lifted.
        func views(_ ranking: String, widget w: Int) -> Int64 {
            let t = result.totals[0][result.pairs.firstIndex(of: PolicyPair(budget: "unlimited", ranking: ranking))!]
            return (0 ..< s.days).reduce(0) { $0 + t.value(day: $1, widget: w, .views) }
        }
        #expect(views("static", widget: 0) > 2 * views("static", widget: 1))
        #expect(views("reversed", widget: 1) > 2 * views("reversed", widget: 0))

        // A scenario built in code against the built-ins cannot run a policy it does not know.
        var stray = s
        stray.policies = .builtIn
        #expect(throws: UnregisteredPolicy.self) { try Runner(scenario: stray).run() }
    }
}
