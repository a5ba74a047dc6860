import Foundation
import Testing

/// Sources, tests, scenario files, scripts and documents cite the model's specification
/// as "MODEL §n" (or a range "MODEL §n–§m"); each cited section must be a numbered
/// section of `docs/MODEL.md`, so a reader of the repository alone finds it.
@Suite("MODEL citations")
struct ModelCitationTests {
    /// The numbers of `docs/MODEL.md`'s sections: its `## n. Title` headings.
    static func sections() throws -> Set<Int> {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/MODEL.md"), encoding: .utf8)
        return Set(text.split(separator: "\n").compactMap { line -> Int? in
            guard line.hasPrefix("## ") else { return nil }
            let rest = line.dropFirst(3)
            guard let dot = rest.firstIndex(of: ".") else { return nil }
            return Int(rest[..<dot])
        })
    }

    /// Every section number cited in `text`: "MODEL §5", "MODEL §2–§4" (both ends and
    /// what lies between), "MODEL §5." at a sentence's end.
    static func citations(in text: String) -> [Int] {
        var found: [Int] = []
        var rest = Substring(text)
        while let r = rest.range(of: "MODEL §") {
            rest = rest[r.upperBound...]
            let digits = rest.prefix { $0.isNumber }
            guard let first = Int(digits) else { continue }
            var last = first
            let after = rest.dropFirst(digits.count)
            for dash in ["–§", "-§", "–", "-"] where after.hasPrefix(dash) {
                if let end = Int(after.dropFirst(dash.count).prefix { $0.isNumber }) { last = end }
                break
            }
            found.append(contentsOf: first ... max(first, last))
        }
        return found
    }

    /// The files that may cite the model: everything under these folders with these endings.
    static func citingFiles() -> [URL] {
        let roots = ["Sources", "Tests", "scenarios", "scripts", "docs", "Examples", "README.md"]
        let endings = [".swift", ".md", ".yaml", ".sh", ""]
        var files: [URL] = []
        let manager = FileManager.default
        for root in roots {
            let url = repositoryRoot.appendingPathComponent(root)
            var isFolder: ObjCBool = false
            guard manager.fileExists(atPath: url.path, isDirectory: &isFolder) else { continue }
            if !isFolder.boolValue {
                files.append(url)
                continue
            }
            guard let walker = manager.enumerator(at: url, includingPropertiesForKeys: [.isRegularFileKey]) else {
                continue
            }
            for case let file as URL in walker {
                if file.pathComponents.contains(where: { $0.hasPrefix(".build") || $0 == "Golden" || $0 == "Fixtures" }) {
                    continue
                }
                let name = file.lastPathComponent
                let ending = name.contains(".") ? "." + (name.split(separator: ".").last.map(String.init) ?? "") : ""
                guard endings.contains(ending),
                      (try? file.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
                files.append(file)
            }
        }
        return files
    }

    @Test("the citation reader finds single sections, ranges and sentence ends")
    func reader() {
        #expect(Self.citations(in: "see MODEL §5. Then MODEL §2–§4, and (MODEL §6)") == [5, 2, 3, 4, 6])
        #expect(Self.citations(in: "no citation § 3 here, MODEL § alone").isEmpty)
    }

    @Test("docs/MODEL.md has sections 1 to 7, each numbered once")
    func sectionsExist() throws {
        let numbers = try Self.sections()
        #expect(Set(1 ... 7).isSubset(of: numbers), "sections found: \(numbers.sorted())")
    }

    @Test("every MODEL §n cited in the repository is a section of docs/MODEL.md")
    func everyCitationResolves() throws {
        let sections = try Self.sections()
        var cited = 0
        var broken: [String] = []
        for file in Self.citingFiles() {
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            for n in Self.citations(in: text) {
                cited += 1
                if !sections.contains(n) {
                    broken.append("\(file.path.replacingOccurrences(of: repositoryRoot.path + "/", with: "")): MODEL §\(n)")
                }
            }
        }
        // The sources cite the model in dozens of places; far fewer means the files were not read.
        #expect(cited >= 30, "only \(cited) citations found")
        #expect(broken.isEmpty, "citations of missing sections:\n\(broken.joined(separator: "\n"))")
    }
}
