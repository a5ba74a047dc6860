import ArgumentParser
import Foundation
import WidgetSimExecution
import WidgetSimReports

/// A word as a shell reads it: quoted when it holds anything but safe characters.
func shellQuoted(_ word: String) -> String {
    if word.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
        // $'…': a line break or another control character as an escape, on one line.
        let escaped = word.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
        return "$'" + displayed(escaped) + "'"
    }
    let safe = word.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_./=:,+@%".contains($0)) }
    return safe && !word.isEmpty ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
}

/// Refuses an `--out` that names something other than a folder (exit status 2).
func checkOutputPath(_ out: String?) throws {
    guard let out else { return }
    if out.isEmpty {
        printError("widgetsim: --out is empty; give --out a folder (it is created when missing)")
        throw ExitCode(2)
    }
    var link = stat()
    var target = stat()
    if lstat(out, &link) == 0, link.st_mode & S_IFMT == S_IFLNK, stat(out, &target) != 0 {
        let why = errno == ELOOP ? "a loop of symbolic links" : "a symbolic link to nothing (a dangling link)"
        printError("widgetsim: --out \(displayed(out)) is \(why); give --out a folder, or remove the link")
        throw ExitCode(2)
    }
    var isFolder: ObjCBool = false
    if FileManager.default.fileExists(atPath: out, isDirectory: &isFolder), !isFolder.boolValue {
        printError("widgetsim: --out \(displayed(out)) is a file, not a folder; give --out a folder (it is created when missing)")
        throw ExitCode(2)
    }
}

/// What `--trace` writes to.
enum TraceKind {
    /// A new file, or an existing regular file replaced with `--force`: written under a
    /// temporary name and renamed when the run is complete.
    case file
    /// A named pipe, written as the run goes.
    case pipe
    /// `-`: standard output, written as the run goes.
    case standardOutput
}

/// Checks what `--trace PATH` would replace, as the reports' own rules go: never the
/// scenario file or a file the run writes in its output folder, never something that is
/// not a regular file (a named pipe or `-` is written to as a stream, on purpose), and
/// an existing file only with `--force`. Refusals exit with status 2.
func checkTracePath(_ path: String, scenario: String, folder: URL, force: Bool) throws -> TraceKind {
    func refuse(_ why: String) -> ExitCode {
        printError("widgetsim: --trace \(displayed(path)) \(why)")
        return ExitCode(2)
    }
    if path.isEmpty {
        printError("widgetsim: --trace is empty; give it a file name, or `-` for standard output")
        throw ExitCode(2)
    }
    if path == "-" { return .standardOutput }
    let url = URL(fileURLWithPath: path)
    // A file in the output folder that the run writes (reports, page, parts, lock).
    let inFolder = resolved(url.deletingLastPathComponent()).appendingPathComponent(url.lastPathComponent).path
    let out = resolved(folder).path
    for name in OutputFolder.ownedNames {
        let owned = out + "/" + name
        if inFolder == owned || inFolder.hasPrefix(owned + "/") {
            throw refuse("is \(displayed(owned)), where the run writes its \(name == "parts" ? "finished blocks" : name == OutputFolder.lockName ? "lock" : "report"); give the trace a name of its own")
        }
    }
    var info = stat()
    guard lstat(path, &info) == 0 else {
        if errno == ENOENT { return .file }
        throw refuse("cannot be used: \(String(cString: strerror(errno)))")
    }
    switch info.st_mode & S_IFMT {
    case S_IFREG:
        if isSameFile(info, as: scenario) {
            throw refuse("is the scenario file being run; give the trace another name")
        }
        if !force { throw refuse("exists; add --force to replace it, or give the trace another name") }
        return .file
    case S_IFIFO:
        return .pipe
    case S_IFLNK:
        throw refuse("is a symbolic link (the trace would replace the link, not its target); give the path of the file itself")
    case S_IFDIR:
        throw refuse("is a folder; give --trace a file name")
    default:
        throw refuse("is a device or a socket, not a regular file; the trace is written to a file, a named pipe, or standard output (`-`)")
    }
}

/// Whether the file `info` describes is `path` (the same device and inode: a hard link
/// or a path through a symbolic link counts).
func isSameFile(_ info: stat, as path: String) -> Bool {
    var other = stat()
    return stat(path, &other) == 0 && other.st_dev == info.st_dev && other.st_ino == info.st_ino
}

/// `url` with symbolic links resolved as far as the path exists (the rest as given).
func resolved(_ url: URL) -> URL {
    let absolute = url.standardizedFileURL
    if let real = realpath(absolute.path, nil) {
        defer { free(real) }
        return URL(fileURLWithPath: String(cString: real))
    }
    let parent = absolute.deletingLastPathComponent()
    if parent.path == absolute.path { return absolute }
    return resolved(parent).appendingPathComponent(absolute.lastPathComponent)
}

/// A path as messages print it: control characters (a line break in a file name) as
/// escapes, so that every message stays one line.
func displayed(_ path: String) -> String {
    guard path.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return path }
    var out = ""
    for c in path.unicodeScalars {
        switch c {
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        default:
            out += c.properties.generalCategory == .control && c.value < 0x100
                ? "\\x" + (c.value < 0x10 ? "0" : "") + String(c.value, radix: 16) : String(c)
        }
    }
    return out
}
