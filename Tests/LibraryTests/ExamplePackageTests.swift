import Foundation
import Testing

/// The repository's root folder (tests run from anywhere).
let repositoryRoot: URL = {
    var url = URL(fileURLWithPath: #filePath)
    while url.path != "/" {
        url.deleteLastPathComponent()
        if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path)
            && FileManager.default.fileExists(atPath: url.appendingPathComponent("Examples").path) {
            return url
        }
    }
    fatalError("the repository's Package.swift not found above \(#filePath)")
}()

/// What a finished process printed and how it exited.
struct Finished {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs `arguments` (the first found on PATH) in `folder` and waits for it. Output goes
/// through files, so a chatty process cannot fill a pipe and stall.
func execute(_ arguments: [String], in folder: URL = repositoryRoot) throws -> Finished {
    let temp = FileManager.default.temporaryDirectory.appendingPathComponent("widgetsim-example-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: temp, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: temp) }
    let out = temp.appendingPathComponent("stdout"), err = temp.appendingPathComponent("stderr")
    _ = FileManager.default.createFile(atPath: out.path, contents: nil)
    _ = FileManager.default.createFile(atPath: err.path, contents: nil)
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = arguments
    p.currentDirectoryURL = folder
    p.standardOutput = try FileHandle(forWritingTo: out)
    p.standardError = try FileHandle(forWritingTo: err)
    try p.run()
    p.waitUntilExit()
    return Finished(status: p.terminationStatus,
                    stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
                    stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
}

/// The rows of a CSV file without quoted fields, as dictionaries by column.
func csvRows(_ url: URL) throws -> [[String: String]] {
    let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
    guard let header = lines.first else { return [] }
    return lines.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
}

/// Builds `Examples/custom-policy` as its own package against this checkout, then uses
/// the program it makes. The only test that builds a package: it builds into
/// `.build/examples/custom-policy`, so a rerun rebuilds only what changed.
@Suite("The example package", .serialized)
struct ExamplePackageTests {
    static let example = repositoryRoot.appendingPathComponent("Examples/custom-policy")
    static let scratch = repositoryRoot.appendingPathComponent(".build/examples/custom-policy")

    @Test("Examples/custom-policy builds against the library; its policies are listed, validated and run")
    func examplePackage() throws {
        // Without manifest caching: a cached build plan can miss source files added to
        // the library since the last build of the example, and compile it without them.
        let build = try execute(["swift", "build", "--package-path", Self.example.path, "--scratch-path", Self.scratch.path,
                                 "--disable-build-manifest-caching"])
        try #require(build.status == 0, "swift build of the example failed:\n\(build.stdout)\n\(build.stderr)")
        let program = Self.scratch.appendingPathComponent("debug/custom-widgetsim").path

        // `policies` lists the added ones after the built-ins, with their parameters.
        let listing = try execute([program, "policies"])
        #expect(listing.status == 0)
        let text = listing.stdout
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.contains("idle_saver  (added by this program)"))
        #expect(lines.contains("last_tapped  (added by this program)"))
        // Lines are wrapped to the terminal: read the listing with its line breaks as spaces.
        let flat = lines.joined(separator: " ")
        #expect(flat.contains("viewed_within = 2h: a request is granted if the instance was on screen this recently "
            + "[a duration with a unit (ms, s, m, h, d) of at least 1m]"))
        #expect(flat.contains("forget_after = 7d: a tap older than this no longer counts"))
        #expect(flat.contains("refusals: min_spacing viewed_within"))
        let order = ["daily_quota", "standby_buckets", "idle_saver", "RANKING POLICIES", "oracle", "last_tapped"]
            .map { name in text.range(of: name).map { text.distance(from: text.startIndex, to: $0.lowerBound) } ?? -1 }
        #expect(order == order.sorted() && !order.contains(-1), "built-ins first, then the added policies: \(order)")

        // A bad parameter of an added policy is a located error, exit status 2.
        let good = Self.example.appendingPathComponent("scenarios/compare.yaml")
        let yaml = try String(contentsOf: good, encoding: .utf8)
        let bad = FileManager.default.temporaryDirectory.appendingPathComponent("compare-bad-\(UUID().uuidString).yaml")
        let wrong = "  - {policy: idle_saver, label: idle_saver_strict, viewed_within: 10s, max_staleness: 12h}"
        let original = "  - {policy: idle_saver, label: idle_saver_strict, viewed_within: 30m, max_staleness: 12h}"
        try #require(yaml.contains(original))
        try yaml.replacingOccurrences(of: original, with: wrong).write(to: bad, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: bad) }
        let line = yaml.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0 == original }! + 1
        let column = wrong.distance(from: wrong.startIndex, to: wrong.range(of: "10s")!.lowerBound) + 1
        let invalid = try execute([program, "validate", bad.path])
        #expect(invalid.status == 2)
        #expect(invalid.stderr == "\(bad.path):\(line):\(column): budgets[3].viewed_within: 10s is shorter than 1m\n")
        let valid = try execute([program, "validate", good.path])
        #expect(valid.status == 0, "\(valid.stderr)")

        // The scenario runs: every pair reports, and the added policies visibly act.
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("compare-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try execute([program, "run", good.path, "--people", "8", "--days", "2", "--quiet", "--out", out.path])
        try #require(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        let rows = try csvRows(out.appendingPathComponent("summary.csv"))
        #expect(rows.count == 4 * 3)
        func total(_ column: String, budget: String? = nil, ranking: String? = nil) -> Double {
            rows.filter { (budget == nil || $0["budget"] == budget) && (ranking == nil || $0["ranking"] == ranking) }
                .reduce(0) { $0 + (Double($1[column] ?? "") ?? .nan) }
        }
        // idle_saver refuses what unlimited grants while nobody looks; the strict one refuses more.
        #expect(total("reloads_charged", budget: "idle_saver") < total("reloads_charged", budget: "unlimited"))
        #expect(total("reloads_charged", budget: "idle_saver_strict") < total("reloads_charged", budget: "idle_saver"))
        #expect(total("requests_denied", budget: "unlimited") == 0)
        // static never rotates the stack; last_tapped does once something was tapped.
        #expect(total("rotations_per_day", ranking: "static") == 0)
        #expect(total("rotations_per_day", ranking: "last_tapped") > 0)
    }
}
