import Foundation
import Testing

/// `scripts/docs` builds the DocC archive, and every declaration `import WidgetSim`
/// gives (Sources/WidgetSim/WidgetSim.swift), with each of its members, is documented.
/// Builds into `.build/docs` (its own build folder: a few minutes the first time,
/// seconds after).
@Suite("API documentation", .serialized)
struct DocumentationTests {
    static let scratch = repositoryRoot.appendingPathComponent(".build/docs")

    /// Members the compiler or the standard library supplies (synthesized conformances,
    /// default implementations): DocC lists them, but there is no source to document.
    static let supplied: Set<String> = [
        "!=(_:_:)", "==(_:_:)", "hash(into:)", "hashValue", "init(rawValue:)", "rawValue", "localizedDescription",
        // An option set's members, as `OptionSet` and `SetAlgebra` give them.
        "contains(_:)", "formIntersection(_:)", "formSymmetricDifference(_:)", "formUnion(_:)", "init()", "init(_:)",
        "init(arrayLiteral:)", "insert(_:)", "intersection(_:)", "isDisjoint(with:)", "isEmpty", "isStrictSubset(of:)",
        "isStrictSuperset(of:)", "isSubset(of:)", "isSuperset(of:)", "remove(_:)", "subtract(_:)", "subtracting(_:)",
        "symmetricDifference(_:)", "union(_:)", "update(with:)",
    ]

    /// `MODULE/NAME` of every declaration the library re-exports.
    static func reexported() throws -> [String] {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent("Sources/WidgetSim/WidgetSim.swift"),
                              encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("@_exported import "), let qualified = line.split(separator: " ").last else { return nil }
            return qualified.replacingOccurrences(of: ".", with: "/")
        }
    }

    @Test("scripts/docs builds the archive with the article, without warnings; every public symbol of the library has a summary")
    func archiveAndCoverage() throws {
        let run = try execute([repositoryRoot.appendingPathComponent("scripts/docs").path,
                               "--scratch-path", Self.scratch.path,
                               "--experimental-documentation-coverage", "--coverage-summary-level", "detailed"])
        try #require(run.status == 0, "scripts/docs failed:\n\(run.stdout)\n\(run.stderr)")
        let output = run.stdout + run.stderr
        let warnings = output.split(separator: "\n").filter { $0.contains("warning:") }
        #expect(warnings.isEmpty, "DocC warnings:\n\(warnings.joined(separator: "\n"))")

        // The combined archive holds the landing page and the article.
        let archive = Self.scratch.appendingPathComponent("plugins/Swift-DocC/outputs/WidgetSim.doccarchive")
        let article = try FileManager.default.subpathsOfDirectory(atPath: archive.path)
            .first { $0.hasSuffix("writingapolicy.json") }
        let page = try #require(article.map { archive.appendingPathComponent($0) }, "no article in \(archive.path)")
        let json = try String(contentsOf: page, encoding: .utf8)
        #expect(json.contains("Writing a policy"))
        #expect(json.contains("idle_saver") && json.contains("last_tapped"))

        // The detailed coverage table: `name | kind | abstract? | curated? | listing? |
        // parameters | language | reference`. Every row under a re-exported declaration
        // (the declaration and its members) has an abstract.
        let prefixes = try Self.reexported().map { name -> String in
            let module = name.split(separator: "/")[0]
            return "doc://\(module)/documentation/\(name)"
        }
        #expect(prefixes.count > 40, "the re-exports were not read: \(prefixes)")
        var checked = 0
        var missing: [String] = []
        for line in output.split(separator: "\n") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 8, cells[7].hasPrefix("doc://") else { continue }
            let (name, kind, abstract, reference) = (cells[0], cells[1], cells[2], cells[7])
            guard prefixes.contains(where: { reference == $0 || reference.hasPrefix($0 + "/") }) else { continue }
            if kind == "CollectionGroup" || Self.supplied.contains(name) { continue }
            checked += 1
            if abstract != "true" { missing.append(reference) }
        }
        #expect(checked > 200, "the coverage table was not read (\(checked) rows)")
        #expect(missing.isEmpty, "undocumented:\n\(Set(missing).sorted().joined(separator: "\n"))")
    }
}
