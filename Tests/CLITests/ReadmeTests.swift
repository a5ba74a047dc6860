import Foundation
import Testing

/// Every `sh` command block of the README and of the guide (`docs/GUIDE.md`) runs as
/// typed, with the built `widgetsim` on PATH (the set-up block, which runs `scripts/demo`
/// and `scripts/test`, is the one left out: it builds in release mode and runs this very
/// suite). Each block runs in a fresh folder that holds the repository's `scenarios/`,
/// under `bash -euo pipefail`.
@Suite struct ReadmeTests {
    static let pages = ["README.md", "docs/GUIDE.md"]

    static func blocks() throws -> [String] {
        try pages.flatMap { try blocks(of: $0) }
    }

    static func blocks(of page: String) throws -> [String] {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent(page), encoding: .utf8)
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
        let blocks = try Self.blocks(of: "README.md")
        #expect(blocks.filter(Self.isSetUp).count == 1)
        let commands = blocks.filter { !Self.isSetUp($0) }.joined(separator: "\n")
        for word in ["widgetsim run", "widgetsim batch", "widgetsim compare", "widgetsim validate", "widgetsim policies"] {
            #expect(commands.contains(word), "the README shows no `\(word)`")
        }
        let guide = try Self.blocks(of: "docs/GUIDE.md").joined(separator: "\n")
        for word in ["widgetsim calibrate", "widgetsim log"] {
            #expect(guide.contains(word), "docs/GUIDE.md shows no `\(word)`")
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

    /// Every relative link of the project's pages names a file that is there and, after a
    /// `#`, a heading of that file (by GitHub's anchor rule: lower case, spaces to hyphens,
    /// other punctuation dropped), so moving a section or a page cannot leave a dead link.
    @Test func everyRelativeLinkReachesItsPage() throws {
        let docs = try FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.map { "docs/" + $0 }
        let pages = ["README.md", "CHANGELOG.md", "scenarios/README.md", "scripts/slurm/README.md",
                     "Examples/custom-policy/README.md"] + docs
        #expect(pages.contains("docs/GUIDE.md") && pages.contains("docs/MODEL.md"))
        var checked = 0
        for page in pages {
            let pageURL = repositoryRoot.appendingPathComponent(page)
            let text = try String(contentsOf: pageURL, encoding: .utf8)
            for link in Self.relativeLinks(in: text) {
                let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
                let target = parts[0].isEmpty ? pageURL
                    : pageURL.deletingLastPathComponent().appendingPathComponent(String(parts[0])).standardizedFileURL
                #expect(FileManager.default.fileExists(atPath: target.path), "\(page): `\(link)` names no file")
                if parts.count == 2, let targetText = try? String(contentsOf: target, encoding: .utf8) {
                    #expect(Self.anchors(of: targetText).contains(String(parts[1])),
                            "\(page): `\(link)` names no heading of \(target.lastPathComponent)")
                }
                checked += 1
            }
        }
        #expect(checked >= 20)
    }

    /// The targets of `[text](target)` that are neither web addresses nor mail.
    static func relativeLinks(in text: String) -> [String] {
        text.matches(of: /\]\(([^)\s]+)\)/).map { String($0.output.1) }
            .filter { !$0.hasPrefix("http:") && !$0.hasPrefix("https:") && !$0.hasPrefix("mailto:") }
    }

    /// The anchors GitHub gives a page's headings.
    static func anchors(of text: String) -> Set<String> {
        var anchors: Set<String> = []
        for line in text.split(separator: "\n") where line.hasPrefix("#") {
            let title = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces).lowercased()
            anchors.insert(String(title.compactMap { c -> Character? in
                if c == " " { return "-" }
                return c.isLetter || c.isNumber || c == "-" || c == "_" ? c : nil
            }))
        }
        return anchors
    }
}
