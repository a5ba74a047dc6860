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

    /// A package that depends on WidgetSim by version, as a package outside this
    /// repository would: a git repository holding this checkout's files with a version
    /// tag, and a copy of the example whose manifest names it by URL and `from:`.
    /// SwiftPM refuses a versioned dependency built with unsafe compiler flags, so this
    /// build fails if WidgetSim's manifest uses any. Both live under
    /// `.build/examples/versioned/`, kept between runs: each run commits the checkout's
    /// files again under the next patch tag, and the build recompiles what changed.
    @Test("a package depending on WidgetSim with `from:` a version tag builds, and runs its policies")
    func versionedDependency() throws {
        let root = repositoryRoot.appendingPathComponent(".build/examples/versioned")
        let library = root.appendingPathComponent("WidgetSim")
        let example = root.appendingPathComponent("custom-policy")
        let manager = FileManager.default
        try manager.createDirectory(at: library, withIntermediateDirectories: true)
        func git(_ arguments: [String], in folder: URL) throws -> Finished {
            let run = try execute(["git", "-c", "user.name=WidgetSim tests", "-c", "user.email=tests@widgetsim.invalid",
                                   "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false"] + arguments, in: folder)
            try #require(run.status == 0, "git \(arguments.joined(separator: " ")):\n\(run.stderr)")
            return run
        }
        if !manager.fileExists(atPath: library.appendingPathComponent(".git").path) {
            _ = try git(["init", "-q"], in: library)
        }
        // The checkout's files (tracked, and new ones not ignored), as they are now.
        for name in try manager.contentsOfDirectory(atPath: library.path) where name != ".git" {
            try manager.removeItem(at: library.appendingPathComponent(name))
        }
        let files = try git(["ls-files", "-co", "--exclude-standard"], in: repositoryRoot).stdout
            .split(separator: "\n").map(String.init)
        try #require(files.contains("Package.swift"))
        for file in files where manager.fileExists(atPath: repositoryRoot.appendingPathComponent(file).path) {
            let target = library.appendingPathComponent(file)
            try manager.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try manager.copyItem(at: repositoryRoot.appendingPathComponent(file), to: target)
        }
        _ = try git(["add", "-A"], in: library)
        _ = try git(["commit", "-q", "--allow-empty", "-m", "snapshot"], in: library)
        // The manifest's version, one patch higher each run, so the dependency resolves
        // to this run's commit.
        let version = try #require(Self.libraryVersion().split(separator: ".").compactMap { Int($0) } as [Int]?)
        try #require(version.count == 3)
        let commits = try #require(Int(try git(["rev-list", "--count", "HEAD"], in: library).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)))
        let tag = "\(version[0]).\(version[1]).\(version[2] + commits)"
        _ = try git(["tag", "-f", tag], in: library)

        // The example, depending by URL and version.
        if manager.fileExists(atPath: example.path) { try manager.removeItem(at: example) }
        try manager.createDirectory(at: example, withIntermediateDirectories: true)
        try manager.copyItem(at: Self.example.appendingPathComponent("Sources"), to: example.appendingPathComponent("Sources"))
        let manifest = try String(contentsOf: Self.example.appendingPathComponent("Package.swift"), encoding: .utf8)
        let byPath = #".package(name: "WidgetSim", path: "../..")"#
        try #require(manifest.contains(byPath))
        try manifest.replacingOccurrences(
            of: byPath, with: #".package(url: "\#(library.absoluteString)", from: "\#(version[0]).\#(version[1]).0")"#)
            .write(to: example.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        let scratch = root.appendingPathComponent("build")
        // `update` fetches the tag made above into SwiftPM's clone kept in `scratch`
        // (a plain build would resolve against the tags it fetched on an earlier run).
        let update = try execute(["swift", "package", "--package-path", example.path, "--scratch-path", scratch.path, "update"])
        try #require(update.status == 0, "swift package update failed:\n\(update.stdout)\n\(update.stderr)")
        let build = try execute(["swift", "build", "--package-path", example.path, "--scratch-path", scratch.path,
                                 "--disable-build-manifest-caching"])
        try #require(build.status == 0, "swift build of the versioned example failed:\n\(build.stdout)\n\(build.stderr)")
        let resolved = try String(contentsOf: example.appendingPathComponent("Package.resolved"), encoding: .utf8)
        #expect(resolved.contains("\"version\" : \"\(tag)\""), "resolved to another version:\n\(resolved)")
        let listing = try execute([scratch.appendingPathComponent("debug/custom-widgetsim").path, "policies"])
        #expect(listing.status == 0)
        #expect(listing.stdout.contains("idle_saver  (added by this program)"))
    }

    /// `WidgetSimVersion.current`, read from its source.
    static func libraryVersion() throws -> String {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent("Sources/Execution/Parts/RunManifest.swift"),
                              encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.contains("public static let current = ") })
        return String(line.split(separator: "\"")[1])
    }

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
        // Each name looked for after the one before (the budget ceiling and the ranking
        // ceiling are both `oracle`): found in turn when the listing has them in this order.
        var from = text.startIndex
        let order = ["daily_quota", "standby_buckets", "oracle", "idle_saver", "RANKING POLICIES", "oracle", "last_tapped"]
            .map { name -> Int in
                guard let r = text.range(of: name, range: from ..< text.endIndex) else { return -1 }
                from = r.upperBound
                return text.distance(from: text.startIndex, to: r.lowerBound)
            }
        #expect(!order.contains(-1), "built-ins first, then the added policies: \(order)")

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
        // Every refusal of idle_saver carries its declared code, min_spacing, and the
        // refusals by code add up to the requests it denied or deferred.
        let reasons = try csvRows(out.appendingPathComponent("reasons.csv"))
        for budget in ["idle_saver", "idle_saver_strict"] {
            let refusals = reasons.filter { $0["budget"] == budget && $0["kind"] == "refusal" && $0["warmup"] == "0" }
            let byCode = Dictionary(grouping: refusals, by: { $0["reason"] ?? "" })
                .mapValues { $0.reduce(0) { $0 + (Double($1["count"] ?? "") ?? .nan) } }
            #expect(byCode["min_spacing"] ?? 0 > 0, "\(budget): \(byCode)")
            #expect(byCode.filter { $0.key != "min_spacing" }.values.allSatisfy { $0 == 0 }, "\(budget): \(byCode)")
            #expect(byCode["min_spacing"] == total("requests_denied", budget: budget) + total("requests_deferred", budget: budget))
        }
        // static never rotates the stack; last_tapped does once something was tapped.
        #expect(total("rotations_per_day", ranking: "static") == 0)
        #expect(total("rotations_per_day", ranking: "last_tapped") > 0)
    }
}
