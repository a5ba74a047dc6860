import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// RFC 4180 rows: fields separated by commas, quoted when they hold a comma, a quote
/// or a line break (quotes doubled). Lines end with LF, which RFC 4180 readers accept
/// and every Unix tool expects. Numbers use `.` decimals whatever the locale.
public enum CSV {
    public static func field(_ s: String) -> String {
        guard needsQuotes(s) else { return s }
        var out: [UInt8] = []
        appendField(s, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether `s` holds a comma, a quote or a line break. Bytes, not characters:
    /// "\r\n" is one character, equal to neither "\r" nor "\n".
    static func needsQuotes(_ s: String) -> Bool {
        s.utf8.contains { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }
    }

    public static func row(_ fields: [String]) -> String {
        var out: [UInt8] = []
        append(fields, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `s` as a field (quoted as `field` quotes it) to `out`, as UTF-8.
    public static func appendField(_ s: String, to out: inout [UInt8]) {
        guard needsQuotes(s) else {
            out.append(contentsOf: s.utf8)
            return
        }
        out.append(0x22)
        for b in s.utf8 {
            out.append(b)
            if b == 0x22 { out.append(0x22) }
        }
        out.append(0x22)
    }

    /// Appends the row of `fields` to `out`, as UTF-8.
    public static func append(_ fields: some Sequence<String>, to out: inout [UInt8]) {
        var first = true
        for f in fields {
            if !first { out.append(0x2C) }
            first = false
            appendField(f, to: &out)
        }
        out.append(0x0A)
    }

    /// A number as reports print it: an integer column as a whole number; a double in
    /// the shortest form that reads back to the same double, always with a `.` or an
    /// exponent (`2.0`, `2.6e-05`), so readers never take it for an integer; nil
    /// (undefined) and non-finite values as an empty field. −0 prints as `0.0`.
    public static func number(_ v: Double?, type: ColumnType = .double) -> String {
        guard let v, v.isFinite else { return "" }
        if type == .integer { return String(Int64(v.rounded())) }
        return v == 0 ? "0.0" : v.description
    }

    /// The rows of an RFC 4180 text (quoted fields may hold commas, quotes and line breaks).
    public static func parse(_ text: String) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var quoted = false
        var chars = Array(text.unicodeScalars)[...]
        while let c = chars.popFirst() {
            if quoted {
                if c == "\"" {
                    if chars.first == "\"" { field.unicodeScalars.append("\""); chars.removeFirst() } else { quoted = false }
                } else {
                    field.unicodeScalars.append(c)
                }
            } else if c == "\"" {
                quoted = true
            } else if c == "," {
                row.append(field)
                field = ""
            } else if c == "\n" {
                row.append(field)
                rows.append(row)
                row = []
                field = ""
            } else if c != "\r" {
                field.unicodeScalars.append(c)
            }
        }
        if !field.isEmpty || !row.isEmpty {
            row.append(field)
            rows.append(row)
        }
        return rows
    }
}

/// A file written under a temporary name beside its destination and renamed into
/// place by `commit`: readers see the old file or the whole new one, never a part.
public final class AtomicFile: @unchecked Sendable {
    public let url: URL
    let temporary: URL
    let handle: FileHandle
    var buffer = Data()
    var finished = false
    /// Whether `finishWriting` flushes the file to the disk before it is renamed. A block's
    /// part files are not: each is checked against its checksums before it is used, and
    /// a damaged or missing one is run again (`--resume`), so a power cut costs the block
    /// at most, while flushing took about 5 ms of waiting for each.
    let durable: Bool

    public init(_ url: URL, durable: Bool = true) throws {
        self.url = url
        self.durable = durable
        temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).partial-\(ProcessInfo.processInfo.processIdentifier)")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
            throw ReportError.cannotWrite(url.path, "cannot create a file in \(url.deletingLastPathComponent().path)")
        }
        handle = try FileHandle(forWritingTo: temporary)
    }

    public func write(_ text: String) throws {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 20 { try flush() }
    }

    public func write(_ bytes: [UInt8]) throws {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 20 { try flush() }
    }

    /// Writes `bytes`. A piece of 4 KiB or more goes to the file at once, after what is
    /// buffered, rather than through the buffer: no copy of it.
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        if bytes.count < 1 << 12 {
            buffer.append(contentsOf: bytes)
            if buffer.count >= 1 << 20 { try flush() }
            return
        }
        try flush()
        guard let base = bytes.baseAddress else { return }
        try writeAll(base, count: bytes.count)
    }

    /// Writes `count` bytes from `base` straight to the file (after a `flush`).
    func writeAll(_ base: UnsafeRawPointer, count: Int) throws {
        let output = handle.fileDescriptor
        var written = 0
        while written < count {
            let w = Glibc.write(output, base + written, count - written)
            if w < 0 {
                if errno == EINTR { continue }
                throw ReportError.cannotWrite(url.path, String(cString: strerror(errno)))
            }
            written += w
        }
    }

    /// Appends the bytes of the file at `source`, read and written through one buffer
    /// of 1 MiB. (Foundation's `FileHandle.read(upToCount:)` reads a page at a time:
    /// ten thousand calls, and as many reallocations, for a widget_days.csv of 40 MB.)
    public func append(contentsOf source: URL) throws {
        try flush()
        let input = Glibc.open(source.path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw PartError.missing(source.path) }
        defer { Glibc.close(input) }
        let size = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = Glibc.read(input, buffer, size)
            if n == 0 { return }
            if n < 0 {
                if errno == EINTR { continue }
                throw ReportError.cannotWrite(url.path, String(cString: strerror(errno)))
            }
            try writeAll(buffer, count: n)
        }
    }

    func flush() throws {
        guard !buffer.isEmpty else { return }
        do { try handle.write(contentsOf: buffer) } catch {
            throw ReportError.cannotWrite(url.path, OutputFolder.reason(error))
        }
        buffer.removeAll(keepingCapacity: true)
    }

    var flushed = false

    /// Writes what is buffered and (when `durable`) flushes it to the disk, under the
    /// temporary name: after this, only the rename of `commit` is left, and it cannot run
    /// out of space.
    public func finishWriting() throws {
        guard !flushed else { return }
        try flush()
        do {
            if durable { try handle.synchronize() }
            try handle.close()
        } catch {
            throw ReportError.cannotWrite(url.path, OutputFolder.reason(error))
        }
        flushed = true
    }

    /// `finishWriting`, then renames the file into place.
    public func commit() throws {
        try finishWriting()
        finished = true
        if rename(temporary.path, url.path) != 0 {
            let why = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw ReportError.cannotWrite(url.path, why)
        }
    }

    /// Removes the temporary file; the destination is untouched.
    public func abandon() {
        guard !finished else { return }
        finished = true
        if !flushed { try? handle.close() }
        try? FileManager.default.removeItem(at: temporary)
    }

    deinit { abandon() }

    /// Writes `text` to `url` atomically.
    public static func write(_ text: String, to url: URL) throws {
        try write(Array(text.utf8), to: url)
    }

    /// Writes `bytes` to `url` atomically.
    public static func write(_ bytes: [UInt8], to url: URL, durable: Bool = true) throws {
        let file = try AtomicFile(url, durable: durable)
        do {
            try file.write(bytes)
            try file.commit()
        } catch {
            file.abandon()
            throw error
        }
    }
}

public enum ReportError: Error, CustomStringConvertible {
    case cannotWrite(String, String)
    public var description: String {
        switch self {
        case .cannotWrite(let path, let why): "cannot write \(path): \(why)"
        }
    }
}
