import Foundation
import Testing

/// The Slurm scripts, run for real: `scripts/slurm/test-local` installs slurm-wlm and
/// munge when they are missing, starts munged, slurmctld and slurmd on a one-node
/// cluster in a temporary folder, submits `scenarios/tiny.yaml` as 4 shards and the
/// dependent merge, and compares the merged report with the single-process one. It
/// needs root (or passwordless sudo); without, the test is skipped and says why.
@Suite struct SlurmTests {
    /// Whether this user may start the daemons: root, or passwordless sudo.
    static let mayStartDaemons: Bool = {
        if getuid() == 0 { return true }
        return (try? run("/usr/bin/env", ["sudo", "-n", "true"], output: nil)) == 0
    }()

    @Test(
        "4 shards and their merge on a one-node Slurm cluster equal the single-process run",
        .enabled(if: mayStartDaemons, "needs root or passwordless sudo to start munged, slurmctld and slurmd"),
        .timeLimit(.minutes(10)))
    func shardsOnSlurmMergeToTheSingleProcessReport() throws {
        let binary = try #require(Self.widgetsimBinary(), """
            no widgetsim binary beside the test bundle (looked in \(Self.buildFolders.map(\.path))); \
            build it first: swift build --build-tests
            """)
        let log = temporaryFolder().appendingPathComponent("test-local.log")
        defer { try? FileManager.default.removeItem(at: log.deletingLastPathComponent()) }
        let script = repositoryRoot.appendingPathComponent("scripts/slurm/test-local").path

        let status = try Self.run(script, [binary.path], output: log)
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        switch status {
        case 0:
            #expect(output.contains("PASS:"), "test-local exited 0 without saying PASS:\n\(output)")
        case 77:
            let reason = output.split(separator: "\n").last { $0.hasPrefix("SKIP:") }.map(String.init)
            try Test.cancel(Comment(rawValue: reason ?? "scripts/slurm/test-local skipped:\n\(output)"))
        default:
            Issue.record("scripts/slurm/test-local exited \(status):\n\(output)")
        }
    }

    /// The folders that may hold the `widgetsim` built with these tests: the test
    /// bundle's own folder (`.build/<triple>/debug/`), however the runner was started.
    static var buildFolders: [URL] {
        var folders: [URL] = []
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        if exe.path != "/proc/self/exe" { folders.append(exe.deletingLastPathComponent()) }
        if let url = Bundle.main.executableURL { folders.append(url.resolvingSymlinksInPath().deletingLastPathComponent()) }
        folders.append(Bundle.main.bundleURL.resolvingSymlinksInPath())
        folders.append(Bundle.main.bundleURL.resolvingSymlinksInPath().deletingLastPathComponent())
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            folders.append(bundle.bundleURL.resolvingSymlinksInPath().deletingLastPathComponent())
        }
        var seen = Set<String>()
        return folders.filter { seen.insert($0.path).inserted }
    }

    static func widgetsimBinary() -> URL? {
        buildFolders.map { $0.appendingPathComponent("widgetsim") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Runs `executable` with `arguments` from the repository's root, standard input
    /// empty, standard output and error into `output` (or nowhere); returns its exit status.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], output: URL?) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = repositoryRoot
        process.standardInput = FileHandle.nullDevice
        // A file rather than a pipe: the daemons the script starts in the background
        // must not hold the test's pipe open, and the output may be long.
        let sink: FileHandle
        if let output {
            _ = FileManager.default.createFile(atPath: output.path, contents: nil)
            sink = try FileHandle(forWritingTo: output)
        } else {
            sink = FileHandle.nullDevice
        }
        defer { if output != nil { try? sink.close() } }
        process.standardOutput = sink
        process.standardError = sink
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
