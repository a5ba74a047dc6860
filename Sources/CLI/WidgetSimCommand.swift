import ArgumentParser
import Foundation
import WidgetSimExecution
import WidgetSimModel
import WidgetSimReports
import WidgetSimScenario

struct WidgetSimCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "widgetsim",
        abstract: "Simulate how a phone spends widget reloads and ranks a Smart Stack.",
        discussion: """
        WidgetSim replays synthetic days of home-screen views, app sessions, pushes,
        content changes and time changes for a population of simulated people, under
        pluggable budget policies (who may reload when) and ranking policies (which
        widget the Smart Stack shows on top), and writes CSV reports on reloads,
        staleness and rotation accuracy.

        Start with:
          widgetsim run scenarios/default.yaml
          widgetsim policies
          widgetsim validate scenarios/*.yaml

        The scenario format is documented in scenarios/README.md, the report
        columns in docs/SCHEMA.md.
        """,
        version: versionText,
        subcommands: [Run.self, Report.self, Batch.self, Merge.self, Compare.self, Validate.self, Calibrate.self, Log.self, Policies.self, Bound.self])

    /// `widgetsim --version`: the version and the commit the binary was built from.
    static var versionText: String {
        "widgetsim \(WidgetSimVersion.current) (commit \(BuildInfo.stamp.description))"
    }
}

func printError(_ text: String) {
    FileHandle.standardError.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
}

extension BuildInfo {
    /// The commit this binary was built from (fixed at build time by the BuildStamp plugin).
    static var stamp: BuildStamp { BuildStamp(commit: commit, dirty: dirty) }
}

/// The width of the terminal, as the help texts use it: `COLUMNS` when set, else the
/// terminal's own width, else 80.
func terminalWidth() -> Int {
    if let text = ProcessInfo.processInfo.environment["COLUMNS"], let n = Int(text), n > 0 { return n }
    var size = winsize()
    if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
    return 80
}

/// `text` broken into lines of at most `width` characters at spaces, each line after
/// the first starting with `indent` (a word longer than a line stands alone).
func wrap(_ text: String, width: Int, indent: String = "", firstIndent: String = "") -> [String] {
    var lines: [String] = []
    var line = firstIndent
    var lineHasWord = false
    for word in text.split(separator: " ", omittingEmptySubsequences: true) {
        if lineHasWord && line.count + 1 + word.count > width {
            lines.append(line)
            line = indent
            lineHasWord = false
        }
        line += (lineHasWord ? " " : "") + word
        lineHasWord = true
    }
    if lineHasWord { lines.append(line) }
    return lines
}
