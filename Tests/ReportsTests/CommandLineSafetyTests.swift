import Foundation
import Testing

/// The `widgetsim` command on odd paths and interruptions, and the fuzzer's fixed-seed
/// sample: run as a user would, through the built binary.
@Suite struct CommandLineSafetyTests {
    struct Result {
        var status: Int32
        var output: String
    }

    /// Runs the built `widgetsim` (or `program`) with `arguments`; sends `signal` (SIGINT)
    /// once `signalWhen` holds.
    func run(_ arguments: [String], program: String? = nil, signal: Int32 = SIGINT,
             signalWhen: (() -> Bool)? = nil) throws -> Result {
        guard let binary = program ?? SlurmTests.widgetsimBinary()?.path else {
            try Test.cancel("skipped: the widgetsim binary was not found beside the tests")
        }
        let log = temporaryFolder().appendingPathComponent("output.txt")
        defer { try? FileManager.default.removeItem(at: log.deletingLastPathComponent()) }
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let sink = try FileHandle(forWritingTo: log)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.currentDirectoryURL = repositoryRoot
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = sink
        process.standardError = sink
        try process.run()
        if let signalWhen {
            while process.isRunning && !signalWhen() { Thread.sleep(forTimeInterval: 0.05) }
            kill(process.processIdentifier, signal)
        }
        process.waitUntilExit()
        try sink.close()
        return Result(status: process.terminationStatus, output: try String(contentsOf: log, encoding: .utf8))
    }

    @Test func outNamingARegularFileIsRefusedInPlainWords() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("report.csv")
        try "keep me".write(to: file, atomically: true, encoding: .utf8)
        let r = try run(["run", "scenarios/tiny.yaml", "--out", file.path, "--quiet"])
        #expect(r.status == 2)
        #expect(r.output == "widgetsim: --out \(file.path) is a file, not a folder; give --out a folder (it is created when missing)\n")
        #expect(try String(contentsOf: file, encoding: .utf8) == "keep me")
    }

    /// `run` deletes its parts while it draws the report page, and exits only once they
    /// are gone: the folder holds the reports and nothing hidden but the lock.
    @Test func aFinishedRunLeavesNoPartsBehind() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out")
        let r = try run(["run", "scenarios/tiny.yaml", "--out", out.path, "--quiet", "--no-report"])
        #expect(r.status == 0, "\(r.output)")
        let names = try FileManager.default.contentsOfDirectory(atPath: out.path)
        #expect(!names.contains("parts") && names.filter { $0.hasPrefix(".") }.isEmpty, "\(names)")
        #expect(names.contains("widget_days.csv") && names.contains("run.json"))
    }

    @Test func anInterruptedRunSaysHowToResume() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out").path
        // Long enough to be running when the signal comes, even on a fast machine.
        let r = try run(["run", "scenarios/default.yaml", "--people", "400", "--threads", "1", "--out", out, "--quiet",
                         "--no-widget-days"]) {
            // Once a block is finished: the run is under way, its signal handlers installed.
            FileManager.default.fileExists(atPath: out + "/parts/r0-b0.counts")
        }
        #expect(r.status == 130, "\(r.output)")
        #expect(r.output.contains("widgetsim: interrupted (Ctrl-C) after "), "\(r.output)")
        #expect(r.output.contains("widgetsim: finish the run with: widgetsim run scenarios/default.yaml --people 400 --threads 1 --out \(out) --quiet --no-widget-days --resume"), "\(r.output)")
        #expect(FileManager.default.fileExists(atPath: out + "/parts/manifest.json"))
        // The rerun without --resume asks instead of discarding finished blocks.
        let again = try run(["run", "scenarios/default.yaml", "--people", "400", "--threads", "1", "--out", out, "--quiet",
                             "--no-widget-days"])
        #expect(again.status == 2)
        #expect(again.output.contains("add --resume to finish that run, or --force to discard them"), "\(again.output)")
    }

    @Test func aScenarioPathThatIsAPipeIsRefused() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent("pipe.yaml").path
        #expect(mkfifo(fifo, 0o644) == 0)
        let r = try run(["validate", fifo])
        #expect(r.status == 2)
        #expect(r.output == "\(fifo):0:0: (file): is a named pipe (FIFO), not a scenario file; save the scenario to a file first\n")
    }

    /// A fixed-seed sample of the fuzzer: no crash, no hang, every refusal located; odd
    /// command lines change no kept file; tampered folders give no silent wrong result.
    @Test func fuzzSampleFindsNothing() throws {
        guard let binary = SlurmTests.widgetsimBinary()?.path else {
            try Test.cancel("skipped: the widgetsim binary was not found beside the tests")
        }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else {
            try Test.cancel("skipped: scripts/fuzz needs python3")
        }
        let keep = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: keep) }
        // The binary beside the tests is a debug build: it reads explore-default's study of
        // 192 points in about 0.8 s of CPU on an idle machine (a release build in 0.4 s),
        // and four checks at once on two cores push that past the fuzzer's 1 s.
        let r = try run(["scripts/fuzz", "--count", "300", "--commands", "60", "--folders", "30", "--seed", "2026", "--jobs", "4",
                         "--slow", "2.5", "--binary", binary, "--keep", keep.path], program: "/usr/bin/python3")
        #expect(r.status == 0, "\(r.output)")
        #expect(r.output.contains("validate crash                     0"), "\(r.output)")
        #expect(r.output.contains("refused (located)"), "\(r.output)")
        #expect(r.output.contains("accepted and ran"), "\(r.output)")
        #expect(r.output.contains("command crash                      0"), "\(r.output)")
        #expect(r.output.contains("command changed a kept file        0"), "\(r.output)")
        #expect(r.output.contains("folder silent wrong result         0"), "\(r.output)")
    }
}
