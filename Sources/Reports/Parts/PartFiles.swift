import Foundation
import WidgetSimModel

/// The parts of a run: one pair of files per finished block in a `parts/` folder,
/// written under temporary names and renamed when complete.
///
/// - `<stem>.rows`: the block's `widget_days.csv` rows (no header), when asked for;
/// - `<stem>.counts`: the block's totals per policy pair, written last, so a block is
///   finished exactly when its counts file exists. Its last line, `end`, and the row
///   count it records detect a truncated file.
///
/// Counts format (text, one record per line, fields separated by single spaces):
///
///     widgetsim-counts 2
///     block <replication> <block> pairs <P> days <D> widgets <W> people <N> rows <R>
///     person <pair> <day> <PersonCounter values in declaration order>
///     widget <pair> <day> <widget> <WidgetCounter values>
///     refusals <pair> <day> <RefusalReason counts in declaration order>
///     missed <pair> <day> <MissedViewReason counts in declaration order>
///     histogram <pair> <reloads>:<widget-days> ...
///     end
///
/// where R is the number of rows in the rows file, or −1 when none was written.
public enum PartFiles {
    static let magic = "widgetsim-counts 2"

    public static func countsURL(_ folder: URL, _ id: BlockID) -> URL {
        folder.appendingPathComponent("\(id.stem).counts")
    }
    public static func rowsURL(_ folder: URL, _ id: BlockID) -> URL {
        folder.appendingPathComponent("\(id.stem).rows")
    }

    /// The counts text of one finished block.
    static func countsText(_ id: BlockID, totals: [PairTotals], rows: Int) -> String {
        let t0 = totals[0]
        var out = magic + "\n"
        out += "block \(id.replication) \(id.block) pairs \(totals.count) days \(t0.days) widgets \(t0.widgets) people \(t0.people) rows \(rows)\n"
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
        return out + "end\n"
    }

    /// Reads a block's counts, checking them against what the run expects.
    static func readCounts(
        _ url: URL, _ id: BlockID, pairs: Int, days: Int, widgets: Int, warmupDays: Int, people: Int
    ) throws -> (totals: [PairTotals], rows: Int) {
        func damaged(_ why: String) -> PartError { .damaged(url.path, why) }
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { throw PartError.missing(url.path) }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.last == "" else { throw damaged("it does not end with a line break (truncated)") }
        lines.removeLast()
        guard lines.first.map(String.init) == magic else { throw damaged("it does not start with `\(magic)`") }
        guard lines.last == "end" else { throw damaged("its last line is not `end` (truncated)") }
        let head = lines[1].split(separator: " ").map(String.init)
        let expected = ["block", "\(id.replication)", "\(id.block)", "pairs", "\(pairs)", "days", "\(days)",
                        "widgets", "\(widgets)", "people", "\(people)", "rows"]
        guard head.count == 13, Array(head[0 ..< 12]) == expected, let rows = Int(head[12]) else {
            throw damaged("its header `\(lines[1])` does not match this run (expected `\(expected.joined(separator: " ")) …`)")
        }
        var totals = Array(repeating: PairTotals(days: days, widgets: widgets, warmupDays: warmupDays), count: pairs)
        for p in 0 ..< pairs { totals[p].people = people }
        var seen = 0
        for line in lines[2 ..< lines.count - 1] {
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
        return (totals, rows)
    }

    /// Counts the lines of a rows file (checks it against the counts file's record).
    static func countLines(_ url: URL) throws -> Int {
        guard let handle = try? FileHandle(forReadingFrom: url) else { throw PartError.missing(url.path) }
        defer { try? handle.close() }
        var lines = 0
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            lines += chunk.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        }
        return lines
    }
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
