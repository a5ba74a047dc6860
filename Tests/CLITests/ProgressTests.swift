import Foundation
import Testing
@testable import WidgetSimCLI
import WidgetSimExecution
@testable import WidgetSimReports

/// Progress on a terminal (one line rewritten in place, within the window) and in a
/// log or pipe (plain lines at a steady interval), and the options that choose it.
@Suite struct ProgressTests {
    final class Captured: @unchecked Sendable {
        let lock = NSLock()
        var text = ""
        func add(_ s: String) { lock.withLock { text += s } }
    }

    func progress(done: Int, total: Int, seconds: Double, point: Int = 0, points: Int = 1) -> RunProgress {
        RunProgress(unitsDone: done, unitsTotal: total, events: 123_456_789_012, elapsedSeconds: seconds, point: point, points: points)
    }

    @Test func aTerminalLineStaysWithinTheWindowAndLeavesNothingBehind() {
        let out = Captured()
        let line = ProgressLine(every: 10, isTerminal: true, columns: 80, write: { out.add($0) })
        line.update(progress(done: 1234, total: 98765, seconds: 3, point: 1234, points: 5000))
        line.update(progress(done: 98765, total: 98765, seconds: 4))
        line.finish()
        let draws = out.text.split(separator: "\r", omittingEmptySubsequences: true).map(String.init)
        #expect(draws.count == 2, "\(draws)")
        for draw in draws {
            let visible = draw.replacingOccurrences(of: "\u{1B}[K", with: "").trimmingCharacters(in: .newlines)
            // Within 79 columns (no wrap in an 80-column window), and cleared to the end of the line.
            #expect(visible.count <= 79, "\(visible.count): \(visible)")
            #expect(draw.hasSuffix("\u{1B}[K") || draw.hasSuffix("\u{1B}[K\n"), "\(draw)")
            #expect(visible.contains(" blocks, ") && !visible.contains("units"))
        }
        #expect(out.text.hasSuffix("\n"))
    }

    @Test func withoutATerminalPlainLinesComeAtTheInterval() {
        let out = Captured()
        let line = ProgressLine(every: 10, isTerminal: false, columns: 80, write: { out.add($0) })
        for t in stride(from: 1.0, through: 35, by: 1) { line.update(progress(done: Int(t), total: 40, seconds: t)) }
        line.update(progress(done: 40, total: 40, seconds: 36))
        line.finish()
        let lines = out.text.split(separator: "\n").map(String.init)
        // At 10, 20 and 30 s, then when the last block is done; no carriage return.
        #expect(lines.count == 4, "\(lines)")
        #expect(lines.allSatisfy { $0.hasPrefix("widgetsim: progress: ") && $0.contains("/40 blocks") })
        #expect(lines.first?.contains("10/40 blocks") == true)
        #expect(lines.last?.hasSuffix("done") == true)
        #expect(!out.text.contains("\r"))
    }

    @Test func progressIsChosenOnTheCommandLine() throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("widgetsim-progress-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let scenario = repositoryRoot.appendingPathComponent("scenarios/default.yaml").path
        let common = [scenario, "--people", "40", "--days", "2", "--replications", "1", "--threads", "1",
                      "--no-report", "--no-widget-days"]
        // Standard error is a pipe here: plain lines, asked for even with --quiet.
        let on = try widgetsim(["run"] + common + ["--out", work.appendingPathComponent("a").path, "--quiet",
                                                   "--progress", "--progress-every", "0.05"])
        #expect(on.status == 0, "\(on.stderr)")
        let lines = on.stderr.split(separator: "\n").filter { $0.hasPrefix("widgetsim: progress: ") }
        #expect(lines.count >= 2, "\(on.stderr)")
        #expect(lines.last?.hasSuffix("done") == true)
        #expect(!on.stderr.contains("\r"))
        let off = try widgetsim(["run"] + common + ["--out", work.appendingPathComponent("b").path, "--no-progress",
                                                    "--progress-every", "0.05"])
        #expect(off.status == 0, "\(off.stderr)")
        #expect(!off.stderr.contains("progress:"), "\(off.stderr)")
        #expect(off.stdout.contains("reports written to"))
    }
}
