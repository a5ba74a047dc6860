import Dispatch
import Foundation
import Testing
import WidgetSimModel
@testable import WidgetSimReports
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

    @Test func crc32cMatchesItsCheckValueAndTheBitwiseDefinition() {
        #expect(CRC32C.of(Array("123456789".utf8)) == 0xE306_9283)
        #expect(CRC32C.of([UInt8]()) == 0)
        // The eight-bytes-a-step tables against the polynomial, one bit at a time, for
        // every length around the step and every split of the input into two updates.
        func bitwise(_ bytes: [UInt8]) -> UInt32 {
            var c: UInt32 = 0xFFFF_FFFF
            for b in bytes {
                c ^= UInt32(b)
                for _ in 0 ..< 8 { c = c & 1 != 0 ? (c >> 1) ^ 0x82F6_3B78 : c >> 1 }
            }
            return ~c
        }
        let data = (0 ..< 40).map { UInt8(truncatingIfNeeded: $0 &* 151 &+ 7) }
        for n in 0 ... data.count {
            let bytes = Array(data[0 ..< n])
            #expect(CRC32C.of(bytes) == bitwise(bytes), "length \(n)")
            for cut in 0 ... n {
                var c = CRC32C()
                c.update(bytes[0 ..< cut])
                c.update(bytes[cut...])
                #expect(c.value == bitwise(bytes), "length \(n) cut at \(cut)")
            }
        }
    }

    @Test func crc32cInstructionMatchesTheTables() {
        #if arch(x86_64)
        #expect(CRC32C.hardware)
        #endif
        var g = SystemRandomNumberGenerator()
        func tables(_ bytes: [UInt8]) -> UInt32 {
            var c = CRC32C()
            bytes.withUnsafeBytes { c.updateFromTables($0) }
            return c.value
        }
        #expect(tables(Array("123456789".utf8)) == 0xE306_9283)
        #expect(CRC32C.of(Array("123456789".utf8)) == 0xE306_9283)
        var lengths = Array(0 ... 70) + [255, 256, 257, 1 << 12, (1 << 16) + 3]
        lengths += (0 ..< 20).map { _ in Int.random(in: 0 ..< 300_000, using: &g) }
        for n in lengths {
            let bytes = (0 ..< n).map { _ in UInt8.random(in: 0 ... 255, using: &g) }
            let expected = tables(bytes)
            #expect(CRC32C.of(bytes) == expected, "length \(n)")
            // Split at random points, and started from another offset than the buffer's.
            let cut = Int.random(in: 0 ... n, using: &g)
            var c = CRC32C()
            c.update(bytes[0 ..< cut])
            c.update(bytes[cut...])
            #expect(c.value == expected, "length \(n) cut at \(cut)")
            if n > 1 {
                var d = CRC32C()
                var e = CRC32C()
                bytes.withUnsafeBytes { raw in
                    d.update(UnsafeRawBufferPointer(rebasing: raw[1...]))
                    e.updateFromTables(UnsafeRawBufferPointer(rebasing: raw[1...]))
                }
                #expect(d.value == e.value, "length \(n) from byte 1")
            }
        }
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
        for name in ["r0-b1.counts", "r0-b1.rows"] {
            let url = parts.appendingPathComponent(name)
            let original = try Data(contentsOf: url)
            try changeOneByte(in: url)
            let message = refusal()
            #expect(message?.hasPrefix("damaged part file \(url.path): its CRC-32C is ") == true, "\(message ?? "merged")")
            #expect(message?.contains("a byte") == true)
            try original.write(to: url)
        }
        #expect(refusal() == nil)
    }

    /// Totals of `pairs` pairs with every count different, and a histogram per pair.
    func sampleTotals(pairs: Int, days: Int, widgets: Int) -> [PairTotals] {
        var next: Int64 = 1
        func fill(_ a: inout [Int64]) { for i in a.indices { a[i] = next; next = next &* 6_364_136_223_846_793_005 &+ 1 } }
        return (0 ..< pairs).map { p in
            var t = PairTotals(days: days, widgets: widgets, warmupDays: 0)
            t.people = 3
            fill(&t.person); fill(&t.widget); fill(&t.refusals); fill(&t.missedViews)
            t.reloadHistogram = (0 ... p + 2).map { Int64($0 * 7 + p) }
            return t
        }
    }

    @Test func aCountsFileReadsBackAsWritten() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let id = BlockID(replication: 1, block: 5)
        let totals = sampleTotals(pairs: 3, days: 4, widgets: 2)
        let url = PartFiles.countsURL(folder, id)
        try AtomicFile.write(PartFiles.countsBytes(id, totals: totals, rows: 24, rowsChecksum: 0xDEAD_BEEF,
                                                   seconds: 1.25, pairSeconds: [0.5, 0.25, 0.125]), to: url)
        let part = try PartFiles.readCounts(url, id, pairs: 3, days: 4, widgets: 2, warmupDays: 0, people: 3)
        #expect(part.totals == totals)
        #expect(part.rows == 24 && part.rowsChecksum == 0xDEAD_BEEF)
        #expect(part.seconds == 1.25 && part.pairSeconds == [0.5, 0.25, 0.125])
        // The same bytes for another block, or another number of people, are refused by name.
        #expect(throws: PartError.self) {
            _ = try PartFiles.readCounts(url, BlockID(replication: 1, block: 6), pairs: 3, days: 4, widgets: 2,
                                         warmupDays: 0, people: 3)
        }
        do {
            _ = try PartFiles.readCounts(url, id, pairs: 3, days: 4, widgets: 2, warmupDays: 0, people: 4)
            Issue.record("a part of 3 people read as one of 4")
        } catch {
            #expect("\(error)".contains("its header (replication 1, block 5, pairs 3, days 4, widgets 2, people 3) does not match this run (replication 1, block 5, pairs 3, days 4, widgets 2, people 4)"))
        }
        // No rows file: rows −1 and no checksum.
        try AtomicFile.write(PartFiles.countsBytes(id, totals: totals, rows: -1, rowsChecksum: nil,
                                                   seconds: 0, pairSeconds: [0, 0, 0]), to: url)
        let bare = try PartFiles.readCounts(url, id, pairs: 3, days: 4, widgets: 2, warmupDays: 0, people: 3)
        #expect(bare.rows == -1 && bare.rowsChecksum == nil)
    }

    @Test func aCountsFileOfAnEarlierFormatIsRefusedAsAnotherVersions() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let id = BlockID(replication: 0, block: 0)
        let url = PartFiles.countsURL(folder, id)
        try "widgetsim-counts 3\nblock 0 0 pairs 1 days 1 widgets 1 people 1 rows -1 rowscrc -\n".write(
            to: url, atomically: true, encoding: .utf8)
        do {
            _ = try PartFiles.readCounts(url, id, pairs: 1, days: 1, widgets: 1, warmupDays: 0, people: 1)
            Issue.record("a format-3 counts file was read")
        } catch {
            #expect("\(error)" == "damaged part file \(url.path): it was written by another version (`widgetsim-counts 3`, where this one writes `widgetsim-counts 5`): run it again")
        }
    }

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
