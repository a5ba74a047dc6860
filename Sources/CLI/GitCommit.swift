import Foundation

/// The commit this program was built from, when it runs from a git checkout (the
/// binary sits under the repository's `.build/`): read from `.git` directly.
enum GitCommit {
    static func ofThisProgram() -> String? {
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        if !url.path.hasPrefix("/") { url = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(url.path) }
        while url.path != "/" {
            url.deleteLastPathComponent()
            let git = url.appendingPathComponent(".git")
            if FileManager.default.fileExists(atPath: git.appendingPathComponent("HEAD").path) {
                return read(git)
            }
        }
        return nil
    }

    static func read(_ git: URL) -> String? {
        guard let head = try? String(contentsOf: git.appendingPathComponent("HEAD"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines) else { return nil }
        guard head.hasPrefix("ref: ") else { return head }
        let ref = String(head.dropFirst(5))
        if let loose = try? String(contentsOf: git.appendingPathComponent(ref), encoding: .utf8) {
            return loose.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let packed = (try? String(contentsOf: git.appendingPathComponent("packed-refs"), encoding: .utf8)) ?? ""
        for line in packed.split(separator: "\n") where line.hasSuffix(" " + ref) {
            return String(line.split(separator: " ")[0])
        }
        return nil
    }
}
