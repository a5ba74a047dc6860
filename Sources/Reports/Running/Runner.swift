import Dispatch
import Foundation
import WidgetSimKernel
import WidgetSimModel

/// A deterministic part of a run's people: shard `index` of `count` holds the people
/// `[index·P/count, (index+1)·P/count)` (integer division), so shards in order cover
/// everyone once, whatever P and count (a shard may be empty).
public struct Shard: Sendable, Hashable, CustomStringConvertible {
    public var index: Int
    public var count: Int
    public init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }
    public func people(of total: Int) -> Range<Int> {
        (index * total / count) ..< ((index + 1) * total / count)
    }
    public var description: String { "\(index)/\(count)" }
}

/// How far a run has got, for progress display.
public struct RunProgress: Sendable {
    public var unitsDone: Int
    public var unitsTotal: Int
    public var events: Int64
    public var elapsedSeconds: Double
}

/// What a run produced: totals per replication and policy pair, and timing.
public struct RunResult: Sendable {
    public var scenario: Scenario
    public var pairs: [PolicyPair]
    public var replications: Int
    public var shard: Shard?
    /// `totals[replication][pair]`.
    public var totals: [[PairTotals]]
    /// Seconds spent simulating each pair, summed over threads (world generation excluded).
    public var pairSeconds: [Double]
    public var wallSeconds: Double
}

/// Receives one block of `widget_days.csv` rows per work unit, possibly out of order,
/// from several threads.
public protocol UnitRowSink: AnyObject, Sendable {
    func deliver(unit: Int, rows: String) throws
}

/// Runs every person of a scenario (or of one shard) under every policy pair and
/// replication, on `threads` worker threads.
///
/// Work is cut into units of `chunk` consecutive people of one replication; workers
/// take units in order. Each person's world is generated once and replayed under
/// every pair. Because every count is a whole number, the totals do not depend on
/// which thread ran which unit.
public final class Runner: @unchecked Sendable {
    public let scenario: Scenario
    public let threads: Int
    public let shard: Shard?
    public let chunk: Int
    public var rowSink: (any UnitRowSink)?
    public var rowFormatter: (@Sendable (_ replication: Int, _ person: Int, _ pair: Int, _ counts: PersonCounts) -> String)?
    public var onProgress: (@Sendable (RunProgress) -> Void)?
    /// Receives every event; forces one thread.
    public var trace: (any TraceSink)?

    public init(scenario: Scenario, threads: Int = 1, shard: Shard? = nil, chunk: Int = 16) {
        self.scenario = scenario
        self.threads = max(1, threads)
        self.shard = shard
        self.chunk = max(1, chunk)
    }

    public func run() throws -> RunResult {
        let s = scenario
        _ = try WorldBuilder(scenario: s)  // fail early, on this thread
        let pairs = s.policyPairs
        let people = (shard ?? Shard(index: 0, count: 1)).people(of: s.people)
        let chunksPerReplication = (people.count + chunk - 1) / chunk
        let units = chunksPerReplication * s.replications
        let empty = PairTotals(days: s.days, widgets: s.widgets.count, warmupDays: s.warmupDays)

        struct Shared {
            var nextUnit = 0
            var done = 0
            var events: Int64 = 0
            var totals: [[PairTotals]]
            var pairSeconds: [Double]
            var failure: (any Error)?
        }
        let shared = Locked(Shared(
            totals: Array(repeating: Array(repeating: empty, count: pairs.count), count: s.replications),
            pairSeconds: Array(repeating: 0, count: pairs.count)))
        let start = DispatchTime.now().uptimeNanoseconds
        let workers = trace == nil ? min(threads, max(1, units)) : 1
        let chunk = self.chunk

        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            do {
                let builder = try WorldBuilder(scenario: s)
                let engines = s.budgets.flatMap { b in
                    s.rankings.map { r in
                        PersonEngine(
                            scenario: s,
                            budget: BudgetPolicies.named(b.name)!.make(b.parameters),
                            ranking: RankingPolicies.named(r.name)!.make(r.parameters))
                    }
                }
                if let trace = self.trace { engines.forEach { $0.trace = trace } }
                var queue = EventQueue<PersonEvent>(reservingCapacity: 64)
                var local = Array(repeating: Array(repeating: empty, count: pairs.count), count: s.replications)
                var seconds = Array(repeating: 0.0, count: pairs.count)
                while true {
                    let unit: Int? = shared.withLock { st in
                        guard st.failure == nil, st.nextUnit < units else { return nil }
                        st.nextUnit += 1
                        return st.nextUnit - 1
                    }
                    guard let unit else { break }
                    let replication = unit / chunksPerReplication
                    let first = people.lowerBound + (unit % chunksPerReplication) * chunk
                    let last = min(first + chunk, people.upperBound)
                    var rows = ""
                    var unitEvents: Int64 = 0
                    for person in first ..< last {
                        let world = builder.build(person: person, replication: replication)
                        for (p, engine) in engines.enumerated() {
                            let t0 = DispatchTime.now().uptimeNanoseconds
                            let counts = engine.run(world, queue: &queue)
                            seconds[p] += Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
                            local[replication][p].add(counts)
                            for d in 0 ..< s.days { unitEvents += counts[d, .events] }
                            if let format = self.rowFormatter {
                                rows += format(replication, person, p, counts)
                            }
                        }
                    }
                    if let sink = self.rowSink { try sink.deliver(unit: unit, rows: rows) }
                    let progress: RunProgress = shared.withLock { st in
                        st.done += 1
                        st.events += unitEvents
                        return RunProgress(
                            unitsDone: st.done, unitsTotal: units, events: st.events,
                            elapsedSeconds: Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
                    }
                    self.onProgress?(progress)
                }
                shared.withLock { st in
                    for r in 0 ..< s.replications {
                        for p in 0 ..< pairs.count { st.totals[r][p].add(local[r][p]) }
                    }
                    for p in 0 ..< pairs.count { st.pairSeconds[p] += seconds[p] }
                }
            } catch {
                shared.withLock { st in if st.failure == nil { st.failure = error } }
            }
        }
        let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return try shared.withLock { st in
            if let failure = st.failure { throw failure }
            return RunResult(
                scenario: s, pairs: pairs, replications: s.replications, shard: shard,
                totals: st.totals, pairSeconds: st.pairSeconds, wallSeconds: wall)
        }
    }
}
