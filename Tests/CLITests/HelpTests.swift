import ArgumentParser
import Foundation
import Testing
@testable import WidgetSimCLI

/// Every help text, rendered at 80 columns: no line longer, no pre-formatted line
/// re-wrapped, no literal `\` at a line's end, each option's default said once.
@Suite struct HelpTests {
    static let commands: [(arguments: [String], type: any ParsableCommand.Type)] = [
        ([], WidgetSimCommand.self), (["run"], Run.self), (["report"], Report.self), (["batch"], Batch.self), (["merge"], Merge.self),
        (["compare"], Compare.self), (["validate"], Validate.self), (["calibrate"], Calibrate.self), (["log"], Log.self),
        (["policies"], Policies.self), (["bound"], Bound.self),
    ]

    func help(_ arguments: [String], columns: Int = 80) throws -> String {
        let outcome = try widgetsim(["help"] + arguments, columns: columns)
        #expect(outcome.status == 0)
        return outcome.stdout
    }

    @Test(arguments: commands.map(\.arguments))
    func helpFitsEightyColumns(_ arguments: [String]) throws {
        let type = Self.commands.first { $0.arguments == arguments }!.type
        let text = try help(arguments)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for line in lines {
            #expect(line.count <= 80, "\(arguments): \(line.count) characters: \(line)")
            #expect(!line.hasSuffix("\\"), "\(arguments): a literal backslash ends `\(line)`")
            #expect(line.components(separatedBy: "(default:").count <= 2, "\(arguments): doubled default in `\(line)`")
        }
        // Every line of the discussion comes out whole: nothing pre-formatted is re-wrapped.
        for line in type.configuration.discussion.split(separator: "\n") {
            #expect(lines.contains(String(line)), "\(arguments): `\(line)` was re-wrapped")
        }
        // Every option that takes a value says its default, or is required.
        let usage = lines.first { $0.hasPrefix("USAGE:") } ?? ""
        for (name, block) in optionBlocks(lines) where block.contains("<") {
            let required = usage.contains("\(name) <") && !usage.contains("[\(name) <")
            let defaults = block.components(separatedBy: "(default:").count - 1
            #expect(defaults == (required ? 0 : 1), "\(arguments): \(name) says its default \(defaults) times")
        }
    }

    /// The OPTIONS section's entries: the option's name and its whole text (wrapped
    /// lines joined).
    func optionBlocks(_ lines: [String]) -> [(String, String)] {
        guard let start = lines.firstIndex(of: "OPTIONS:") else { return [] }
        var blocks: [(String, String)] = []
        for line in lines[(start + 1)...] {
            if line.hasPrefix("  --") || line.hasPrefix("  -") {
                let name = String(line.dropFirst(2).prefix { $0 != " " && $0 != "," })
                blocks.append((name, line))
            } else if line.hasPrefix("    "), !blocks.isEmpty {
                blocks[blocks.count - 1].1 += " " + line.trimmingCharacters(in: .whitespaces)
            } else if line.isEmpty {
                continue
            } else {
                break
            }
        }
        return blocks
    }

    @Test func quietMeansTheSameEverywhere() throws {
        let texts = try ["run", "batch", "merge"].map { command -> String in
            let blocks = optionBlocks(try help([command]).split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
            return try #require(blocks.first { $0.0 == "--quiet" }).1
                .replacingOccurrences(of: "  +", with: " ", options: .regularExpression)
        }
        #expect(Set(texts).count == 1, "\(texts)")
    }

    @Test func validateHasAnExampleAndSaysWhatSuccessPrints() throws {
        let text = try help(["validate"])
        #expect(text.contains("Example:"))
        #expect(text.contains("ok ("))
        // And success prints what the help says.
        let outcome = try widgetsim(["validate", repositoryRoot.appendingPathComponent("scenarios/tiny.yaml").path])
        #expect(outcome.status == 0)
        #expect(outcome.stdout.contains(": ok (tiny: 3 people × 2 days, 3 widgets, 4 policy pairs)"))
    }

    @Test func runHelpKeepsTheTableOfReportFiles() throws {
        let lines = try help(["run"]).split(separator: "\n").map(String.init)
        for file in ["summary.csv", "daily.csv", "comparison.csv", "batches.csv", "reasons.csv", "widget_days.csv", "schema.json", "run.json"] {
            #expect(lines.contains { $0.hasPrefix("  \(file) ") }, "\(file) is not at the start of a table row")
        }
    }

    @Test(arguments: [80, 60])
    func policiesWrapToTheTerminal(columns: Int) throws {
        let outcome = try widgetsim(["policies"], columns: columns)
        #expect(outcome.status == 0)
        let lines = outcome.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count > 40)
        for line in lines { #expect(line.count <= columns, "\(line.count): \(line)") }
        #expect(outcome.stdout.contains("daily_quota") && outcome.stdout.contains("thompson"))
    }

    @Test func versionNamesTheCommitOfTheBuild() throws {
        let outcome = try widgetsim(["--version"])
        #expect(outcome.status == 0)
        let text = outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(text.wholeMatch(of: /widgetsim [0-9.]+ \(commit ([0-9a-f]{40}|unknown)( \(uncommitted changes\))?\)/) != nil, "\(text)")
    }
}
