import Foundation

/// gnuplot started before its scripts exist, so that its start-up (loading some ninety
/// libraries, about 20 ms) passes while the program simulates or builds the page.
///
/// It reads its commands as a script file from standard input (`gnuplot /dev/stdin`):
/// `cd` into the charts' folder, then a `load` of each script in turn. Loaded so, a
/// failing script stops gnuplot with the message `gnuplot NAME.gp` prints (the script's
/// name, its line, the fault) and status 1, the scripts after it left undrawn.
public final class Gnuplot: @unchecked Sendable {
    let executable: String
    private var process = Process()
    private var input = Pipe()
    private var errors = Pipe()
    /// Why gnuplot could not start, when it could not; told when its work is awaited.
    private var startFailure: String?
    /// Whether its input is closed: its commands sent, or nothing to draw.
    private var closed = false
    /// Whether it was sent scripts to draw.
    private var drawing = false

    /// Starts `executable` (gnuplot on the `PATH` when nil) waiting for its commands; nil
    /// when there is no gnuplot.
    public static func start(_ executable: String? = nil) -> Gnuplot? {
        guard let executable = executable ?? ReportPage.findExecutable("gnuplot") else { return nil }
        return Gnuplot(executable)
    }

    private init(_ executable: String) {
        self.executable = executable
        launch()
    }

    /// Starts gnuplot reading its commands from standard input.
    private func launch() {
        closed = false
        process = Process()
        input = Pipe()
        errors = Pipe()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["/dev/stdin"]
        process.standardInput = input
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        do {
            try process.run()
            startFailure = nil
        } catch {
            startFailure = error.localizedDescription
        }
    }

    /// The running gnuplot's process identifier.
    var processIdentifier: Int32 { process.processIdentifier }

    /// Sends the commands that draw `scripts` (file names in `folder`) and closes gnuplot's
    /// input: it draws them while the caller goes on.
    func draw(_ scripts: [String], in folder: URL) {
        drawing = !scripts.isEmpty
        // A gnuplot sent an earlier page's scripts, or that ended while it waited (killed,
        // say), is started again.
        if drawing, closed || !process.isRunning {
            cancel()
            launch()
        }
        if drawing, startFailure == nil {
            send("cd \(gnuplotQuoted(folder.path))\n" + scripts.map { "load \(gnuplotQuoted($0))\n" }.joined())
        }
        cancel()
    }

    /// Waits until gnuplot has drawn what `draw` sent; its message when it failed.
    func finish() throws(ReportPage.BuildError) {
        guard drawing else { return }
        if let startFailure { throw .gnuplotFailed("cannot start \(executable): \(startFailure)") }
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw .gnuplotFailed(text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    /// Closes gnuplot's input, so that it ends (when no page is drawn after all). Does
    /// nothing once its input is closed.
    public func cancel() {
        guard !closed else { return }
        closed = true
        try? input.fileHandleForWriting.close()
    }

    /// Writes `text` to gnuplot's input. A gnuplot that has died reads nothing: the write
    /// fails with EPIPE, and the SIGPIPE it raises on this thread is taken back rather than
    /// ending the program; `finish` then reports gnuplot's status.
    private func send(_ text: String) {
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        let fd = input.fileHandleForWriting.fileDescriptor
        if Array(text.utf8).withUnsafeBytes({ writeAll(fd, $0) }) == EPIPE { takePendingSignal(pipeSignal) }
    }

    /// Removes the pending signal of `set` from this thread, if it is there.
    private func takePendingSignal(_ set: sigset_t) {
        var set = set
        var pending = sigset_t()
        sigpending(&pending)
        if sigismember(&pending, SIGPIPE) == 1 {
            var none = timespec(tv_sec: 0, tv_nsec: 0)
            _ = sigtimedwait(&set, nil, &none)
        }
    }
}

/// `text` as a gnuplot double-quoted string: any path, control characters (a newline)
/// included, as octal escapes.
func gnuplotQuoted(_ text: String) -> String {
    var out: [UInt8] = [UInt8(ascii: "\"")]
    for byte in text.utf8 {
        switch byte {
        case UInt8(ascii: "\\"), UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), byte]
        case 0 ..< 0x20, 0x7f: out += Array(("\\" + String(format: "%03o", Int(byte))).utf8)
        default: out.append(byte)
        }
    }
    out.append(UInt8(ascii: "\""))
    return String(decoding: out, as: UTF8.self)
}
