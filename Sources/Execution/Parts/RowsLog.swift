import CWriteback
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where a finished block's `widget_days.csv` rows are: `bytes` bytes from `offset` of
/// the rows log numbered `log` in its parts folder (`RowsLog`), `count` rows whose
/// CRC-32C is `checksum`.
public struct RowsRange: Sendable, Equatable {
    public var log: Int
    public var offset: Int
    public var bytes: Int
    public var count: Int
    public var checksum: UInt32

    public init(log: Int, offset: Int, bytes: Int, count: Int, checksum: UInt32) {
        self.log = log
        self.offset = offset
        self.bytes = bytes
        self.count = count
        self.checksum = checksum
    }

    /// Where the range ends in its log.
    public var end: Int { offset + bytes }
}

/// The `widget_days.csv` rows of the blocks one worker thread runs, one block after the
/// other in one file of the parts folder, `rows-<n>.log`, after the file's header. A
/// block's counts file records its range (`RowsRange`); bytes no counts file points to
/// (a block stopped half way) are never read.
///
/// A run on one thread writes every block, in report order, into one log: that log,
/// header first, is `widget_days.csv`, and the report takes it with a link where blocks
/// in files of their own had to be copied into it (`Assembly`). Each process's workers
/// open logs of their own, numbered after those already in the folder, so a resumed run
/// adds to none of an earlier run's.
public final class RowsLog {
    public let index: Int
    public let url: URL
    private let descriptor: Int32
    /// Bytes written so far: where the next block's rows begin.
    public private(set) var length = 0

    /// Creates log `index` in `folder`, which must not exist yet, and writes `header`.
    public init(in folder: URL, index: Int, header: [UInt8]) throws {
        self.index = index
        url = Self.url(folder, index)
        descriptor = Glibc.open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw ReportError.cannotWrite(url.path, String(cString: strerror(errno))) }
        try header.withUnsafeBytes { try write($0) }
    }

    deinit { Glibc.close(descriptor) }

    public static func url(_ folder: URL, _ index: Int) -> URL {
        folder.appendingPathComponent("rows-\(index).log")
    }

    /// The numbers of the logs in `folder`.
    public static func indices(in folder: URL) -> [Int] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).compactMap { name in
            guard name.hasPrefix("rows-"), name.hasSuffix(".log") else { return nil }
            return Int(name.dropFirst("rows-".count).dropLast(".log".count))
        }
    }

    /// The number for the first log a run opens in `folder`: one past the highest there.
    public static func firstFree(in folder: URL) -> Int { (indices(in: folder).max() ?? -1) + 1 }

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard var base = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let w = Glibc.write(descriptor, base, left)
            if w < 0 {
                if errno == EINTR { continue }
                throw ReportError.cannotWrite(url.path, String(cString: strerror(errno)))
            }
            base += w
            left -= w
            length += w
        }
    }

    public func write(_ bytes: [UInt8]) throws { try bytes.withUnsafeBytes { try write($0) } }

    /// Bytes whose writing to the disk has been started (`startWriteback`).
    private var writtenBack = 0

    /// Starts writing what was written since the last call to the disk, without waiting
    /// for it: called as each block ends, so that the flush of the report that this log
    /// becomes (or is copied into) waits only for the last block's rows. A failure here
    /// only leaves the writing to that flush.
    public func startWriteback() {
        _ = widgetsim_start_writeback(descriptor, Int64(writtenBack), Int64(length - writtenBack))
        writtenBack = length
    }

    /// Copies `range`'s bytes of log `range.log` in `folder` to `out` as they are read,
    /// in pieces of at most 1 MiB, counting its lines and its CRC-32C on the way: throws
    /// `PartError` when the log is missing or shorter than the range, or when either
    /// differs from what the range records (before `out` sees the piece that shows it,
    /// for a short log; after, for the rest: the caller abandons what it wrote).
    public static func read(_ range: RowsRange, in folder: URL, into out: ((UnsafeRawBufferPointer) throws -> Void)? = nil) throws {
        let path = url(folder, range.log).path
        let input = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw PartError.missing(path) }
        defer { Glibc.close(input) }
        let size = min(1 << 20, max(range.bytes, 1))
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        defer { buffer.deallocate() }
        var crc = CRC32C()
        var lines = 0
        var done = 0
        while done < range.bytes {
            let n = pread(input, buffer, min(size, range.bytes - done), off_t(range.offset + done))
            if n < 0 {
                if errno == EINTR { continue }
                throw PartError.damaged(path, String(cString: strerror(errno)))
            }
            if n == 0 {
                throw PartError.damaged(path, """
                    it ends at byte \(range.offset + done), where a counts file records rows up to byte \(range.end) (truncated)
                    """)
            }
            let piece = UnsafeRawBufferPointer(start: buffer, count: n)
            crc.update(piece)
            lines += newlines(in: piece)
            try out?(piece)
            done += n
        }
        guard lines == range.count else {
            throw PartError.damaged(path, """
                bytes \(range.offset) to \(range.end) hold \(lines) rows where their counts file records \(range.count) (truncated)
                """)
        }
        guard crc.value == range.checksum else {
            throw PartError.damaged(path, """
                the CRC-32C of bytes \(range.offset) to \(range.end) is \(CRC32C.hex(crc.value)) where their counts file \
                records \(CRC32C.hex(range.checksum)): a byte changed
                """)
        }
    }

    /// The line breaks (0x0A) in `bytes`, eight bytes at a step: in x ^ 0x0A…0A a line
    /// break is a zero byte, and a byte b is zero exactly when neither b's low seven bits
    /// plus 0x7F nor b itself sets its top bit.
    static func newlines(in bytes: UnsafeRawBufferPointer) -> Int {
        let low: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        var count = 0
        var i = 0
        while i + 8 <= bytes.count {
            let x = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)) ^ 0x0A0A_0A0A_0A0A_0A0A
            count += (~(((x & low) &+ low) | x) & ~low).nonzeroBitCount
            i += 8
        }
        while i < bytes.count {
            if bytes[i] == 0x0A { count += 1 }
            i += 1
        }
        return count
    }
}
