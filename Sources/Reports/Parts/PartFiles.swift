import Foundation
import WidgetSimModel

/// The parts of a run: one pair of files per finished block in a `parts/` folder,
/// written under temporary names and renamed when complete.
///
/// - `<stem>.rows`: the block's `widget_days.csv` rows (no header), when asked for;
/// - `<stem>.counts`: the block's totals per policy pair, written last, so a block is
///   finished exactly when its counts file exists.
///
/// Counts format (text, one record per line, fields separated by single spaces):
///
///     widgetsim-counts 3
///     block <replication> <block> pairs <P> days <D> widgets <W> people <N> rows <R> rowscrc <C>
///     seconds <block seconds> <seconds of each pair>
///     person <pair> <day> <PersonCounter values in declaration order>
///     widget <pair> <day> <widget> <WidgetCounter values>
///     refusals <pair> <day> <RefusalReason counts in declaration order>
///     missed <pair> <day> <MissedViewReason counts in declaration order>
///     histogram <pair> <reloads>:<widget-days> ...
///     end <K>
///
/// where R is the number of rows in the rows file, or −1 when none was written; C the
/// CRC-32C of the rows file's bytes (8 hex digits), or `-` without one; `seconds` the
/// wall time the block took on its thread (world generation and part writing included)
/// and the time each pair's simulation took in it; and K the CRC-32C of every byte of
/// the counts file before the `end` line. A changed byte anywhere in either file makes
/// its checksum differ; a truncated file lacks its `end` line or rows.
public enum PartFiles {
    static let magic = "widgetsim-counts 3"

    public static func countsURL(_ folder: URL, _ id: BlockID) -> URL {
        folder.appendingPathComponent("\(id.stem).counts")
    }
    public static func rowsURL(_ folder: URL, _ id: BlockID) -> URL {
        folder.appendingPathComponent("\(id.stem).rows")
    }

    /// The counts text of one finished block, its checksum line included.
    static func countsText(_ id: BlockID, totals: [PairTotals], rows: Int, rowsChecksum: UInt32?,
                           seconds: Double, pairSeconds: [Double]) -> String {
        let t0 = totals[0]
        var out = magic + "\n"
        out += "block \(id.replication) \(id.block) pairs \(totals.count) days \(t0.days) widgets \(t0.widgets) people \(t0.people) rows \(rows) rowscrc \(rowsChecksum.map { CRC32C.hex($0) } ?? "-")\n"
        out += "seconds \(seconds)"
        for s in pairSeconds { out += " \(s)" }
        out += "\n"
        for (p, t) in totals.enumerated() {
            for d in 0 ..< t.days {
                out += "person \(p) \(d)"
                for c in PersonCounter.allCases { out += " \(t.value(day: d, c))" }
                out += "\n"
                for w in 0 ..< t.widgets {
                    out += "widget \(p) \(d) \(w)"
                    for c in WidgetCounter.allCases { out += " \(t.value(day: d, widget: w, c))" }
                    out += "\n"
                }
                out += "refusals \(p) \(d)"
                for r in RefusalReason.allCases { out += " \(t.value(day: d, r))" }
                out += "\nmissed \(p) \(d)"
                for r in MissedViewReason.allCases { out += " \(t.value(day: d, r))" }
                out += "\n"
            }
            out += "histogram \(p)"
            for (k, n) in t.reloadHistogram.enumerated() where n > 0 { out += " \(k):\(n)" }
            out += "\n"
        }
        return out + "end \(CRC32C.hex(CRC32C.of(out.utf8)))\n"
    }

    /// Reads a block's counts, checking its checksum and then its records against what
    /// the run expects.
    static func readCounts(
        _ url: URL, _ id: BlockID, pairs: Int, days: Int, widgets: Int, warmupDays: Int, people: Int
    ) throws -> BlockPart {
        func damaged(_ why: String) -> PartError { .damaged(url.path, why) }
        guard let data = FileManager.default.contents(atPath: url.path) else { throw PartError.missing(url.path) }
        let bytes = [UInt8](data)
        guard bytes.last == 0x0A else { throw damaged("it does not end with a line break (truncated)") }
        // The last line: `end <checksum of every byte before it>`.
        let lastStart = (bytes.dropLast().lastIndex(of: 0x0A) ?? -1) + 1
        let last = String(decoding: bytes[lastStart ..< bytes.count - 1], as: UTF8.self)
        let endFields = last.split(separator: " ")
        guard endFields.count == 2, endFields[0] == "end", let recorded = UInt32(endFields[1], radix: 16) else {
            throw damaged("its last line is not `end <checksum>` (truncated, or written by another version)")
        }
        let computed = CRC32C.of(bytes[0 ..< lastStart])
        guard computed == recorded else {
            throw damaged("its CRC-32C is \(CRC32C.hex(computed)) where its last line records \(endFields[1]): a byte before that line changed")
        }
        let text = String(decoding: bytes[0 ..< lastStart], as: UTF8.self)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        lines.removeLast()
        guard lines.first.map(String.init) == magic else { throw damaged("it does not start with `\(magic)`") }
        guard lines.count >= 3 else { throw damaged("it has no records") }
        let head = lines[1].split(separator: " ").map(String.init)
        let expected = ["block", "\(id.replication)", "\(id.block)", "pairs", "\(pairs)", "days", "\(days)",
                        "widgets", "\(widgets)", "people", "\(people)", "rows"]
        guard head.count == 15, Array(head[0 ..< 12]) == expected, let rows = Int(head[12]), head[13] == "rowscrc",
              head[14] == "-" || UInt32(head[14], radix: 16) != nil else {
            throw damaged("its header `\(lines[1])` does not match this run (expected `\(expected.joined(separator: " ")) … rowscrc …`)")
        }
        let times = lines[2].split(separator: " ")
        guard times.count == 2 + pairs, times[0] == "seconds", let blockSeconds = Double(times[1]) else {
            throw damaged("its line 3 `\(lines[2])` is not `seconds` with the block's and each of \(pairs) pairs' times")
        }
        var pairSeconds: [Double] = []
        for t in times[2...] {
            guard let v = Double(t) else { throw damaged("unreadable time in `\(lines[2])`") }
            pairSeconds.append(v)
        }
        var totals = Array(repeating: PairTotals(days: days, widgets: widgets, warmupDays: warmupDays), count: pairs)
        for p in 0 ..< pairs { totals[p].people = people }
        var seen = 0
        for line in lines[3...] {
            let f = line.split(separator: " ")
            guard let kind = f.first, f.count >= 2, let p = Int(f[1]), (0 ..< pairs).contains(p) else {
                throw damaged("unreadable line `\(line)`")
            }
            switch kind {
            case "person":
                guard f.count == 3 + PersonCounter.count, let d = Int(f[2]), (0 ..< days).contains(d) else {
                    throw damaged("unreadable line `\(line)`")
                }
                for (i, v) in f[3...].enumerated() {
                    guard let n = Int64(v) else { throw damaged("unreadable number in `\(line)`") }
                    totals[p].person[d * PersonCounter.count + i] = n
                }
                seen += 1
            case "widget":
                guard f.count == 4 + WidgetCounter.count, let d = Int(f[2]), (0 ..< days).contains(d),
                      let w = Int(f[3]), (0 ..< widgets).contains(w) else { throw damaged("unreadable line `\(line)`") }
                for (i, v) in f[4...].enumerated() {
                    guard let n = Int64(v) else { throw damaged("unreadable number in `\(line)`") }
                    totals[p].widget[(d * widgets + w) * WidgetCounter.count + i] = n
                }
                seen += 1
            case "refusals", "missed":
                let width = kind == "refusals" ? RefusalReason.count : MissedViewReason.count
                guard f.count == 3 + width, let d = Int(f[2]), (0 ..< days).contains(d) else {
                    throw damaged("unreadable line `\(line)`")
                }
                for (i, v) in f[3...].enumerated() {
                    guard let n = Int64(v) else { throw damaged("unreadable number in `\(line)`") }
                    if kind == "refusals" { totals[p].refusals[d * width + i] = n } else { totals[p].missedViews[d * width + i] = n }
                }
                seen += 1
            case "histogram":
                for item in f[2...] {
                    let kv = item.split(separator: ":")
                    guard kv.count == 2, let k = Int(kv[0]), let n = Int64(kv[1]), k >= 0, k < 1_000_000 else {
                        throw damaged("unreadable histogram in `\(line)`")
                    }
                    if k >= totals[p].reloadHistogram.count {
                        totals[p].reloadHistogram += Array(repeating: 0, count: k + 1 - totals[p].reloadHistogram.count)
                    }
                    totals[p].reloadHistogram[k] = n
                }
                seen += 1
            default:
                throw damaged("unknown record `\(kind)`")
            }
        }
        let records = pairs * (days * (3 + widgets) + 1)
        guard seen == records else {
            throw damaged("it holds \(seen) records, not \(records)")
        }
        return BlockPart(
            totals: totals, rows: rows, rowsChecksum: head[14] == "-" ? nil : UInt32(head[14], radix: 16),
            seconds: blockSeconds, pairSeconds: pairSeconds)
    }

    /// Checks a block's rows file against what its counts file records: its number of
    /// lines and its CRC-32C.
    static func checkRows(_ url: URL, of part: BlockPart) throws {
        guard let handle = try? FileHandle(forReadingFrom: url) else { throw PartError.missing(url.path) }
        defer { try? handle.close() }
        var lines = 0
        var crc = CRC32C()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            lines += chunk.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
            chunk.withUnsafeBytes { crc.update($0) }
        }
        guard lines == part.rows else {
            throw PartError.damaged(url.path, "it has \(lines) rows where its counts file records \(part.rows) (truncated)")
        }
        guard let recorded = part.rowsChecksum else {
            throw PartError.damaged(url.path, "its counts file records no checksum for it")
        }
        guard crc.value == recorded else {
            throw PartError.damaged(url.path, "its CRC-32C is \(CRC32C.hex(crc.value)) where its counts file records \(CRC32C.hex(recorded)): a byte changed")
        }
    }
}

/// One finished block as its counts file records it.
struct BlockPart {
    var totals: [PairTotals]
    /// Rows in the block's rows file, or −1 when it has none.
    var rows: Int
    var rowsChecksum: UInt32?
    /// Wall time the block took on its thread, and each pair's simulation in it.
    var seconds: Double
    var pairSeconds: [Double]
}

public enum PartError: Error, CustomStringConvertible {
    case missing(String)
    case damaged(String, String)
    public var description: String {
        switch self {
        case .missing(let path): "missing part file \(path)"
        case .damaged(let path, let why): "damaged part file \(path): \(why)"
        }
    }
}
