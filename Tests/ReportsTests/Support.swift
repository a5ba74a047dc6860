import Foundation
import WidgetSimExecution
import WidgetSimKernel
import WidgetSimModel
import WidgetSimReports
import WidgetSimSampling
import WidgetSimScenario

/// The repository's root folder (tests run from anywhere).
let repositoryRoot: URL = {
    var url = URL(fileURLWithPath: #filePath)
    while url.path != "/" {
        url.deleteLastPathComponent()
        if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
    }
    fatalError("Package.swift not found above \(#filePath)")
}()

func loadScenario(_ name: String) throws -> Scenario {
    try ScenarioLoader.load(path: repositoryRoot.appendingPathComponent("scenarios/\(name)").path)
}

/// A widget with flat interest `base`, an hourly timeline and no content changes unless given.
func widget(
    _ id: String, base: Double, peaks: [InterestPeak] = [], reload: ReloadPolicy = .after(Milliseconds.hour),
    horizon: Int64 = Milliseconds.hour, content: ContentSpec = ContentSpec(), relevance: RelevanceSpec = .none,
    kind: String? = nil, interactive: Bool = false
) -> WidgetSpec {
    WidgetSpec(
        id: id, kind: kind ?? id, app: "app.\(kind ?? id)", interactive: interactive,
        interest: InterestSpec(base: base, peaks: peaks),
        timeline: TimelineSpec(horizonMs: horizon, reload: reload),
        content: content, relevance: relevance)
}

/// A scenario built in code: UTC, no travel, no environment changes.
func scenario(
    people: Int = 20, days: Int = 3, seed: UInt64 = 11, widgets: [WidgetSpec],
    budgets: [PolicyChoice] = [PolicyChoice(name: "unlimited")],
    rankings: [PolicyChoice] = [PolicyChoice(name: "static")],
    person: (inout PersonModel) -> Void = { _ in }
) -> Scenario {
    var p = PersonModel()
    p.environmentChangesPerDay = 0
    p.viewsPerDay = PerPersonRate(mean: 80, cv: 0)
    p.sessionsPerDay = PerPersonRate(mean: 10, cv: 0)
    person(&p)
    return Scenario(
        name: "test", seed: seed, days: days, people: people,
        start: CalendarDate(year: 2026, month: 1, day: 5), timeZone: "UTC", person: p,
        widgets: widgets, stack: StackSpec(members: Array(widgets.indices)),
        budgets: budgets, rankings: rankings)
}

func run(_ s: Scenario, threads: Int = 1) throws -> RunResult {
    try Runner(scenario: s, threads: threads).run()
}

/// Totals of the pair with these labels in replication 0.
func totals(_ r: RunResult, _ budget: String, _ ranking: String, replication: Int = 0) -> PairTotals {
    let p = r.pairs.firstIndex(of: PolicyPair(budget: budget, ranking: ranking))!
    return r.totals[replication][p]
}

/// A fresh temporary folder.
func temporaryFolder() -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("widgetsim-tests-\(UUID().uuidString)")
    try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// A budget policy that forwards to another and records what it was asked and said.
final class RecordingBudget: BudgetPolicy {
    let inner: any BudgetPolicy
    var decisions: [(instance: Int, reason: ReloadReason, time: SimTime, decision: BudgetDecision)] = []
    var reloads: [(instance: Int, charged: Bool, time: SimTime)] = []
    init(_ inner: any BudgetPolicy) { self.inner = inner }
    func begin(instances: Int) {
        decisions.removeAll()
        reloads.removeAll()
        inner.begin(instances: instances)
    }
    func decide(instance: Int, reason: ReloadReason, at now: SimTime) -> BudgetDecision {
        let d = inner.decide(instance: instance, reason: reason, at: now)
        decisions.append((instance, reason, now, d))
        return d
    }
    func didReload(instance: Int, charged: Bool, at now: SimTime) {
        reloads.append((instance, charged, now))
        inner.didReload(instance: instance, charged: charged, at: now)
    }
    func didView(instance: Int, at now: SimTime) { inner.didView(instance: instance, at: now) }
    func didUseApp(instance: Int, at now: SimTime) { inner.didUseApp(instance: instance, at: now) }
}

/// A ranking policy that forwards to another and records each view's top.
final class RecordingRanking: RankingPolicy {
    let inner: any RankingPolicy
    var tops: [(time: SimTime, top: Int)] = []
    init(_ inner: any RankingPolicy) { self.inner = inner }
    func begin(members: Int, stream: WidgetSimSampling.RandomStream) {
        tops.removeAll()
        inner.begin(members: members, stream: stream)
    }
    func rank(_ view: ViewContext, history: StackHistory, order: inout [Int]) {
        inner.rank(view, history: history, order: &order)
        tops.append((view.time, order[0]))
    }
    func observe(_ outcome: ViewOutcome, history: StackHistory) { inner.observe(outcome, history: history) }
    func observeDonation(member: Int, at time: SimTime, hour: Int, weekday: Int) {
        inner.observeDonation(member: member, at: time, hour: hour, weekday: weekday)
    }
}

/// Runs one person of `s` through an engine with the given policies.
func simulate(_ s: Scenario, person: Int, budget: any BudgetPolicy, ranking: any RankingPolicy) throws -> PersonCounts {
    let builder = try WorldBuilder(scenario: s)
    let engine = PersonEngine(scenario: s, budget: budget, ranking: ranking)
    return engine.run(builder.build(person: person, replication: 0))
}

/// The result of a run that finished, or nil.
func finished(_ outcome: RunOutcome) -> RunResult? {
    if case .finished(let r) = outcome { return r }
    return nil
}

/// Every report file of a folder (run.json, which records times and the command line,
/// left out).
func reports(in folder: URL) throws -> [String: String] {
    var out: [String: String] = [:]
    for name in ["summary.csv", "daily.csv", "comparison.csv", "reasons.csv", "widget_days.csv", "batches.csv", "study.csv", "schema.json"] {
        let url = folder.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.path) else { continue }
        out[name] = try String(contentsOf: url, encoding: .utf8)
    }
    return out
}

/// The problems found comparing a report with an older copy of it, on the columns both
/// have, in rows matched by `key` (rows of `expected` whose key `produced` lacks are
/// skipped when `skip` says so, e.g. metrics since renamed). Numbers agree within 1e-6
/// (older copies printed six decimals); `ignoring` names columns whose meaning changed.
func sharedColumnsProblems(_ produced: String, _ expected: String, key: [String], ignoring: Set<String> = [],
                           skip: ([String: String]) -> Bool = { _ in false }) -> [String] {
    func table(_ text: String) -> [[String: String]] {
        var rows = CSV.parse(text)
        guard !rows.isEmpty else { return [] }
        let header = rows.removeFirst()
        return rows.map { Dictionary(zip(header, $0), uniquingKeysWith: { a, _ in a }) }
    }
    let new = table(produced), old = table(expected)
    var byKey: [String: [String: String]] = [:]
    for row in new { byKey[key.map { row[$0] ?? "" }.joined(separator: "|")] = row }
    var problems: [String] = []
    var matched = 0
    for row in old where !skip(row) {
        let k = key.map { row[$0] ?? "" }.joined(separator: "|")
        guard let other = byKey[k] else { problems.append("no row \(k)"); continue }
        matched += 1
        for (column, value) in row where !ignoring.contains(column) {
            guard let mine = other[column], mine != value else { continue }
            if let a = Double(value), let b = Double(mine), abs(a - b) <= 1e-6 * max(1, abs(a)) { continue }
            problems.append("\(k) \(column): \(value) before, \(mine) now")
        }
    }
    if matched == 0 { problems.append("no rows compared") }
    return problems
}

/// What `widgetsim merge` does: checks the shard folders, loads their parts and writes
/// the whole run's reports into `out`.
func mergeShards(_ folders: [String], into out: URL) throws {
    let (s, first, parts) = try ShardMerge.check(folders) { m in
        var s = try ScenarioLoader.parse(yaml: m.scenarioText, file: m.scenarioPath)
        try m.overrides.apply(to: &s)
        return s
    }
    let assembled = try Assembly.load(s, from: parts, widgetDays: first.widgetDays, identity: PartIdentity(first))
    let record = RunRecord(scenario: s, manifest: first, provenance: Provenance(), threads: nil,
                           shards: folders.count, started: Date(), finished: Date(), result: assembled.result)
    try assembled.write(to: out, record: record)
}
