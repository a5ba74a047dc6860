import Foundation
import Testing

/// Every `sh` command block of the README runs as typed, with the built `widgetsim` on
/// PATH (the set-up block, which runs `scripts/demo` and `scripts/test`, is the one left
/// out: it builds in release mode and runs this very suite). Each block runs in a fresh
/// folder that holds the repository's `scenarios/`, under `bash -euo pipefail`.
@Suite struct ReadmeTests {
    static func blocks() throws -> [String] {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        var blocks: [String] = []
        var current: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```sh" {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(current!.joined(separator: "\n"))
                current = nil
            } else if current != nil {
                current!.append(line)
            }
        }
        return blocks
    }

    static func isSetUp(_ block: String) -> Bool { block.contains("scripts/test") }

    @Test func theReadmeHasItsCommandBlocks() throws {
        let blocks = try Self.blocks()
        #expect(blocks.filter(Self.isSetUp).count == 1)
        let commands = blocks.filter { !Self.isSetUp($0) }.joined(separator: "\n")
        for word in ["widgetsim run", "widgetsim batch", "widgetsim compare", "widgetsim validate", "widgetsim policies"] {
            #expect(commands.contains(word), "the README shows no `\(word)`")
        }
    }

    @Test(arguments: try blocks().filter { !isSetUp($0) })
    func commandBlockRunsAsTyped(_ block: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("widgetsim-readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createSymbolicLink(
            at: folder.appendingPathComponent("scenarios"), withDestinationURL: repositoryRoot.appendingPathComponent("scenarios"))
        let path = productsFolder.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let outcome = try execute("/bin/bash", ["-euo", "pipefail", "-c", block], in: folder,
                                  environment: ["PATH": path, "COLUMNS": "80"])
        #expect(outcome.status == 0, "\(block)\n--- stderr:\n\(outcome.stderr)")
        #expect(!outcome.stderr.contains("command not found"))
    }

    /// The README's results table is what `scripts/own-policies` prints from the saved run
    /// (`docs/results.json`), character for character: its figures are measured, not typed.
    @Test func theResultsTableIsTheScriptsOutput() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else {
            try Test.cancel("skipped: scripts/own-policies needs python3")
        }
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let begin = "<!-- the table below is printed by scripts/own-policies --markdown --from docs/results.json -->\n"
        let end = "<!-- end of the table printed by scripts/own-policies -->"
        let start = try #require(readme.range(of: begin), "the README has no results table to check").upperBound
        let stop = try #require(readme.range(of: end, range: start ..< readme.endIndex)).lowerBound
        let printed = try execute("/usr/bin/python3", ["scripts/own-policies", "--from", "docs/results.json"],
                                  in: repositoryRoot)
        #expect(printed.status == 0, "\(printed.stderr)")
        #expect(printed.stdout.contains("| target |"))
        #expect(String(readme[start ..< stop]) == printed.stdout)
    }
}
