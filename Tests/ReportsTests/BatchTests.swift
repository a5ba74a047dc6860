import Foundation
import Testing
import WidgetSimExecution
import WidgetSimModel
import WidgetSimReports
import WidgetSimScenario

/// Replications, warm-up, resume, shards and merge (issues of batch comparison and scale).
@Suite struct BatchTests {
    func tiny(_ change: (inout Scenario) -> Void = { _ in }) throws -> Scenario {
        var s = try loadScenario("tiny.yaml")
        change(&s)
        return s
    }

    func options(_ folder: URL, threads: Int = 1, scenarioText: String? = nil) throws -> RunOptions {
        var o = RunOptions(outputFolder: folder, threads: threads)
        o.provenance.scenarioPath = "scenarios/tiny.yaml"
        o.provenance.scenarioText = try scenarioText
            ?? String(contentsOf: repositoryRoot.appendingPathComponent("scenarios/tiny.yaml"), encoding: .utf8)
        return o
    }

    /// Parses a report CSV (no quoted fields in these) into rows of named fields.
    func table(_ text: String) -> [[String: String]] {
        let lines = text.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        return lines.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(lines[0], $0)) }
    }

    @Test func warmUpMetricsEqualTheDailyFiguresAfterIt() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let s = try tiny { $0.days = 4; $0.warmupDays = 2; $0.replications = 2 }
        _ = try RunJob.execute(s, try options(folder))
        let summary = table(try String(contentsOf: folder.appendingPathComponent("summary.csv"), encoding: .utf8))
        let daily = table(try String(contentsOf: folder.appendingPathComponent("daily.csv"), encoding: .utf8))
        let counts = Metrics.all.filter { $0.kind == .count && $0.name != "reloads_per_widget_day_p95" }
        #expect(summary.count == 2 * s.policyPairs.count)
        for row in summary {
            let days = daily.filter {
                $0["budget"] == row["budget"] && $0["ranking"] == row["ranking"] && $0["replication"] == row["replication"]
            }
            #expect(days.count == 4)
            #expect(days.filter { $0["warmup"] == "1" }.map { $0["day"]! } == ["0", "1"])
            for m in counts {
                let after = days.filter { $0["warmup"] == "0" }.reduce(0) { $0 + Int64($1[m.name]!)! }
                #expect(Int64(row[m.name]!)! == after, "\(m.name)")
            }
            // Policies run during the warm-up: its days have events and views.
            #expect(days.filter { $0["warmup"] == "1" }.allSatisfy { Int64($0["events"]!)! > 0 })
        }
    }

    @Test func resumeAfterAnInterruptionGivesTheSameBytes() throws {
        let whole = temporaryFolder(), broken = temporaryFolder()
        defer { [whole, broken].forEach { try? FileManager.default.removeItem(at: $0) } }
        let s = try tiny { $0.replications = 3 }
        _ = try RunJob.execute(s, try options(whole, threads: 2))
        var interrupted = try options(broken)
        interrupted.stopAfterBlocks = 4
        guard case .interrupted(let done, let total) = try RunJob.execute(s, interrupted) else {
            Issue.record("the run should have stopped early")
            return
        }
        #expect(done == 4 && total == 9)
        #expect(!FileManager.default.fileExists(atPath: broken.appendingPathComponent("summary.csv").path))
        var resumed = try options(broken, threads: 2)
        resumed.resume = true
        #expect(finished(try RunJob.execute(s, resumed)) != nil)
        #expect(try reports(in: broken) == reports(in: whole))
        #expect(!FileManager.default.fileExists(atPath: broken.appendingPathComponent("parts").path))
    }

    @Test func resumeRefusesPartsOfAnotherRun() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var first = try options(folder)
        first.stopAfterBlocks = 1
        _ = try RunJob.execute(try tiny(), first)
        var other = try options(folder)
        other.resume = true
        other.provenance.overrides.seed = 99
        #expect(throws: RunError.self) { try RunJob.execute(try tiny { $0.seed = 99 }, other) }
    }

    func shardRun(_ s: Scenario, shards n: Int, into root: URL, overrides: RunOverrides = RunOverrides()) throws -> [String] {
        try shardResults(s, shards: n, into: root, overrides: overrides).map(\.folder)
    }

    /// Runs the `n` shards of `s`; each shard's folder and the result of what it simulated.
    func shardResults(
        _ s: Scenario, shards n: Int, into root: URL, overrides: RunOverrides = RunOverrides()
    ) throws -> [(folder: String, result: RunResult?)] {
        try (0 ..< n).map { k in
            let folder = root.appendingPathComponent("shard-\(k)")
            var o = try options(folder)
            o.shard = Shard(index: k, count: n)
            o.provenance.overrides = overrides
            let outcome = try RunJob.execute(s, o)
            guard case .shardWritten(_, let result) = outcome else {
                Issue.record("shard \(k)/\(n) did not write its parts: \(outcome)")
                return (folder.path, nil)
            }
            return (folder.path, result)
        }
    }

    @Test(arguments: [1, 2, 3, 5, 8])
    func shardsMergeIntoTheUnshardedReports(shards n: Int) throws {
        // tiny has 3 people: 5 and 8 shards leave some shards empty.
        let root = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let s = try tiny { $0.replications = 2 }
        var overrides = RunOverrides()
        overrides.replications = 2
        var o = try options(root.appendingPathComponent("single"))
        o.provenance.overrides = overrides
        guard case .finished(let whole) = try RunJob.execute(s, o) else {
            Issue.record("the unsharded run did not finish")
            return
        }
        let shards = try shardResults(s, shards: n, into: root, overrides: overrides)
        // Each shard reports the cost of its own people only: together, the whole run's.
        let costs = shards.compactMap(\.result)
        #expect(costs.count == n)
        #expect(costs.reduce(0) { $0 + $1.events } == whole.events)
        #expect(costs.reduce(0) { $0 + $1.personDays } == whole.personDays)
        let plan = BlockPlan(s)
        for (k, c) in costs.enumerated() {
            let people = plan.blocks(ofShard: Shard(index: k, count: n)).reduce(0) { $0 + plan.people(of: $1.block).count }
            #expect(c.personDays == people * s.days * s.policyPairs.count, "shard \(k)/\(n)")
        }
        let folders = shards.map(\.folder)
        try mergeShards(folders.reversed(), into: root.appendingPathComponent("merged"))
        let single = try reports(in: root.appendingPathComponent("single"))
        #expect(single.count == 6)  // summary, daily, comparison, reasons, widget_days, schema
        #expect(try reports(in: root.appendingPathComponent("merged")) == single)
    }

    @Test func mergeRefusesShardsThatDoNotBelongTogether() throws {
        let root = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let s = try tiny()
        let a = try shardRun(s, shards: 3, into: root.appendingPathComponent("a"))
        func refusal(_ folders: [String]) -> String? {
            do {
                try mergeShards(folders, into: root.appendingPathComponent("out"))
                return nil
            } catch {
                return "\(error)"
            }
        }
        #expect(refusal(a) == nil, "the shards as written merge")
        // Missing and duplicated shards.
        #expect(refusal([a[0], a[2]]) == "missing shard 1/3")
        #expect(refusal([a[0], a[1], a[1], a[2]]) == "shard 1/3 is given twice: \(a[1]) and \(a[1])")
        // Another seed (another run's options).
        var seed = RunOverrides()
        seed.seed = 8
        let b = try shardRun(try tiny { $0.seed = 8 }, shards: 3, into: root.appendingPathComponent("b"), overrides: seed)
        #expect(refusal([a[0], b[1], a[2]])?.contains("was run with other options") == true)
        // Another scenario file.
        let c = try (0 ..< 3).map { k in
            let folder = root.appendingPathComponent("c/shard-\(k)")
            var o = try options(folder, scenarioText: "name: other\n")
            o.shard = Shard(index: k, count: 3)
            _ = try RunJob.execute(s, o)
            return folder.path
        }
        #expect(refusal([a[0], a[1], c[2]])?.contains("is a shard of another scenario") == true)
        // Another version (a manifest as that version writes it, checksum and all).
        let manifestURL = URL(fileURLWithPath: a[2]).appendingPathComponent("parts/manifest.json")
        let original = try String(contentsOf: manifestURL, encoding: .utf8)
        var older = try RunManifest.read(from: manifestURL.deletingLastPathComponent())
        older.version = "0.0.1"
        try older.write(to: manifestURL.deletingLastPathComponent())
        #expect(refusal(a)?.contains("was written by WidgetSim 0.0.1") == true)
        try original.write(to: manifestURL, atomically: true, encoding: .utf8)
        #expect(refusal(a) == nil)
        // A truncated rows log and a truncated counts file.
        let parts = URL(fileURLWithPath: a[2]).appendingPathComponent("parts")
        let rows = parts.appendingPathComponent("rows-0.log")
        let rowsText = try String(contentsOf: rows, encoding: .utf8)
        try String(rowsText.prefix(rowsText.count / 2)).write(to: rows, atomically: true, encoding: .utf8)
        #expect(refusal(a)?.contains("(truncated)") == true)
        try rowsText.write(to: rows, atomically: true, encoding: .utf8)
        let counts = parts.appendingPathComponent("r0-b2.counts")
        let countsBytes = try Data(contentsOf: counts)
        try countsBytes.prefix(countsBytes.count - 10).write(to: counts)
        #expect(refusal(a)?.contains("truncated") == true)
        try FileManager.default.removeItem(at: counts)
        #expect(refusal(a)?.contains("missing part file") == true)
    }
}
