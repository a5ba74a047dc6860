import Foundation
import WidgetSimModel

/// The parts of a run in a `parts/` folder: a counts file per finished block, written
/// under a temporary name and renamed when complete, and the rows logs (`RowsLog`).
///
/// - `<stem>.counts`: the block's totals per policy pair, written last, so a block is
///   finished exactly when its counts file exists;
/// - `rows-<n>.log`: when asked for, the blocks' `widget_days.csv` rows, each block's
///   in one range of the log of the worker that ran it, as its counts file records.
///
/// Counts format (binary, written once and read back without parsing text): the line
/// `widgetsim-counts 6` and a line break, then little-endian fields:
///
///     Int64    length: every byte of the file, this field and the checksum included
///     UInt64×3 the run's identity (`PartIdentity`): seed, scenario fingerprint,
///              overrides fingerprint
///     UInt8×16 the version of WidgetSim that wrote it, in UTF-8, padded with zeros
///     Int64 ×12 point, replication, block, pairs P, days D, widgets W, people N, then
///              the rows' range (`RowsRange`): rows R, their checksum C, log L, offset O,
///              bytes B (all five −1 when the block wrote no rows)
///     Float64  block seconds, then the seconds of each of the P pairs
///     per pair: Int64 × D·|PersonCounter|, × D·W·|WidgetCounter|, × D·|RefusalReason|,
///              × D·|MissedViewReason| (each in declaration order, day by day), then
///              Int64 H and the H counts of the reload histogram
///     UInt32   the CRC-32C of every byte before it
///
/// where R is the number of rows the block wrote, C the CRC-32C of their bytes, which
/// are bytes O to O + B of log L; `seconds` the wall time the block took on its thread
/// (world generation and part writing included) and the time each pair's simulation
/// took in it. A changed byte anywhere in a counts file or a block's range of its log
/// makes a checksum differ; a truncated file is shorter than its recorded length. A part of another run
/// (another seed, scenario file, options or version, or another block's file under
/// this one's name) has a valid checksum but another identity, and is refused as a
/// stranger (`PartError.foreign`), never merged.
public enum PartFiles {
    static let magic = Array("widgetsim-counts 6\n".utf8)
    static let versionBytes = 16

    public static func countsURL(_ folder: URL, _ id: BlockID) -> URL {
        folder.appendingPathComponent("\(id.stem).counts")
    }

    /// The counts file of one finished block, its length and checksum included.
    static func countsBytes(_ id: BlockID, identity: PartIdentity = PartIdentity(), totals: [PairTotals], rows: RowsRange?,
                            seconds: Double, pairSeconds: [Double]) -> [UInt8] {
        var bytes: [UInt8] = []
        countsBytes(id, identity: identity, totals: totals, rows: rows, seconds: seconds, pairSeconds: pairSeconds,
                    into: &bytes)
        return bytes
    }

    /// The counts file of one finished block, written over `bytes`, whose storage is kept:
    /// a worker that passes the same array block after block allocates it once, where a
    /// new array of a few MB for every block is memory the process maps and faults in
    /// afresh (and unmaps, which stops every thread of the process a moment).
    static func countsBytes(_ id: BlockID, identity: PartIdentity = PartIdentity(), totals: [PairTotals], rows: RowsRange?,
                            seconds: Double, pairSeconds: [Double], into bytes: inout [UInt8]) {
        let t0 = totals[0]
        var out = CountsWriter(bytes: bytes)
        bytes = []
        defer { bytes = out.bytes }
        out.bytes.removeAll(keepingCapacity: true)
        var size = magic.count + 8 * (17 + pairSeconds.count) + versionBytes + 4
        for t in totals {
            size += 8 * (t.person.count + t.widget.count + t.refusals.count + t.missedViews.count + 1
                         + t.reloadHistogram.count + t.refusalsByWidget.count + t.missedByWidget.count)
        }
        out.bytes.reserveCapacity(size)
        out.bytes += magic
        out.int(0)  // the length, set below
        for v in [identity.seed, identity.scenario, identity.overrides] { out.int(Int64(bitPattern: v)) }
        out.bytes += identity.versionField
        for v in [id.point, id.replication, id.block, totals.count, t0.days, t0.widgets, t0.people] { out.int(Int64(v)) }
        if let r = rows {
            for v in [r.count, Int(r.checksum), r.log, r.offset, r.bytes] { out.int(Int64(v)) }
        } else {
            for _ in 0 ..< 5 { out.int(-1) }
        }
        out.double(seconds)
        for s in pairSeconds { out.double(s) }
        for t in totals {
            out.ints(t.person)
            out.ints(t.widget)
            out.ints(t.refusals)
            out.ints(t.missedViews)
            out.ints(t.refusalsByWidget)
            out.ints(t.missedByWidget)
            out.int(Int64(t.reloadHistogram.count))
            out.ints(t.reloadHistogram)
        }
        let length = Int64(out.bytes.count + 4).littleEndian
        withUnsafeBytes(of: length) { raw in
            for (i, b) in raw.enumerated() { out.bytes[magic.count + i] = b }
        }
        let crc = CRC32C.of(out.bytes)
        withUnsafeBytes(of: crc.littleEndian) { out.bytes.append(contentsOf: $0) }
    }

    /// Reads a block's counts, checking its length and checksum, then its identity and
    /// block (a part of another run is `PartError.foreign`), then its fields against what
    /// the run expects.
    public static func readCounts(
        _ url: URL, _ id: BlockID, identity: PartIdentity = PartIdentity(), pairs: Int, days: Int, widgets: Int,
        warmupDays: Int, people: Int
    ) throws -> BlockPart {
        func damaged(_ why: String) -> PartError { .damaged(url.path, why) }
        guard let data = FileManager.default.contents(atPath: url.path) else { throw PartError.missing(url.path) }
        let bytes = [UInt8](data)
        guard bytes.starts(with: magic) else {
            let first = bytes.prefix(64).firstIndex(of: 0x0A).map { String(decoding: bytes[..<$0], as: UTF8.self) } ?? ""
            if first.hasPrefix("widgetsim-counts ") {
                throw damaged("it was written by another version (`\(first)`, where this one writes `widgetsim-counts 6`): run it again")
            }
            throw damaged("it does not start with `widgetsim-counts 6`")
        }
        var read = CountsReader(bytes: bytes, at: magic.count)
        guard bytes.count >= magic.count + 8 + 4, let recorded = read.int() else {
            throw damaged("it has \(bytes.count) bytes, too few for its length and checksum (truncated)")
        }
        guard Int64(bytes.count) == recorded else {
            throw damaged(Int64(bytes.count) < recorded
                ? "it has \(bytes.count) bytes where it records \(recorded) (truncated)"
                : "it has \(bytes.count) bytes where it records \(recorded)")
        }
        let body = bytes.count - 4
        let stored = bytes[body...].withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self)) }
        let computed = CRC32C.of(bytes[..<body])
        guard computed == stored else {
            throw damaged("its CRC-32C is \(CRC32C.hex(computed)) where its last four bytes record \(CRC32C.hex(stored)): a byte before them changed")
        }
        read.end = body
        var marks: [UInt64] = []
        for _ in 0 ..< 3 {
            guard let v = read.int() else { throw damaged("its header is cut short") }
            marks.append(UInt64(bitPattern: v))
        }
        guard let version = read.take(versionBytes) else { throw damaged("its header is cut short") }
        let found = PartIdentity(seed: marks[0], scenario: marks[1], overrides: marks[2],
                                 version: String(decoding: version.prefix { $0 != 0 }, as: UTF8.self))
        if let why = found.difference(from: identity) { throw PartError.foreign(url.path, why) }
        var head: [Int64] = []
        for _ in 0 ..< 12 {
            guard let v = read.int() else { throw damaged("its header is cut short") }
            head.append(v)
        }
        let block = BlockID(point: Int(clamping: head[0]), replication: Int(clamping: head[1]), block: Int(clamping: head[2]))
        guard block == id else {
            throw PartError.foreign(url.path, "it holds \(block), where its name is that of \(id)")
        }
        head.removeFirst()
        let expected: [Int64] = [id.replication, id.block, pairs, days, widgets, people].map { Int64($0) }
        let range = head[6 ..< 11]
        let rowsReadable = range.allSatisfy { $0 == -1 } || (range.allSatisfy { $0 >= 0 } && head[7] <= Int64(UInt32.max))
        guard Array(head[0 ..< 6]) == expected, rowsReadable else {
            let names = ["replication", "block", "pairs", "days", "widgets", "people"]
            let found = zip(names, head).map { "\($0) \($1)" }.joined(separator: ", ")
            let wanted = zip(names, expected).map { "\($0) \($1)" }.joined(separator: ", ")
            throw damaged("its header (\(found)) does not match this run (\(wanted))")
        }
        guard let blockSeconds = read.double() else { throw damaged("its times are cut short") }
        var pairSeconds: [Double] = []
        for _ in 0 ..< pairs {
            guard let v = read.double() else { throw damaged("its times are cut short") }
            pairSeconds.append(v)
        }
        var totals = Array(repeating: PairTotals(days: days, widgets: widgets, warmupDays: warmupDays), count: pairs)
        for p in 0 ..< pairs {
            totals[p].people = people
            guard read.ints(into: &totals[p].person), read.ints(into: &totals[p].widget),
                  read.ints(into: &totals[p].refusals), read.ints(into: &totals[p].missedViews),
                  read.ints(into: &totals[p].refusalsByWidget), read.ints(into: &totals[p].missedByWidget),
                  let h = read.int(), h >= 0, h < 1_000_000 else {
                throw damaged("the counts of pair \(p) are cut short or unreadable")
            }
            totals[p].reloadHistogram = Array(repeating: 0, count: Int(h))
            guard read.ints(into: &totals[p].reloadHistogram) else {
                throw damaged("the reload histogram of pair \(p) is cut short")
            }
        }
        guard read.offset == body else {
            throw damaged("it has \(body - read.offset) bytes after its last pair's counts")
        }
        let rows = head[6] < 0 ? nil : RowsRange(log: Int(head[8]), offset: Int(head[9]), bytes: Int(head[10]),
                                                count: Int(head[6]), checksum: UInt32(head[7]))
        return BlockPart(totals: totals, rows: rows, seconds: blockSeconds, pairSeconds: pairSeconds)
    }

    /// Checks a block's rows against what its counts file records (`RowsLog.read`): the
    /// block must have rows in `folder`'s logs.
    public static func checkRows(in folder: URL, of part: BlockPart, counts: URL) throws {
        guard let rows = part.rows else { throw PartError.damaged(counts.path, "it records no widget_days rows") }
        try RowsLog.read(rows, in: folder)
    }
}

/// One finished block as its counts file records it.
public struct BlockPart {
    public var totals: [PairTotals]
    /// Where its widget_days rows are; nil when it wrote none.
    public var rows: RowsRange?
    /// Wall time the block took on its thread, and each pair's simulation in it.
    public var seconds: Double
    public var pairSeconds: [Double]
}

public enum PartError: Error, CustomStringConvertible {
    case missing(String)
    case damaged(String, String)
    /// Whole and unchanged, but written by another run (or for another block).
    case foreign(String, String)
    public var description: String {
        switch self {
        case .missing(let path): "missing part file \(path)"
        case .damaged(let path, let why): "damaged part file \(path): \(why)"
        case .foreign(let path, let why): "part file \(path) belongs to another run: \(why)"
        }
    }
}

/// The run a part belongs to, as its header records it: the seed of its point, the
/// fingerprint of the scenario file's text, the fingerprint of the command line's
/// overrides, and the version of WidgetSim. Two runs whose parts may be combined have
/// the same identity; a part of any other run is refused by name.
public struct PartIdentity: Sendable, Equatable {
    public var seed: UInt64 = 0
    /// FNV-1a (64-bit) of the scenario file's text.
    public var scenario: UInt64 = 0
    /// FNV-1a (64-bit) of the overrides, encoded as JSON with sorted keys.
    public var overrides: UInt64 = 0
    public var version = WidgetSimVersion.current

    public init() {}

    public init(seed: UInt64, scenario: UInt64, overrides: UInt64, version: String) {
        self.seed = seed
        self.scenario = scenario
        self.overrides = overrides
        self.version = version
    }

    /// The identity of the parts of the run `manifest` describes (the seed set per point).
    public init(_ manifest: RunManifest) {
        scenario = UInt64(manifest.scenarioHash, radix: 16) ?? 0
        overrides = Self.fingerprint(manifest.overrides)
        version = manifest.version
    }

    public static func fingerprint(_ overrides: RunOverrides) -> UInt64 {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = (try? encoder.encode(overrides)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        return UInt64(Fingerprint.fnv1a64(json), radix: 16) ?? 0
    }

    /// The run's id: FNV-1a (64-bit), as 16 hex digits, of the scenario's and the
    /// overrides' fingerprints and the version, the three fields every part of the run
    /// carries. Runs of the same scenario text, command-line changes and version share
    /// it, whatever the seed's point, the threads or the shards; it is the `run_id`
    /// column of every CSV file, `run_id` in `run.json`, and the end of the folder name
    /// of a run without `--out`.
    /// Written as two groups of eight hex digits (`3f9a0c1d-2e4b5a69`), so that no
    /// reader takes it for a number.
    public var runID: String {
        let hash = Fingerprint.fnv1a64(Self.hex(scenario) + " " + Self.hex(overrides) + " " + version)
        return hash.prefix(8) + "-" + hash.suffix(8)
    }

    /// The run id of a run of `scenarioText` with `overrides`, by this version.
    public static func runID(scenarioText: String, overrides: RunOverrides) -> String {
        PartIdentity(seed: 0, scenario: UInt64(Fingerprint.fnv1a64(scenarioText), radix: 16) ?? 0,
                     overrides: fingerprint(overrides), version: WidgetSimVersion.current).runID
    }

    /// The same identity with the seed of one point.
    public func with(seed: UInt64) -> PartIdentity {
        var copy = self
        copy.seed = seed
        return copy
    }

    /// The version, as the 16 bytes of its header field.
    var versionField: [UInt8] {
        let text = Array(version.utf8.prefix(PartFiles.versionBytes))
        return text + Array(repeating: 0, count: PartFiles.versionBytes - text.count)
    }

    /// What differs from `expected`, in words, or nil when nothing does.
    func difference(from expected: PartIdentity) -> String? {
        if version != expected.version {
            return "it was written by WidgetSim \(version), this run is \(expected.version)"
        }
        if seed != expected.seed {
            return "it was written with seed \(seed), this run has seed \(expected.seed)"
        }
        if scenario != expected.scenario {
            return "it was written from another scenario file (fingerprint \(Self.hex(scenario)), this run's is \(Self.hex(expected.scenario)))"
        }
        if overrides != expected.overrides {
            return "it was written with other command-line options (--people, --days, --set, --sweep, …)"
        }
        return nil
    }

    static func hex(_ v: UInt64) -> String {
        let text = String(v, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }
}

/// Appends little-endian fields to a counts file's bytes.
struct CountsWriter {
    var bytes: [UInt8] = []

    mutating func int(_ v: Int64) {
        withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func double(_ v: Double) { int(Int64(bitPattern: v.bitPattern)) }

    /// Appends `values` as little-endian fields: one copy of their memory on a
    /// little-endian machine.
    mutating func ints(_ values: [Int64]) {
        #if _endian(little)
        values.withUnsafeBytes { bytes.append(contentsOf: $0) }
        #else
        bytes.reserveCapacity(bytes.count + 8 * values.count)
        for v in values { int(v) }
        #endif
    }
}

/// Reads little-endian fields of a counts file's bytes, up to `end`; nil past it.
struct CountsReader {
    let bytes: [UInt8]
    var offset: Int
    var end: Int

    init(bytes: [UInt8], at offset: Int) {
        self.bytes = bytes
        self.offset = offset
        end = bytes.count
    }

    mutating func int() -> Int64? {
        guard offset + 8 <= end else { return nil }
        let v = bytes.withUnsafeBytes { Int64(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: Int64.self)) }
        offset += 8
        return v
    }

    mutating func double() -> Double? { int().map { Double(bitPattern: UInt64(bitPattern: $0)) } }

    /// The next `count` bytes; nil past the end.
    mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
        guard offset + count <= end else { return nil }
        defer { offset += count }
        return bytes[offset ..< offset + count]
    }

    /// Fills `values` (its count is how many are read); false when the bytes end first.
    mutating func ints(into values: inout [Int64]) -> Bool {
        guard offset + 8 * values.count <= end else { return false }
        bytes.withUnsafeBytes { raw in
            for i in values.indices {
                values[i] = Int64(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 8 * i, as: Int64.self))
            }
        }
        offset += 8 * values.count
        return true
    }
}
