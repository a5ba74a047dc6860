import Foundation
import Testing
@testable import WidgetSimExecution

/// The rows logs of a parts folder: blocks' rows written one after another, each read
/// back by its range and checked against what its counts file records.
@Suite struct RowsLogTests {
    /// Rows of `lines` lines of varied lengths, the last ending in a line break.
    func rows(_ lines: Int, seed: Int) -> [UInt8] {
        (0 ..< lines).flatMap { k in
            Array("run,\(seed),\(k),\(String(repeating: "x", count: (k &* 37 &+ seed) % 90))\n".utf8)
        }
    }

    func range(of bytes: [UInt8], log: RowsLog, lines: Int) throws -> RowsRange {
        let start = log.length
        try log.write(bytes)
        return RowsRange(log: log.index, offset: start, bytes: bytes.count, count: lines, checksum: CRC32C.of(bytes))
    }

    /// Blocks of one log and of another (one larger than the 1 MiB piece read at a
    /// time, one empty, one of a single line), copied in another order than written:
    /// each copy holds exactly its block's bytes.
    @Test func rangesCopiedFromTheirLogsKeepTheirBytes() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let header = Array("run_id,day\n".utf8)
        let first = try RowsLog(in: folder, index: 0, header: header)
        let second = try RowsLog(in: folder, index: 1, header: header)
        #expect(first.length == header.count)
        let blocks = [(rows(40_000, seed: 1), 40_000), (rows(0, seed: 2), 0), (rows(1, seed: 3), 1), (rows(700, seed: 4), 700)]
        var ranges: [RowsRange] = []
        for (k, (bytes, lines)) in blocks.enumerated() {
            ranges.append(try range(of: bytes, log: k % 2 == 0 ? first : second, lines: lines))
        }
        #expect(blocks[0].0.count > 1 << 20)
        #expect(RowsLog.indices(in: folder).sorted() == [0, 1] && RowsLog.firstFree(in: folder) == 2)
        for k in [3, 0, 2, 1] {
            var copy: [UInt8] = []
            try RowsLog.read(ranges[k], in: folder) { copy += $0 }
            #expect(copy == blocks[k].0, "block \(k)")
        }
        let whole = try [UInt8](Data(contentsOf: RowsLog.url(folder, 0)))
        #expect(whole == header + blocks[0].0 + blocks[2].0)
    }

    /// A changed byte, a log cut short, a range whose line count differs from its counts
    /// file's, and a missing log are each refused with the log's path and what differs.
    @Test func aDamagedLogIsRefusedByName() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = try RowsLog(in: folder, index: 4, header: Array("h\n".utf8))
        let good = try range(of: rows(300, seed: 5), log: log, lines: 300)
        let path = RowsLog.url(folder, 4).path
        func refusal(_ r: RowsRange) -> String? {
            do { try RowsLog.read(r, in: folder) } catch { return "\(error)" }
            return nil
        }
        #expect(refusal(good) == nil)
        var miscounted = good
        miscounted.count = 299
        #expect(refusal(miscounted) == "damaged part file \(path): bytes 2 to \(good.end) hold 300 rows where their counts file records 299 (truncated)")
        var missing = good
        missing.log = 5
        #expect(refusal(missing) == "missing part file \(RowsLog.url(folder, 5).path)")

        let handle = try FileHandle(forUpdating: RowsLog.url(folder, 4))
        try handle.seek(toOffset: UInt64(good.offset + 1000))
        let byte = try #require(try handle.read(upToCount: 1)).first!
        try handle.seek(toOffset: UInt64(good.offset + 1000))
        try handle.write(contentsOf: Data([byte ^ 0x01]))
        let changed = refusal(good)
        #expect(changed?.hasPrefix("damaged part file \(path): the CRC-32C of bytes 2 to \(good.end) is ") == true, "\(changed ?? "read")")
        #expect(changed?.hasSuffix("a byte changed") == true)
        try handle.truncate(atOffset: UInt64(good.end - 10))
        try handle.close()
        #expect(refusal(good) == "damaged part file \(path): it ends at byte \(good.end - 10), where a counts file records rows up to byte \(good.end) (truncated)")
    }

    /// The count of line breaks eight bytes at a time against one at a time: bytes next
    /// to 0x0A in value and with the top bit set around them, at every length and
    /// starting offset up to a few words, and on long random runs.
    @Test func newlinesAreCountedExactly() {
        var g = SystemRandomNumberGenerator()
        let alphabet: [UInt8] = [0x0A, 0x0B, 0x09, 0x8A, 0x0A, 0x00, 0xFF, 0x7F, 0x80, 0x2C, 0x0A]
        for trial in 0 ..< 400 {
            let n = trial < 200 ? trial % 40 : Int.random(in: 0 ..< 5_000, using: &g)
            let bytes = (0 ..< n + 8).map { _ in alphabet.randomElement(using: &g)! }
            let start = trial % 8
            bytes.withUnsafeBytes { raw in
                let piece = UnsafeRawBufferPointer(rebasing: raw[start ..< start + n])
                let expected = piece.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
                #expect(RowsLog.newlines(in: piece) == expected, "length \(n) from \(start)")
            }
        }
        let all = [UInt8](repeating: 0x0A, count: 1_001)
        all.withUnsafeBytes { #expect(RowsLog.newlines(in: $0) == 1_001) }
    }
}
