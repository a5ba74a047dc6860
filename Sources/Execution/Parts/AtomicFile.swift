import Foundation
#if canImport(Glibc)
import Glibc
#endif

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
        temporary = Self.temporaryName(url)
        let fd = Glibc.open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw ReportError.cannotWrite(url.path, "cannot create a file in \(url.deletingLastPathComponent().path) (\(String(cString: strerror(errno))))")
        }
        handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    private init(url: URL, temporary: URL, handle: FileHandle, durable: Bool) {
        self.url = url
        self.temporary = temporary
        self.handle = handle
        self.durable = durable
    }

    /// The file `source`, whole, to be renamed into place as `url`: linked under the
    /// temporary name (no byte copied), so that `commit` puts it in place and `abandon`
    /// leaves `source` as it was. Nil when the file system cannot link it there (another
    /// file system, say): the caller copies it instead.
    public static func linking(_ source: URL, to url: URL, durable: Bool = true) -> AtomicFile? {
        let temporary = temporaryName(url)
        unlink(temporary.path)
        guard link(source.path, temporary.path) == 0 else { return nil }
        let fd = Glibc.open(temporary.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            unlink(temporary.path)
            return nil
        }
        return AtomicFile(url: url, temporary: temporary, handle: FileHandle(fileDescriptor: fd, closeOnDealloc: true),
                          durable: durable)
    }

    static func temporaryName(_ url: URL) -> URL {
        url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).partial-\(ProcessInfo.processInfo.processIdentifier)")
    }

    public func write(_ text: String) throws {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 20 { try flush() }
    }

    /// Writes `bytes`, as `write(_: UnsafeRawBufferPointer)` does: a piece of 4 KiB or
    /// more without a copy.
    public func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
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

    /// `finishWriting` of each of `files`, their flushes to the disk at once
    /// (`OutputFolder.flushAtOnce`): what a file had buffered is written, then the durable
    /// ones are flushed together, then each is closed. Throws the first failure, in the
    /// order of `files`.
    public static func finishWriting(_ files: [AtomicFile]) throws {
        let open = files.filter { !$0.flushed }
        for f in open { try f.flush() }
        let durable = open.filter(\.durable)
        try OutputFolder.flushAtOnce(durable.map(\.handle.fileDescriptor), paths: durable.map(\.url.path))
        for f in open {
            do { try f.handle.close() } catch {
                throw ReportError.cannotWrite(f.url.path, OutputFolder.reason(error))
            }
            f.flushed = true
        }
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
    public static func write(_ text: String, to url: URL, durable: Bool = true) throws {
        try write(Array(text.utf8), to: url, durable: durable)
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
