import Dispatch
import Foundation
import WidgetSimKernel
import WidgetSimModel

/// Shard `index` of `count` (0-based): a deterministic part of a run's people, made
/// of whole blocks (see `BlockPlan.blocks(ofShard:)`).
public struct Shard: Sendable, Hashable, Codable, CustomStringConvertible {
    public var index: Int
    public var count: Int
    public init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }
    public var description: String { "\(index)/\(count)" }
}

/// How far a run has got, for progress display.
public struct RunProgress: Sendable {
    public var unitsDone: Int
    public var unitsTotal: Int
    public var events: Int64
    public var elapsedSeconds: Double
    /// The study point of the block just finished (its number) and how many points the
    /// study has; 1 for a plain run.
    public var point = 0
    public var points = 1

    public init(unitsDone: Int, unitsTotal: Int, events: Int64, elapsedSeconds: Double, point: Int = 0, points: Int = 1) {
        self.unitsDone = unitsDone
        self.unitsTotal = unitsTotal
        self.events = events
        self.elapsedSeconds = elapsedSeconds
        self.point = point
        self.points = points
    }
}

/// What a run produced: totals per replication and policy pair, and timing.
public struct RunResult: Sendable {
    /// The scenario run.
    public var scenario: Scenario
    /// Every budget × ranking pair, budget-major, as `summary.csv` lists them.
    public var pairs: [PolicyPair]
    /// Replications run.
    public var replications: Int
    /// `totals[replication][pair]`.
    public var totals: [[PairTotals]]
    /// Seconds spent simulating each pair, summed over threads (world generation excluded).
    /// Each pair is timed as it runs: a pair joined from others' sides of the run
    /// (`PersonEngine.sharesSides`) with its joining alone, the sides with the pairs that
    /// ran them in full.
    public var pairSeconds: [Double]
    /// The run's wall time: from the start of the command to its reports, plus the
    /// compute time recorded by the blocks that earlier runs finished (`recordedSeconds`).
    public var wallSeconds: Double
    /// Blocks finished by earlier runs (a `--resume`, or the shards of a merge).
    public var resumedBlocks = 0
    /// The wall time those blocks took on their threads, as their parts record it.
    public var recordedSeconds = 0.0
    /// With one replication, each block's totals (`blockTotals[block][pair]`): the
    /// independent groups of people that intervals are computed over. Empty otherwise.
    public var blockTotals: [[PairTotals]] = []

    /// A result of `totals` for `pairs` of `scenario`; its times and resumed blocks are
    /// set apart.
    public init(
        scenario: Scenario, pairs: [PolicyPair], replications: Int, totals: [[PairTotals]], pairSeconds: [Double],
        wallSeconds: Double, blockTotals: [[PairTotals]] = []
    ) {
        self.scenario = scenario
        self.pairs = pairs
        self.replications = replications
        self.totals = totals
        self.pairSeconds = pairSeconds
        self.wallSeconds = wallSeconds
        self.blockTotals = blockTotals
    }

    /// Events simulated on every day, warm-up included, over every pair and replication:
    /// the run's cost, as `widgetsim run` reports it.
    public var events: Int64 {
        totals.joined().reduce(0) { $0 + $1.sum(.events, days: 0 ..< $1.days) }
    }

    /// Person-days simulated, over every pair and replication.
    public var personDays: Int {
        totals.joined().reduce(0) { $0 + $1.people * $1.days }
    }
}

/// Runs blocks of a scenario's people under every policy pair, on `threads` worker
/// threads. A worker takes one block at a time (replication, then block order) and
/// simulates its people one by one: each person's world is generated once and
/// replayed under every pair. When every pair can, each budget's side and each
/// ranking's side of a person's run is run once, and the other pairs are joined from
/// them (`PersonEngine.sharesSides`). Because every count is a whole number, the
/// totals do not depend on which thread ran which block.
///
/// With a `partsFolder`, each finished block is written there (see `PartFiles`) before
/// it counts as done: an interrupted run loses only the blocks in progress.
public final class Runner: @unchecked Sendable {
    /// The study run: its points' scenarios (one for a plain run); their registries
    /// make the policies.
    public let study: Study
    /// The scenario run (the first point of a study).
    public var scenario: Scenario { study.first }
    /// Worker threads (at least 1).
    public let threads: Int
    /// The run's people split into blocks, the units threads take and parts record.
    public let plan: BlockPlan
    /// Where finished blocks are written, if anywhere.
    public var partsFolder: URL?
    /// The rows each block writes beside its counts (needs `partsFolder`): for each study
    /// point's index, the format of its rows (`widget_days.csv`'s, which the report
    /// layer formats and later joins). Nil: blocks write no rows.
    public var partRows: ((_ point: Int) -> any PartRowFormat)?
    /// The first bytes of every rows log (`RowsLog`): the header of the file the rows
    /// are joined into.
    public var partRowsHeader: [UInt8] = []
    /// Where the rows of each block this runner finished are (`partRows`).
    public var rowsRanges: [BlockID: RowsRange] { ranges.withLock { $0 } }
    private let ranges = Locked([BlockID: RowsRange]())
    /// The run written into each part's header (the seed is each point's own).
    public var partIdentity = PartIdentity()
    /// Called as blocks finish, from worker threads.
    public var onProgress: (@Sendable (RunProgress) -> Void)?
    /// Receives every event; forces one thread.
    public var trace: (any TraceSink)?
    /// Stop taking new blocks once this many have finished (simulates an interruption).
    public var stopAfterBlocks: Int?
    /// Asked before each person: true abandons the blocks in progress (they are not
    /// written) and takes no new one.
    public var shouldStop: (@Sendable () -> Bool)?

    /// A runner for `scenario` on `threads` worker threads.
    public convenience init(scenario: Scenario, threads: Int = 1) {
        self.init(study: Study(single: scenario), threads: threads)
    }

    /// A runner for every point of `study` on `threads` worker threads.
    public init(study: Study, threads: Int = 1) {
        self.study = study
        self.threads = max(1, threads)
        plan = BlockPlan(study)
    }

    /// Runs every block of the scenario (of the first point of a study).
    public func run() throws -> RunResult { try run(blocks: plan.all.filter { $0.point == 0 }) }

    /// Runs `blocks` of the first point; the result's totals hold only them.
    public func run(blocks: [BlockID]) throws -> RunResult { try runPoints(blocks: blocks)[0] }

    /// Runs `blocks`; one result per study point, whose totals hold only those blocks.
    public func runPoints(blocks: [BlockID]) throws -> [RunResult] {
        let points = study.points.map(\.scenario)
        for s in points {  // fail early, on this thread
            _ = try WorldBuilder(scenario: s)
            try UnregisteredPolicy.check(s)
        }
        let pairs = points.map(\.policyPairs)
        let empty = points.map { PairTotals(days: $0.days, widgets: $0.widgets.count, warmupDays: $0.warmupDays) }

        struct Shared {
            var next = 0
            var done = 0
            var events: Int64 = 0
            var totals: [[[PairTotals]]]
            var pairSeconds: [[Double]]
            /// Per point: with one replication, each block's totals; empty otherwise.
            var blockTotals: [[[PairTotals]]]
            var failure: (any Error)?
        }
        let shared = Locked(Shared(
            totals: points.indices.map { k in
                Array(repeating: Array(repeating: empty[k], count: pairs[k].count), count: points[k].replications)
            },
            pairSeconds: pairs.map { Array(repeating: 0, count: $0.count) },
            blockTotals: points.indices.map { k in
                points[k].replications == 1
                    ? Array(repeating: Array(repeating: empty[k], count: pairs[k].count), count: plan.points[k].count) : []
            }))
        let start = DispatchTime.now().uptimeNanoseconds
        let workers = trace == nil ? min(threads, max(1, blocks.count)) : 1
        let formatters = partRows.map { format in points.indices.map(format) }
        // Each worker's rows go to a log of its own, numbered after the folder's logs.
        let firstLog = partsFolder.map(RowsLog.firstFree) ?? 0

        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            do {
                var log: RowsLog?
                // The point whose world builder and engines this worker holds.
                var current = -1
                var builder: WorldBuilder?
                var engines: [PersonEngine] = []
                // The pairs in the order they run (those run in full first), and for each
                // pair joined from two others' sides, those two (`PersonEngine.sharesSides`);
                // each pair's counts of the person being run.
                var runOrder: [Int] = []
                var joinedFrom: [(budget: Int, stack: Int)?] = []
                var personCounts: [PersonCounts?] = []
                var seconds = pairs.map { Array(repeating: 0.0, count: $0.count) }
                // The block's widget_days rows not yet written.
                let rowBytes = ByteBuffer(capacity: 1 << 19)
                // The bytes of the block's counts file, their storage kept block after block.
                var countsBytes: [UInt8] = []
                while true {
                    let next: BlockID? = shared.withLock { st in
                        guard st.failure == nil, st.next < blocks.count, self.shouldStop?() != true else { return nil }
                        if let limit = self.stopAfterBlocks, st.next >= limit { return nil }
                        st.next += 1
                        return blocks[st.next - 1]
                    }
                    guard let id = next else { break }
                    let blockStart = DispatchTime.now().uptimeNanoseconds
                    let k = id.point
                    let s = points[k]
                    if k != current {
                        builder = try WorldBuilder(scenario: s)
                        engines = s.budgets.flatMap { b in
                            s.rankings.map { r in
                                PersonEngine(
                                    scenario: s,
                                    budget: s.policies.budget(named: b.name)!.make(b.parameters),
                                    ranking: s.policies.ranking(named: r.name)!.make(r.parameters))
                            }
                        }
                        if let trace = self.trace {
                            for (engine, pair) in zip(engines, pairs[k]) {
                                engine.trace = trace
                                engine.tracePair = pair
                            }
                        }
                        joinedFrom = Self.joins(budgets: s.budgets.count, rankings: s.rankings.count,
                                                sharing: engines.allSatisfy(\.sharesSides))
                        for p in engines.indices {
                            engines[p].recordsViews = joinedFrom.contains { $0?.budget == p || $0?.stack == p }
                        }
                        runOrder = engines.indices.filter { joinedFrom[$0] == nil } + engines.indices.filter { joinedFrom[$0] != nil }
                        personCounts = Array(repeating: nil, count: engines.count)
                        current = k
                    }
                    (self.trace as? any RunTrace)?.replication = id.replication
                    if self.study.isStudy { (self.trace as? any RunTrace)?.point = self.study.points[k].number }
                    var totals = Array(repeating: empty[k], count: pairs[k].count)
                    for engine in engines { engine.resetReasonsByWidget() }
                    var blockSeconds = Array(repeating: 0.0, count: pairs[k].count)
                    var rowsFile: RowsLog?
                    var rowsChecksum = CRC32C()
                    var rows = 0
                    if formatters != nil, let folder = self.partsFolder {
                        if log == nil { log = try RowsLog(in: folder, index: firstLog + worker, header: self.partRowsHeader) }
                        rowsFile = log
                    }
                    let rowsStart = rowsFile?.length ?? 0
                    var blockEvents: Int64 = 0
                    var stopped = false
                    for person in self.plan.people(of: id) {
                        if self.shouldStop?() == true {
                            stopped = true
                            break
                        }
                        if let file = rowsFile, rowBytes.count >= 1 << 18 {
                            rowsChecksum.update(rowBytes.bytes)
                            try file.write(rowBytes.bytes)
                            rowBytes.removeAll()
                        }
                        let world = builder!.build(person: person, replication: id.replication)
                        for p in runOrder {
                            let t0 = DispatchTime.now().uptimeNanoseconds
                            if let (b, r) = joinedFrom[p] {
                                personCounts[p] = engines[p].run(world, budgetFrom: engines[b], counts: personCounts[b]!,
                                                                 stackFrom: engines[r], counts: personCounts[r]!)
                            } else {
                                personCounts[p] = engines[p].run(world)
                            }
                            blockSeconds[p] += Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
                        }
                        // Counted and written in pair order, whatever order they ran in.
                        for p in engines.indices {
                            let counts = personCounts[p]!
                            try totals[p].add(counts, person: person, replication: id.replication,
                                              pair: pairs[k][p], widgets: s.widgets)
                            for d in 0 ..< s.days { blockEvents += counts[d, .events] }
                            if rowsFile != nil {
                                formatters![k].append(replication: id.replication, person: person, pair: p, counts, to: rowBytes)
                                rows += counts.days * counts.widgets
                            }
                        }
                    }
                    if stopped {
                        rowBytes.removeAll()
                        break
                    }
                    let reasons = engines.map { $0.takeReasonsByWidget() }
                    for p in engines.indices {
                        if let (b, r) = joinedFrom[p] {
                            totals[p].addReasonsByWidget(PersonEngine.joinedReasons(budget: reasons[b], stack: reasons[r], own: reasons[p]))
                        } else {
                            totals[p].addReasonsByWidget(reasons[p])
                        }
                    }
                    for p in 0 ..< pairs[k].count { seconds[k][p] += blockSeconds[p] }
                    if let file = rowsFile {
                        rowsChecksum.update(rowBytes.bytes)
                        try file.write(rowBytes.bytes)
                        rowBytes.removeAll()
                    }
                    if let folder = self.partsFolder {
                        let range = rowsFile.map {
                            RowsRange(log: $0.index, offset: rowsStart, bytes: $0.length - rowsStart, count: rows,
                                      checksum: rowsChecksum.value)
                        }
                        let wall = Double(DispatchTime.now().uptimeNanoseconds - blockStart) / 1e9
                        PartFiles.countsBytes(
                            id, identity: self.partIdentity.with(seed: s.seed), totals: totals, rows: range,
                            seconds: wall, pairSeconds: blockSeconds, into: &countsBytes)
                        try AtomicFile.write(countsBytes, to: PartFiles.countsURL(folder, id), durable: false)
                        if let range { self.ranges.withLock { $0[id] = range } }
                        rowsFile?.startWriteback()
                    }
                    let progress: RunProgress = shared.withLock { st in
                        for p in 0 ..< pairs[k].count { st.totals[k][id.replication][p].add(totals[p]) }
                        if s.replications == 1 { st.blockTotals[k][id.block] = totals }
                        st.done += 1
                        st.events += blockEvents
                        return RunProgress(
                            unitsDone: st.done, unitsTotal: blocks.count, events: st.events,
                            elapsedSeconds: Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9,
                            point: self.study.points[k].number, points: self.study.totalPoints)
                    }
                    self.onProgress?(progress)
                }
                shared.withLock { st in
                    for k in pairs.indices {
                        for p in 0 ..< pairs[k].count { st.pairSeconds[k][p] += seconds[k][p] }
                    }
                }
            } catch {
                shared.withLock { st in if st.failure == nil { st.failure = error } }
            }
        }
        let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return try shared.withLock { st in
            if let failure = st.failure { throw failure }
            return points.indices.map { k in
                RunResult(
                    scenario: points[k], pairs: pairs[k], replications: points[k].replications,
                    totals: st.totals[k], pairSeconds: st.pairSeconds[k], wallSeconds: wall, blockTotals: st.blockTotals[k])
            }
        }
    }
}

extension Runner {
    /// For each pair of `budgets` × `rankings` (budget-major), the two pairs it is joined
    /// from, or nil for a pair run in full: with `sharing`, max(`budgets`, `rankings`)
    /// pairs run in full, the i-th of them budget i mod `budgets` with ranking
    /// i mod `rankings`, so that between them they run every budget's side and every
    /// ranking's; every other pair is joined from the pair of its budget and the pair of
    /// its ranking among them. Without `sharing`, or where every pair runs in full
    /// anyway, none is joined.
    static func joins(budgets: Int, rankings: Int, sharing: Bool) -> [(budget: Int, stack: Int)?] {
        var joined: [(budget: Int, stack: Int)?] = Array(repeating: nil, count: budgets * rankings)
        let count = max(budgets, rankings)
        guard sharing && count < budgets * rankings else { return joined }
        let full = (0 ..< count).map { i in (i % budgets) * rankings + i % rankings }
        for p in joined.indices where !full.contains(p) {
            joined[p] = (full.first { $0 / rankings == p / rankings }!, full.first { $0 % rankings == p % rankings }!)
        }
        return joined
    }
}

/// A scenario names a policy its registry does not hold (a scenario built in code
/// rather than read against that registry).
public struct UnregisteredPolicy: Error, Sendable, CustomStringConvertible {
    /// Whether the unknown name is a budget's or a ranking's.
    public var role: PolicyRole
    /// The name the scenario uses.
    public var name: String
    /// The message: the role, the name, and where the registry lives.
    public var description: String {
        "\(role) policy `\(name)` is not registered in the scenario's policy registry (`Scenario.policies`)"
    }

    static func check(_ s: Scenario) throws(UnregisteredPolicy) {
        for b in s.budgets where s.policies.budget(named: b.name) == nil {
            throw UnregisteredPolicy(role: .budget, name: b.name)
        }
        for r in s.rankings where s.policies.ranking(named: r.name) == nil {
            throw UnregisteredPolicy(role: .ranking, name: r.name)
        }
    }
}
