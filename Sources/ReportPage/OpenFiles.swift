import Dispatch
import Foundation
import WidgetSimExecution
import WidgetSimReports
#if canImport(Glibc)
import Glibc
#endif

/// Files of the page's temporary folder, kept open until they are flushed to the disk
/// together (`OutputFolder.flushAtOnce`). The folder is the page's own until it is moved
/// into place, so its files are written plainly, not under names of their own first.
final class OpenFiles: @unchecked Sendable {
    /// The files' paths, in the order they were opened.
    private(set) var paths: [String] = []
    private var descriptors: [Int32] = []
    private let flushing = DispatchGroup()
    /// The background flush's failure, read once `flushing` is done.
    private var failure: Error?

    /// Creates (or empties) the file at `url` and writes `text` into it.
    func create(_ url: URL, _ text: String) throws {
        let fd = Glibc.open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard fd >= 0 else { throw ReportError.cannotWrite(url.path, String(cString: strerror(errno))) }
        paths.append(url.path)
        descriptors.append(fd)
        let bytes = Array(text.utf8)
        let error = bytes.withUnsafeBytes { writeAll(fd, $0) }
        guard error == 0 else { throw ReportError.cannotWrite(url.path, String(cString: strerror(error))) }
    }

    /// Opens the file at `url`, written by another program (gnuplot's SVGs), for its flush.
    func open(_ url: URL) throws {
        let fd = Glibc.open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ReportError.cannotWrite(url.path, String(cString: strerror(errno))) }
        paths.append(url.path)
        descriptors.append(fd)
    }

    /// Flushes the files to the disk, all at once; throws the first failure, naming its file.
    func flush() throws {
        try OutputFolder.flushAtOnce(descriptors, paths: paths)
    }

    /// `flush` on a thread of its own, while the caller goes on; `waitForFlush` awaits it.
    func flushInBackground() {
        flushing.enter()
        Thread.detachNewThread { [self] in
            do { try flush() } catch { failure = error }
            flushing.leave()
        }
    }

    /// Waits for the flush `flushInBackground` started; throws its failure.
    func waitForFlush() throws {
        flushing.wait()
        if let failure { throw failure }
    }

    /// Closes the files, once a flush started in the background has ended.
    func close() {
        flushing.wait()
        for fd in descriptors { _ = Glibc.close(fd) }
        descriptors = []
    }
}

/// Writes all of `bytes` to `fd`; 0, or the `errno` of the write that failed.
func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
    guard var next = bytes.baseAddress else { return 0 }
    var left = bytes.count
    while left > 0 {
        let n = write(fd, next, left)
        if n < 0 {
            if errno == EINTR { continue }
            return errno
        }
        next += n
        left -= n
    }
    return 0
}
