import Foundation
import WidgetSimExecution
import WidgetSimReports

/// Progress on standard error, once the run has lasted two seconds: on a terminal, one
/// line rewritten in place (cut to the window's width and cleared to its end, so that
/// nothing of a longer earlier line stays); otherwise (a log file, a pipe) a plain line
/// every `every` seconds and one when the last block is done.
final class ProgressLine: @unchecked Sendable {
    let isTerminal: Bool
    let every: Double
    let columns: Int
    let write: @Sendable (String) -> Void
    let lock = NSLock()
    var shown = false
    var lastDraw = 0.0

    init(every: Double = 10, isTerminal: Bool = isatty(STDERR_FILENO) == 1, columns: Int = terminalColumns(),
         write: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }) {
        self.every = every
        self.isTerminal = isTerminal
        self.columns = columns
        self.write = write
    }

    /// The text of one progress report: where the run is, its speed, the time left.
    static func text(_ p: RunProgress) -> String {
        let rate = Double(p.events) / max(p.elapsedSeconds, 1e-9)
        let left = p.unitsDone > 0 ? p.elapsedSeconds * Double(p.unitsTotal - p.unitsDone) / Double(p.unitsDone) : 0
        let remaining = p.unitsDone == p.unitsTotal ? "done"
            : left < 60 ? String(format: "%.0f s left", left)
            : String(format: "%d min %02d s left", Int(left) / 60, Int(left) % 60)
        let point = p.points > 1 ? "point \(p.point) of \(p.points), " : ""
        return point + String(format: "%d/%d blocks, %.2f M events/s, ", p.unitsDone, p.unitsTotal, rate / 1e6) + remaining
    }

    func update(_ p: RunProgress) {
        lock.lock()
        defer { lock.unlock() }
        let last = p.unitsDone == p.unitsTotal
        if isTerminal {
            guard p.elapsedSeconds > 2, p.elapsedSeconds - lastDraw >= 0.25 || last else { return }
            lastDraw = p.elapsedSeconds
            // One character short of the window: a full last column makes some terminals wrap.
            let line = String(Self.text(p).prefix(max(1, columns - 1)))
            write("\r" + line + "\u{1B}[K")
            shown = true
        } else {
            guard (p.elapsedSeconds >= every && p.elapsedSeconds - lastDraw >= every) || (last && shown) else { return }
            lastDraw = p.elapsedSeconds
            write("widgetsim: progress: " + Self.text(p) + "\n")
            shown = true
        }
    }

    func finish() {
        lock.lock()
        defer { lock.unlock() }
        if shown && isTerminal { write("\n") }
        shown = false
    }
}

/// The terminal's width on standard error, else `COLUMNS`, else 80.
func terminalColumns() -> Int {
    var size = winsize()
    if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
    return ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil } ?? 80
}
