import Foundation
import EngineTestSupport
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
