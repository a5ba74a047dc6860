import EngineTestSupport
import Testing
import WidgetSimKernel
import WidgetSimModel

/// `didRender` (MODEL §4): after each reload the engine tells a budget that observes
/// renders whether the new timeline shows content the old one did not.
@Suite struct RenderObservationTests {
    /// Grants everything and notes each render.
    final class Renders: BudgetPolicy {
        var renders: [(instance: Int, changed: Bool, time: SimTime)] = []
        var asked: BudgetObservations
        init(asking: BudgetObservations) { asked = asking }
        func begin(instances: Int) { renders.removeAll() }
        func decide(instance: Int, reason: ReloadReason, at now: SimTime) -> BudgetDecision { .grant }
        func didReload(instance: Int, charged: Bool, at now: SimTime) {}
        func didRender(instance: Int, changed: Bool, at now: SimTime) { renders.append((instance, changed, now)) }
        var observes: BudgetObservations { asked }
    }

    /// One widget with random changes only, asking every 20 minutes: a render says
    /// "changed" exactly when a random change of the world came after the previous
    /// reload and at or before this one; a budget that does not ask is told nothing.
    @Test func changedIsARandomChangeSinceTheLastReload() throws {
        var content = ContentSpec()
        content.randomPerDay = 30
        let s = scenario(people: 3, days: 2, widgets: [widget("news", base: 1, reload: .after(20 * Milliseconds.minute),
                                                               content: content)])
        let builder = try WorldBuilder(scenario: s)
        var changedSeen = 0, unchangedSeen = 0
        for person in 0 ..< s.people {
            let world = builder.build(person: person, replication: 0)
            let changes = world.randomChanges.filter { $0.widget == 0 }.map(\.time)
            let budget = Renders(asking: [.renders])
            _ = PersonEngine(scenario: s, budget: budget, ranking: StaticRanking()).run(world)
            #expect(budget.renders.count > 100)
            var last = SimTime.min
            for r in budget.renders {
                let expected = changes.contains { $0 > last && $0 <= r.time }
                #expect(r.changed == expected, "person \(person), reload at \(r.time)")
                if r.changed { changedSeen += 1 } else { unchangedSeen += 1 }
                last = r.time
            }
            let silent = Renders(asking: [.reloads])
            _ = PersonEngine(scenario: s, budget: silent, ranking: StaticRanking()).run(world)
            #expect(silent.renders.isEmpty)
        }
        #expect(changedSeen > 20 && unchangedSeen > 20, "\(changedSeen) changed, \(unchangedSeen) not")
    }
}
