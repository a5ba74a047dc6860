import Foundation
import Testing
@testable import WidgetSimExecution

/// The checksum of parts, and a block's counts file read back as written.
@Suite struct PartFilesTests {
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
        let range = RowsRange(log: 3, offset: 1_234, bytes: 5_678, count: 24, checksum: 0xDEAD_BEEF)
        try AtomicFile.write(PartFiles.countsBytes(id, totals: totals, rows: range,
                                                   seconds: 1.25, pairSeconds: [0.5, 0.25, 0.125]), to: url)
        let part = try PartFiles.readCounts(url, id, pairs: 3, days: 4, widgets: 2, warmupDays: 0, people: 3)
        #expect(part.totals == totals)
        #expect(part.rows == range)
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
        // No rows: no range.
        try AtomicFile.write(PartFiles.countsBytes(id, totals: totals, rows: nil,
                                                   seconds: 0, pairSeconds: [0, 0, 0]), to: url)
        let bare = try PartFiles.readCounts(url, id, pairs: 3, days: 4, widgets: 2, warmupDays: 0, people: 3)
        #expect(bare.rows == nil)
        // A range with some fields and not others is no range: refused as damaged.
        try AtomicFile.write(PartFiles.countsBytes(id, totals: totals, rows: RowsRange(log: -1, offset: 7, bytes: 9, count: 1, checksum: 2),
                                                   seconds: 0, pairSeconds: [0, 0, 0]), to: url)
        #expect(throws: PartError.self) {
            _ = try PartFiles.readCounts(url, id, pairs: 3, days: 4, widgets: 2, warmupDays: 0, people: 3)
        }
    }

    /// A worker writes every block's counts over one array (`countsBytes(into:)`): each
    /// block's bytes are those of a fresh array, whatever the block before left in it,
    /// larger (more pairs, days and widgets) or smaller; and `AtomicFile` writes them
    /// whole, large or small, without the buffer it keeps for short pieces.
    @Test func countsWrittenOverOneArrayAreThoseOfAFreshOne() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var reused: [UInt8] = []
        var sizes: [Int] = []
        let blocks: [(id: BlockID, pairs: Int, days: Int, widgets: Int)] = [
            (BlockID(replication: 0, block: 0), 35, 14, 6), (BlockID(replication: 0, block: 1), 1, 1, 1),
            (BlockID(replication: 2, block: 7), 4, 28, 5),
        ]
        for b in blocks {
            let totals = sampleTotals(pairs: b.pairs, days: b.days, widgets: b.widgets)
            let seconds = (0 ..< b.pairs).map { Double($0) / 8 }
            let range = RowsRange(log: 0, offset: 10, bytes: 100, count: b.pairs, checksum: 7)
            let fresh = PartFiles.countsBytes(b.id, totals: totals, rows: range, seconds: 2, pairSeconds: seconds)
            PartFiles.countsBytes(b.id, totals: totals, rows: range, seconds: 2, pairSeconds: seconds, into: &reused)
            // Compared apart: a failed expectation prints both operands, megabytes each.
            let same = reused == fresh
            #expect(same, "block \(b.id): \(reused.count) bytes, fresh \(fresh.count)")
            sizes.append(fresh.count)
            let url = PartFiles.countsURL(folder, b.id)
            try AtomicFile.write(reused, to: url, durable: false)
            let written = try Data(contentsOf: url) == Data(fresh)
            #expect(written, "block \(b.id)")
            let part = try PartFiles.readCounts(url, b.id, pairs: b.pairs, days: b.days, widgets: b.widgets,
                                                warmupDays: 0, people: 3)
            #expect(part.totals == totals)
        }
        // The first block is past 4 KiB (written straight to the file), the second below.
        #expect(sizes[0] > 1 << 12 && sizes[1] < 1 << 12, "\(sizes)")
        // Pieces on either side of 4 KiB, in turn, reach the file in order.
        let url = folder.appendingPathComponent("pieces")
        let file = try AtomicFile(url, durable: false)
        var expected: [UInt8] = []
        for (k, n) in [10, 5000, 3, 4096, 4095, 70_000, 1].enumerated() {
            let piece = (0 ..< n).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ k) }
            try file.write(piece)
            expected += piece
        }
        try file.commit()
        let whole = try Data(contentsOf: url) == Data(expected)
        #expect(whole)
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
            #expect("\(error)" == "damaged part file \(url.path): it was written by another version (`widgetsim-counts 3`, where this one writes `widgetsim-counts 6`): run it again")
        }
    }
}
