import Dispatch
import WidgetSimModel

/// One person's bound of MODEL §4 ("What a phone can reach") under one `oracle` budget
/// with `knows: views` or `knows: rates` and one ranking, with what its plan expects and
/// what its run through the engine counted.
public struct PersonBound: Sendable, Equatable {
    /// Views of the stack's members (every member at every stack view after its addition).
    public var memberViews: Int
    public var reloadsPlanned: Int
    public var bound: Double
    public var plan: Double
    public var withoutCharges: Double
    /// Stale member views the plan's run counted.
    public var counted: Int64
    /// At each price asked for: the least expected stale member views plus the price per
    /// charged reload, and the reloads that least takes.
    public var priced: [Priced]
    /// The reloads the plan granted, per widget and local hour.
    public var plannedByHour: [[Int]]

    public struct Priced: Sendable, Equatable {
        public var value: Double
        public var reloads: Int
    }
}

/// Runs the bound person after person on worker threads: each worker holds its own
/// world builder, budget and engine, and takes the next person not yet taken. Every
/// person's answer depends on the person alone, so the answers are the same whatever
/// the threads, and come back in person order.
public enum BoundRunner {
    /// The bound of every person of every replication under `budget` and `ranking`
    /// (each answer at index replication × people + person; nil where the budget
    /// planned nothing for the person), on `threads` workers.
    /// `progress` is called, one call at a time, after each person with the number done.
    public static func run(
        _ scenario: Scenario, budget: PolicyChoice, ranking: PolicyChoice, prices: [Double], threads: Int,
        progress: @escaping @Sendable (Int) -> Void = { _ in }
    ) throws -> [PersonBound?] {
        _ = try WorldBuilder(scenario: scenario)  // fail on this thread, before any worker starts
        guard oracle(scenario, budget) != nil else {
            preconditionFailure("the bound is asked of a budget that is no `oracle` knowing views or rates")
        }
        let total = scenario.replications * scenario.people
        struct Shared {
            var next = 0
            var done = 0
            var answers: [PersonBound?]
            var failure: (any Error)?
        }
        let shared = Locked(Shared(answers: Array(repeating: nil, count: total)))
        DispatchQueue.concurrentPerform(iterations: max(1, min(threads, total))) { _ in
            do {
                let builder = try WorldBuilder(scenario: scenario)
                guard let oracle = oracle(scenario, budget),
                      let rank = scenario.policies.ranking(named: ranking.name)?.make(ranking.parameters) else { return }
                let engine = PersonEngine(scenario: scenario, budget: oracle, ranking: rank)
                while let k = shared.withLock({ st -> Int? in
                    guard st.failure == nil, st.next < total else { return nil }
                    st.next += 1
                    return st.next - 1
                }) {
                    let answer = person(k % scenario.people, replication: k / scenario.people, scenario: scenario,
                                        builder: builder, engine: engine, oracle: oracle, prices: prices)
                    let done = shared.withLock { st -> Int in
                        st.answers[k] = answer
                        st.done += 1
                        return st.done
                    }
                    progress(done)
                }
            } catch {
                shared.withLock { st in if st.failure == nil { st.failure = error } }
            }
        }
        return try shared.withLock { st in
            if let failure = st.failure { throw failure }
            return st.answers
        }
    }

    /// `budget` made afresh, when it is an `oracle` that knows views or rates.
    public static func oracle(_ s: Scenario, _ budget: PolicyChoice) -> OracleBudget? {
        guard let o = s.policies.budget(named: budget.name)?.make(budget.parameters) as? OracleBudget,
              o.knows != .changes else { return nil }
        return o
    }

    static func person(
        _ person: Int, replication: Int, scenario s: Scenario, builder: WorldBuilder, engine: PersonEngine,
        oracle: OracleBudget, prices: [Double]
    ) -> PersonBound? {
        let end = s.durationMs
        let world = builder.build(person: person, replication: replication)
        let counts = engine.run(world)
        guard let e = oracle.expected else { return nil }
        let memberViews = s.stack.members.reduce(0) { sum, w in
            let added = s.widgets[w].addedAfterMs ?? 0
            return sum + world.views.lazy.filter { $0.time >= added && $0.time < end }.count
        }
        var counted: Int64 = 0
        for d in 0 ..< counts.days {
            for w in 0 ..< counts.widgets { counted += counts[d, widget: w, .staleMemberViews] }
        }
        var byHour = Array(repeating: Array(repeating: 0, count: 24), count: s.widgets.count)
        for (w, instants) in oracle.plannedInstants.enumerated() where w < byHour.count {
            for t in instants { byHour[w][world.clock.hourAndWeekday(t).hour] += 1 }
        }
        var priced: [PersonBound.Priced] = []
        if let bound = oracle.phoneBound {
            for mu in prices {
                let p = bound.priced(mu: mu)
                priced.append(PersonBound.Priced(value: p.value, reloads: p.reloads))
            }
        }
        return PersonBound(memberViews: memberViews, reloadsPlanned: oracle.plannedReloads, bound: e.bound,
                           plan: e.plan, withoutCharges: e.withoutCharges, counted: counted, priced: priced,
                           plannedByHour: byHour)
    }
}
