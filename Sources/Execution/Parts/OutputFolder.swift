import Foundation
import WidgetSimModel

/// A run's output folder as the run finds it, and the rules that keep results safe in
/// it: one run at a time (an advisory lock), nothing finished overwritten without
/// `--force`, and stale temporary files of earlier runs removed.
///
/// The folder's own files are the reports (`summary.csv`, …, `run.json`, written last),
/// `parts/` while a run is unfinished, and `.widgetsim.lock`. Temporary files are hidden
/// (`.NAME.partial-PID`, `.parts-old-PID`): under the lock, any such file belongs to a
/// run that was killed, and is removed.
public enum OutputFolder {
    public static let lockName = ".widgetsim.lock"

    /// Every report file a run or a merge may write into the folder.
    public static let reportFiles = ["summary.csv", "daily.csv", "comparison.csv", "batches.csv", "reasons.csv",
                                     "widget_days.csv", "study.csv", "robust.csv", "discovery.csv", "sensitivity.csv",
                                     "schema.json", "run.json"]
    /// The page drawn from the reports (`widgetsim report`), and its charts' folder.
    public static let pageFiles = ["report.html", "report"]
    /// Every name the folder's runs own: reports, page, parts and lock.
    public static var ownedNames: [String] { reportFiles + pageFiles + ["parts", lockName] }

    /// An open, locked output folder; the lock lasts as long as this object. The lock
    /// file is removed when the lock ends, so a finished folder holds none.
    public final class Lock: @unchecked Sendable {
        let descriptor: Int32
        let path: String
        init(descriptor: Int32, path: String) {
            self.descriptor = descriptor
            self.path = path
        }
        deinit {
            // Removed while still held: a process waiting for it then finds the file
            // gone (or another one in its place) and starts again on a new file.
            _ = unlink(path)
            // Unlocked explicitly: a child process started meanwhile may share the
            // open file (before its exec closes it), and closing ours alone would then
            // leave the folder locked.
            _ = flock(descriptor, LOCK_UN)
            close(descriptor)
        }
    }

    /// Makes `folder` (and its parents) and takes its lock; refuses when another process
    /// holds it, naming that process.
    public static func lock(_ folder: URL) throws -> Lock {
        let fm = FileManager.default
        var isFolder: ObjCBool = false
        if fm.fileExists(atPath: folder.path, isDirectory: &isFolder), !isFolder.boolValue {
            throw RunRefusal("\(folder.path) is a file, not a folder; give --out a folder (it is created when missing)")
        }
        do {
            try fm.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw RunRefusal("cannot create the output folder \(folder.path): \(reason(error))")
        }
        let path = folder.appendingPathComponent(lockName).path
        while true {
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                throw RunRefusal("cannot write in the output folder \(folder.path): \(String(cString: strerror(errno)))")
            }
            if flock(fd, LOCK_EX | LOCK_NB) != 0 {
                let holder = (try? String(contentsOfFile: path, encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
                close(fd)
                let who = Int32(holder).map { "process \($0)" } ?? "another process"
                throw RunRefusal("another run (\(who)) is writing to \(folder.path); wait for it to finish, or give this run another --out folder")
            }
            // The file locked must still be the one at `path`: a run that just ended
            // removes its lock file, and a lock on the removed file locks nothing.
            var opened = stat(), named = stat()
            guard fstat(fd, &opened) == 0, stat(path, &named) == 0,
                  opened.st_dev == named.st_dev, opened.st_ino == named.st_ino else {
                _ = flock(fd, LOCK_UN)
                close(fd)
                continue
            }
            let pid = "\(ProcessInfo.processInfo.processIdentifier)\n"
            _ = ftruncate(fd, 0)
            _ = pid.withCString { pwrite(fd, $0, strlen($0), 0) }
            return Lock(descriptor: fd, path: path)
        }
    }

    /// The name of the `latest` link a run without `--out` keeps beside its folder.
    public static let latestName = "latest"

    /// A new, empty folder for a run without `--out`: `root/<UTC date>-<time>-<run id>`
    /// (`20261126-174500-0123456789abcdef`), made here so that no other run can take it;
    /// `-2`, `-3`, … are added when two runs start in the same second.
    public static func fresh(in root: URL, runID: String, at date: Date = Date()) throws -> URL {
        do {
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        } catch {
            throw RunRefusal("cannot create the output folder \(root.path): \(reason(error))")
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        let base = formatter.string(from: date) + "-" + runID
        for k in 1... {
            let folder = root.appendingPathComponent(k == 1 ? base : "\(base)-\(k)")
            if mkdir(folder.path, 0o755) == 0 { return folder }
            if errno != EEXIST {
                throw RunRefusal("cannot create the output folder \(folder.path): \(String(cString: strerror(errno)))")
            }
        }
        fatalError("unreachable")
    }

    /// Points `root/latest` at `folder` (a folder in `root`) in one rename, so that a
    /// reader finds either the earlier run or this one, never no link. Returns why not
    /// when it cannot (a file or folder of that name is in the way).
    @discardableResult
    public static func pointLatest(in root: URL, to folder: URL) -> String? {
        let link = root.appendingPathComponent(latestName)
        var info = stat()
        if lstat(link.path, &info) == 0, info.st_mode & S_IFMT != S_IFLNK {
            return "\(link.path) is not a link; remove it to have it point at the latest run"
        }
        let temporary = root.appendingPathComponent(".\(latestName).partial-\(ProcessInfo.processInfo.processIdentifier)")
        _ = unlink(temporary.path)
        guard symlink(folder.lastPathComponent, temporary.path) == 0 else {
            return "cannot make the link \(link.path): \(String(cString: strerror(errno)))"
        }
        guard rename(temporary.path, link.path) == 0 else {
            let why = String(cString: strerror(errno))
            _ = unlink(temporary.path)
            return "cannot make the link \(link.path): \(why)"
        }
        synchronize(root)
        return nil
    }

    /// The report folder `folder` stands for: itself when it holds a report (or
    /// anything but runs without `--out`), else the run its `latest` link points at
    /// (`reports/default` after `widgetsim run scenarios/default.yaml`).
    public static func resolvingLatest(_ folder: URL) -> URL {
        let fm = FileManager.default
        let latest = folder.appendingPathComponent(latestName)
        guard !fm.fileExists(atPath: folder.appendingPathComponent("run.json").path),
              !fm.fileExists(atPath: folder.appendingPathComponent("summary.csv").path),
              let target = try? fm.destinationOfSymbolicLink(atPath: latest.path)
        else { return folder }
        return target.hasPrefix("/") ? URL(fileURLWithPath: target) : folder.appendingPathComponent(target)
    }

    /// Removes what killed runs left behind: hidden temporary report files and
    /// `parts/` folders set aside for removal. Call with the lock held.
    public static func removeStaleFiles(in folder: URL) {
        let fm = FileManager.default
        for name in (try? fm.contentsOfDirectory(atPath: folder.path)) ?? [] where isStale(name) {
            try? fm.removeItem(at: folder.appendingPathComponent(name))
        }
    }

    /// `.summary.csv.partial-123` or `.parts-old-123`: names only this program makes.
    static func isStale(_ name: String) -> Bool {
        guard name.hasPrefix(".") else { return false }
        if let r = name.range(of: ".partial-"), Int(name[r.upperBound...]) != nil { return true }
        if name.hasPrefix(".parts-old-"), Int(name.dropFirst(".parts-old-".count)) != nil { return true }
        return false
    }

    /// Removes `parts` in a way a kill cannot leave half done: renamed aside in one step
    /// (the folder then holds a complete report and no parts), then deleted, here or,
    /// `inBackground`, on a thread of its own (see `finishRemovals()`). What a kill
    /// leaves of a folder set aside, the next run in the folder removes.
    public static func removeParts(_ parts: URL, inBackground: Bool = false) {
        let aside = parts.deletingLastPathComponent()
            .appendingPathComponent(".parts-old-\(ProcessInfo.processInfo.processIdentifier)")
        if rename(parts.path, aside.path) == 0 {
            if inBackground {
                Removals.shared.start(aside)
            } else {
                try? FileManager.default.removeItem(at: aside)
            }
        } else {
            try? FileManager.default.removeItem(at: parts)
        }
    }

    /// Waits until every folder that `removeParts(_:inBackground: true)` set aside is
    /// deleted. The process's exit waits too.
    public static func finishRemovals() {
        Removals.shared.wait()
    }

    /// Deletions running in the background, and the exit handler that waits for them.
    final class Removals: @unchecked Sendable {
        static let shared = Removals()
        private let group = DispatchGroup()
        private let lock = NSLock()
        private var exitWaits = false

        func start(_ folder: URL) {
            lock.lock()
            if !exitWaits {
                exitWaits = true
                atexit { OutputFolder.Removals.shared.wait() }
            }
            lock.unlock()
            group.enter()
            let group = group
            Thread.detachNewThread {
                try? FileManager.default.removeItem(at: folder)
                group.leave()
            }
        }

        func wait() {
            group.wait()
        }
    }

    /// Flushes the files open at `descriptors` to the disk, all at once: each `fsync` on a
    /// thread of its own (one file: on this thread), so that the file system commits them
    /// together rather than one after another (sixteen small report files: a wait of about
    /// 7 ms each in turn, about as long as one at once). Returns each file's `errno`, 0
    /// where its flush succeeded, in the order of `descriptors`.
    public static func flushAtOnce(_ descriptors: [Int32]) -> [Int32] {
        @Sendable func flush(_ fd: Int32) -> Int32 {
            while fsync(fd) != 0 {
                if errno != EINTR { return errno }
            }
            return 0
        }
        if descriptors.count <= 1 { return descriptors.map(flush) }
        let results = UnsafeMutableBufferPointer<Int32>.allocate(capacity: descriptors.count)
        defer { results.deallocate() }
        let group = DispatchGroup()
        for (i, fd) in descriptors.enumerated() {
            group.enter()
            // Each thread writes only its own slot of `results`; `wait` orders the reads after.
            nonisolated(unsafe) let slots = results
            Thread.detachNewThread {
                slots[i] = flush(fd)
                group.leave()
            }
        }
        group.wait()
        return Array(results)
    }

    /// `flushAtOnce` of the files at `descriptors`, whose paths are `paths`: throws the
    /// first failure, in their order, naming its file.
    public static func flushAtOnce(_ descriptors: [Int32], paths: [String]) throws {
        let failures = flushAtOnce(descriptors)
        if let k = failures.firstIndex(where: { $0 != 0 }) {
            throw ReportError.cannotWrite(paths[k], String(cString: strerror(failures[k])))
        }
    }

    /// Flushes the folder's entries (the renames just made) to the disk.
    public static func synchronize(_ folder: URL) {
        let fd = open(folder.path, O_RDONLY | O_DIRECTORY)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    /// Finished blocks in `parts` (counts files).
    public static func finishedBlocks(in parts: URL) -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: parts.path)) ?? []).filter { $0.hasSuffix(".counts") }.count
    }

    /// What `run.json` in `folder` says of the finished report there, if any.
    public struct FinishedReport {
        public var scenarioName: String
        public var finished: String
        /// Whether it is a report of the same scenario text and overrides.
        public var sameRun: Bool
    }

    public static func finishedReport(in folder: URL, scenarioText: String, overrides: RunOverrides) -> FinishedReport? {
        let url = folder.appendingPathComponent("run.json")
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        let scenario = object?["scenario"] as? [String: Any]
        var same = false
        if scenario?["fnv1a64"] as? String == Fingerprint.fnv1a64(scenarioText),
           let recorded = object?["overrides"],
           let recordedData = try? JSONSerialization.data(withJSONObject: recorded),
           let decoded = try? JSONDecoder().decode(RunOverrides.self, from: recordedData) {
            same = decoded == overrides
        }
        return FinishedReport(
            scenarioName: scenario?["name"] as? String ?? "?",
            finished: object?["finished"] as? String ?? "?", sameRun: same)
    }

    /// What went wrong with a file operation, in words (the system's, where it gave one).
    public static func reason(_ error: any Error) -> String {
        let ns = error as NSError
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if ns.domain == NSCocoaErrorDomain, ns.code == NSFileWriteFileExistsError || ns.code == 512 {
            return "a file of that name is in the way"
        }
        return ns.localizedDescription
    }
}

/// A run refused before any work: the folder is in use, or holds results the run
/// would lose. Exit status 2.
public struct RunRefusal: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
