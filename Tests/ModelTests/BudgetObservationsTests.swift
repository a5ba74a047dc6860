import Testing
import WidgetSimKernel
import WidgetSimModel

/// `BudgetPolicy.observes`: the engine tells a policy only what it declares, so a
/// declaration must leave out nothing the policy's answers depend on.
@Suite struct BudgetObservationsTests {
    /// Feeds `events` to `policy` as the engine does, telling it only `telling`;
    /// instance 3 is added at `added` (none of its events come before). Returns every
    /// request's answer.
    func drive(_ policy: any BudgetPolicy, _ events: [BudgetEvent], added: Int64,
               telling: BudgetObservations) -> [BudgetOutcome] {
        policy.begin(instances: 4)
        var outcomes: [BudgetOutcome] = []
        var announced = false
        for event in events where event.instance != 3 || event.time >= added {
            if !announced && event.time >= added {
                announced = true
                if telling.contains(.additions) { policy.didAdd(instance: 3, at: added) }
            }
            switch event {
            case .request(let i, let reason, let t):
                let decision = policy.decide(instance: i, reason: reason, at: t)
                outcomes.append(BudgetOutcome(instance: i, reason: reason, time: t, decision: decision))
                if decision == .grant && telling.contains(.reloads) { policy.didReload(instance: i, charged: true, at: t) }
            case .view(let i, let t):
                if telling.contains(.views) { policy.didView(instance: i, at: t) }
            case .useApp(let i, let t):
                if telling.contains(.appUse) { policy.didUseApp(instance: i, at: t) }
            case .freeReload(let i, let t):
                if telling.contains(.reloads) { policy.didReload(instance: i, charged: false, at: t) }
            }
        }
        return outcomes
    }

    /// Twelve days of views, app uses, free reloads and charged requests on four
    /// instances, the fourth added on day 2.
    let events = randomBudgetEvents(seed: 20261125, instances: 4, until: 12 * bpDay, meanGap: 3 * bpMinute)
    let added = 2 * bpDay + 7 * bpHour

    /// Every built-in policy, told only what it declares, answers every request as
    /// the same policy told everything.
    @Test(arguments: BudgetPolicies.all.map(\.name))
    func declaredObservationsAreEnough(name: String) throws {
        let told = try makeBudget(name), declared = try makeBudget(name)
        let everything = drive(told, events, added: added, telling: .all)
        let asDeclared = drive(declared, events, added: added, telling: declared.observes)
        #expect(everything.count > 1000)
        let first = everything.indices.first { $0 >= asDeclared.count || everything[$0] != asDeclared[$0] }
        #expect(everything.count == asDeclared.count && first == nil,
                "\(name) declares \(declared.observes); first different answer: \(first.map { "\(everything[$0])" } ?? "-")")
    }

    /// The comparison above can fail: the policies that learn from views answer
    /// differently when they are not told of them.
    @Test(arguments: ["ios_like", "predictive", "view_weighted"])
    func viewsChangeTheAnswersOfPoliciesThatCount(name: String) throws {
        let told = try makeBudget(name), untold = try makeBudget(name)
        #expect(told.observes.contains(.views))
        let everything = drive(told, events, added: added, telling: .all)
        let noViews = drive(untold, events, added: added, telling: told.observes.subtracting(.views))
        #expect(everything.contains { !$0.granted })
        #expect(zip(everything, noViews).contains { $0 != $1 })
    }

    /// A policy that does not say what it observes is told everything.
    @Test func undeclaredMeansEverything() {
        final class Plain: BudgetPolicy {
            func begin(instances: Int) {}
            func decide(instance: Int, reason: ReloadReason, at now: SimTime) -> BudgetDecision { .grant }
            func didReload(instance: Int, charged: Bool, at now: SimTime) {}
        }
        #expect(Plain().observes == .all)
    }
}
