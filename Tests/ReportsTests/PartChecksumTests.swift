import Dispatch
import Foundation
import Testing
import WidgetSimExecution
import WidgetSimModel
import WidgetSimReports
import WidgetSimScenario

/// What a run says on the way.
final class Notices: @unchecked Sendable {
    let lock = NSLock()
    var lines: [String] = []
    func add(_ text: String) {
        lock.lock()
        lines.append(text)
        lock.unlock()
    }
}

/// Checksummed parts, and run times that stay honest across resumes and merges.
@Suite struct PartChecksumTests {
    func tiny(_ change: (inout Scenario) -> Void = { _ in }) throws -> Scenario {
        var s = try loadScenario("tiny.yaml")
        change(&s)
        return s
    }

    func options(_ folder: URL, threads: Int = 1) throws -> RunOptions {
        var o = RunOptions(outputFolder: folder, threads: threads)
        o.provenance.scenarioPath = "scenarios/tiny.yaml"
        o.provenance.scenarioText = try String(contentsOf: repositoryRoot.appendingPathComponent("scenarios/tiny.yaml"), encoding: .utf8)
        return o
    }

    /// Changes one byte near the middle of a file, as a flipped bit on a disk or in a
    /// copy would: in a text file (rows) a decimal digit to the next one, so the lines
    /// stay; in a binary counts file its lowest bit. Returns where.
    @discardableResult
    func changeOneByte(in url: URL) throws -> Int {
        var bytes = [UInt8](try Data(contentsOf: url))
        var i = bytes.count / 2
        if url.pathExtension == "counts" {
            bytes[i] ^= 1
        } else {
            while !(0x30 ... 0x38).contains(bytes[i]) { i += 1 }
            bytes[i] += 1
        }
        try Data(bytes).write(to: url)
        return i
    }

    func runJSON(_ folder: URL) throws -> [String: Any] {
        let data = try Data(contentsOf: folder.appendingPathComponent("run.json"))
        return try JSONSerialization.jsonObject(with: data) as! [String: Any]
    }

    @Test func mergeRefusesAPartWithOneByteChangedInItsMiddle() throws {
        let root = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let s = try tiny()
        let shards = try (0 ..< 2).map { k in
            let folder = root.appendingPathComponent("shard-\(k)")
            var o = try options(folder)
            o.shard = Shard(index: k, count: 2)
            _ = try RunJob.execute(s, o)
            return folder.path
        }
        func merge() throws { try mergeShards(shards, into: root.appendingPathComponent("merged")) }
        func refusal() -> String? {
            do { try merge() } catch { return "\(error)" }
            return nil
        }
        #expect(refusal() == nil)
        let parts = URL(fileURLWithPath: shards[1]).appendingPathComponent("parts")
        for (name, says) in [("r0-b1.counts", "its CRC-32C is "), ("rows-0.log", "the CRC-32C of bytes ")] {
            let url = parts.appendingPathComponent(name)
            let original = try Data(contentsOf: url)
            try changeOneByte(in: url)
            let message = refusal()
            #expect(message?.hasPrefix("damaged part file \(url.path): \(says)") == true, "\(message ?? "merged")")
            #expect(message?.contains("a byte") == true)
            try original.write(to: url)
        }
        #expect(refusal() == nil)
    }

    /// Totals of `pairs` pairs with every count different, and a histogram per pair.
    @Test func resumeRunsADamagedPartAgain() throws {
        let whole = temporaryFolder(), broken = temporaryFolder()
        defer { [whole, broken].forEach { try? FileManager.default.removeItem(at: $0) } }
        let s = try tiny { $0.replications = 2 }
        _ = try RunJob.execute(s, try options(whole))
        var interrupted = try options(broken)
        interrupted.stopAfterBlocks = 4
        _ = try RunJob.execute(s, interrupted)
        let damaged = broken.appendingPathComponent("parts/r0-b1.counts")
        try changeOneByte(in: damaged)
        let notices = Notices()
        var resumed = try options(broken)
        resumed.resume = true
        resumed.notice = { text in notices.add(text) }
        let result = try #require(finished(try RunJob.execute(s, resumed)))
        let said = notices.lines
        #expect(said.count == 1)
        #expect(said.first?.hasPrefix("damaged part file \(damaged.path): its CRC-32C is ") == true)
        #expect(said.first?.hasSuffix("running replication 0, block 1 again") == true)
        #expect(result.resumedBlocks == 3)
        #expect(try reports(in: broken) == reports(in: whole))
    }

    /// A byte changed in the rows log of an interrupted run: the block whose rows hold it
    /// is run again (its rows go to a log of the resumed run) and the reports are those
    /// of a run that was never interrupted.
    @Test func resumeRunsABlockWhoseRowsChangedAgain() throws {
        let whole = temporaryFolder(), broken = temporaryFolder()
        defer { [whole, broken].forEach { try? FileManager.default.removeItem(at: $0) } }
        let s = try tiny { $0.replications = 2 }
        _ = try RunJob.execute(s, try options(whole))
        var interrupted = try options(broken)
        interrupted.stopAfterBlocks = 5
        _ = try RunJob.execute(s, interrupted)
        let parts = broken.appendingPathComponent("parts")
        let log = parts.appendingPathComponent("rows-0.log")
        let at = try changeOneByte(in: log)
        let plan = BlockPlan(s)
        let identity = PartIdentity(try RunManifest.read(from: parts)).with(seed: s.seed)
        var hit: BlockID?
        for id in plan.all.prefix(5) {
            let part = try PartFiles.readCounts(
                PartFiles.countsURL(parts, id), id, identity: identity, pairs: s.policyPairs.count, days: s.days,
                widgets: s.widgets.count, warmupDays: s.warmupDays, people: plan.people(of: id).count)
            if let range = part.rows, range.offset <= at, at < range.end { hit = id }
        }
        let changed = try #require(hit)
        let notices = Notices()
        var resumed = try options(broken)
        resumed.resume = true
        resumed.notice = { text in notices.add(text) }
        let result = try #require(finished(try RunJob.execute(s, resumed)))
        let said = notices.lines
        #expect(said.count == 1)
        #expect(said.first?.hasPrefix("damaged part file \(log.path): the CRC-32C of bytes ") == true, "\(said)")
        #expect(said.first?.hasSuffix("running \(changed) again") == true, "\(said)")
        #expect(result.resumedBlocks == 4)
        #expect(try reports(in: broken) == reports(in: whole))
    }

    @Test func aResumedRunReportsTheComputeTimeItsPartsRecorded() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let s = try tiny { $0.replications = 2 }
        // Every block finishes, then the reports cannot be written: the parts stay.
        let blocker = folder.appendingPathComponent("run.json")
        try FileManager.default.createDirectory(at: blocker, withIntermediateDirectories: true)
        #expect(throws: (any Error).self) { try RunJob.execute(s, try options(folder)) }
        try FileManager.default.removeItem(at: blocker)
        let parts = folder.appendingPathComponent("parts")
        var recorded = 0.0
        var pairSeconds = Array(repeating: 0.0, count: s.policyPairs.count)
        let plan = BlockPlan(s)
        let identity = PartIdentity(try RunManifest.read(from: parts)).with(seed: s.seed)
        for id in plan.all {
            let part = try PartFiles.readCounts(
                PartFiles.countsURL(parts, id), id, identity: identity, pairs: s.policyPairs.count, days: s.days,
                widgets: s.widgets.count, warmupDays: s.warmupDays, people: plan.people(of: id).count)
            #expect(part.pairSeconds.count == pairSeconds.count)
            recorded += part.seconds
            for p in pairSeconds.indices { pairSeconds[p] += part.pairSeconds[p] }
        }
        #expect(recorded > 0)

        var resumed = try options(folder)
        resumed.resume = true
        let result = try #require(finished(try RunJob.execute(s, resumed)))
        #expect(result.resumedBlocks == BlockPlan(s).all.count)
        #expect(abs(result.recordedSeconds - recorded) <= 1e-9 * recorded)
        #expect(result.wallSeconds >= recorded)
        #expect(zip(result.pairSeconds, pairSeconds).allSatisfy { abs($0 - $1) <= 1e-9 * $1 } && result.pairSeconds.count == pairSeconds.count)
        let json = try runJSON(folder)
        #expect(json["resumed"] as? Bool == true)
        #expect(json["resumed_blocks"] as? Int == BlockPlan(s).all.count)
        #expect(abs((json["recorded_seconds"] as? Double ?? -1) - recorded) <= 1e-9 * recorded)
        #expect(json["events"] as? Int == Int(result.events))
        let wall = try #require(json["wall_seconds"] as? Double)
        #expect(wall >= recorded)
        let rate = try #require(json["events_per_second"] as? Double)
        #expect(abs(rate - Double(result.events) / wall) <= 1e-9 * rate)
    }

    @Test func eventsPerSecondCountsTheWholeRun() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let s = try tiny { $0.replications = 2 }
        var o = try options(folder)
        // The command started a while before the run: that time counts too.
        o.startedAt = DispatchTime.now().uptimeNanoseconds - 2_000_000_000
        let result = try #require(finished(try RunJob.execute(s, o)))
        #expect(result.resumedBlocks == 0 && result.recordedSeconds == 0)
        let loopSeconds = result.pairSeconds.reduce(0, +)
        let json = try runJSON(folder)
        #expect(json["resumed"] as? Bool == false)
        #expect(json["events"] as? Int == Int(result.events))
        let wall = try #require(json["wall_seconds"] as? Double)
        // One thread: the whole run holds the two seconds before it, and every pair's
        // simulation.
        #expect(wall >= 2 + loopSeconds)
        let rate = try #require(json["events_per_second"] as? Double)
        #expect(abs(rate - Double(result.events) / wall) <= 1e-9 * rate)
    }
}
