import Foundation
import Testing
@testable import WidgetSimReports

/// `--trace` replaces nothing it should not, a resumed traced run completes its trace,
/// a report folder holds one run's files, and the small words of the command line.
extension CommandLineSafetyTests {
    func copyOfTiny(in folder: URL) throws -> String {
        let path = folder.appendingPathComponent("x.yaml").path
        try FileManager.default.copyItem(atPath: repositoryRoot.appendingPathComponent("scenarios/tiny.yaml").path, toPath: path)
        return path
    }

    @Test func theTraceNeverReplacesTheScenarioOrAReport() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let scenario = try copyOfTiny(in: folder)
        let before = try String(contentsOfFile: scenario, encoding: .utf8)
        let out = folder.appendingPathComponent("out").path
        // The scenario file being run, even with --force.
        var r = try run(["run", scenario, "--out", out, "--quiet", "--no-report", "--force", "--trace", scenario])
        #expect(r.status == 2)
        #expect(r.output == "widgetsim: --trace \(scenario) is the scenario file being run; give the trace another name\n")
        #expect(try String(contentsOfFile: scenario, encoding: .utf8) == before)
        // A report of the run's own folder.
        r = try run(["run", scenario, "--out", out, "--quiet", "--no-report", "--trace", out + "/summary.csv"])
        #expect(r.status == 2)
        #expect(r.output.hasPrefix("widgetsim: --trace \(out)/summary.csv is \(resolvedPath(out))/summary.csv, where the run writes its report"), "\(r.output)")
        // An existing file: only with --force.
        let existing = folder.appendingPathComponent("trace.csv").path
        try "keep me".write(toFile: existing, atomically: true, encoding: .utf8)
        r = try run(["run", scenario, "--out", out, "--quiet", "--no-report", "--trace", existing])
        #expect(r.status == 2)
        #expect(r.output == "widgetsim: --trace \(existing) exists; add --force to replace it, or give the trace another name\n")
        #expect(try String(contentsOfFile: existing, encoding: .utf8) == "keep me")
        r = try run(["run", scenario, "--out", out, "--quiet", "--no-report", "--trace", existing, "--force"])
        #expect(r.status == 0, "\(r.output)")
        #expect(try String(contentsOfFile: existing, encoding: .utf8).hasPrefix("run_id,scenario,budget,ranking,replication,seed,time_seconds"))
    }

    @Test func theTraceNeverReplacesALinkOrADevice() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out").path
        let target = folder.appendingPathComponent("target.txt").path
        try "keep me".write(toFile: target, atomically: true, encoding: .utf8)
        let link = folder.appendingPathComponent("link.csv").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        var r = try run(["run", "scenarios/tiny.yaml", "--out", out, "--quiet", "--no-report", "--force", "--trace", link])
        #expect(r.status == 2)
        #expect(r.output == "widgetsim: --trace \(link) is a symbolic link (the trace would replace the link, not its target); give the path of the file itself\n")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == target)
        r = try run(["run", "scenarios/tiny.yaml", "--out", out, "--quiet", "--no-report", "--force", "--trace", "/dev/null"])
        #expect(r.status == 2)
        #expect(r.output.contains("is a device or a socket, not a regular file"), "\(r.output)")
    }

    @Test func theTraceStreamsToAPipeAndToStandardOutput() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out").path
        let whole = folder.appendingPathComponent("whole.csv").path
        _ = try run(["run", "scenarios/tiny.yaml", "--out", out, "--quiet", "--no-report", "--trace", whole])
        let expected = try String(contentsOfFile: whole, encoding: .utf8)
        // `-`: the trace alone on standard output (the run's lines go to standard error).
        let binary = try #require(SlurmTests.widgetsimBinary()?.path)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["run", "scenarios/tiny.yaml", "--out", out, "--no-report", "--force", "--trace", "-"]
        process.currentDirectoryURL = repositoryRoot
        let stdout = folder.appendingPathComponent("stdout.txt"), stderr = folder.appendingPathComponent("stderr.txt")
        for url in [stdout, stderr] { _ = FileManager.default.createFile(atPath: url.path, contents: nil) }
        process.standardOutput = try FileHandle(forWritingTo: stdout)
        process.standardError = try FileHandle(forWritingTo: stderr)
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(try String(contentsOf: stdout, encoding: .utf8) == expected)
        #expect(try String(contentsOf: stderr, encoding: .utf8).contains("reports written to"))
        // A named pipe stays a pipe, and its reader gets the trace.
        let fifo = folder.appendingPathComponent("pipe").path
        #expect(mkfifo(fifo, 0o644) == 0)
        final class Box: @unchecked Sendable { var data = Data() }
        let box = Box()
        let reader = Thread { box.data = FileHandle(forReadingAtPath: fifo)?.readDataToEndOfFile() ?? Data() }
        reader.start()
        let p = try run(["run", "scenarios/tiny.yaml", "--out", out, "--quiet", "--no-report", "--force", "--trace", fifo])
        #expect(p.status == 0, "\(p.output)")
        while !reader.isFinished { Thread.sleep(forTimeInterval: 0.01) }
        #expect(String(decoding: box.data, as: UTF8.self) == expected)
        var info = stat()
        #expect(lstat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
    }

    /// A traced run stopped after some blocks, and finished as it says with --resume:
    /// the trace holds every event, as the trace of a run never stopped.
    @Test func aResumedTracedRunCompletesTheTrace() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // A run that finishes before the signal leaves nothing to resume: it is tried
        // again with four times the people, and the test fails if none is stopped.
        for people in [100, 400, 1_600] {
            let out = folder.appendingPathComponent("out-\(people)").path
            let whole = folder.appendingPathComponent("whole-\(people).csv").path
            let common = ["run", "scenarios/tiny.yaml", "--people", "\(people)", "--quiet", "--no-report"]
            let trace = folder.appendingPathComponent("trace-\(people).csv").path
            let r = try run(common + ["--out", out, "--trace", trace]) {
                FileManager.default.fileExists(atPath: out + "/parts/r0-b0.counts")
            }
            if r.status == 0 { continue }
            _ = try run(common + ["--out", folder.appendingPathComponent("ref-\(people)").path, "--trace", whole])
            try checkResume(r, out: out, trace: trace, whole: whole, common: common)
            return
        }
        Issue.record("every run finished before the signal: nothing was resumed")
    }

    /// The rest of `aResumedTracedRunCompletesTheTrace`, for a run stopped with `r`.
    func checkResume(_ stopped: Result, out: String, trace: String, whole: String, common: [String]) throws {
        var r = stopped
        #expect(r.status == 130, "\(r.output)")
        #expect(!FileManager.default.fileExists(atPath: trace))
        r = try run(common + ["--out", out, "--trace", trace, "--resume"])
        #expect(r.status == 0, "\(r.output)")
        #expect(r.output.contains("the trace must hold every event: the "), "\(r.output)")
        #expect(try String(contentsOfFile: trace, encoding: .utf8) == String(contentsOfFile: whole, encoding: .utf8))
    }

    @Test func aFinishedRunIsNotResumedForItsTrace() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out").path
        _ = try run(["run", "scenarios/tiny.yaml", "--out", out, "--quiet", "--no-report"])
        let trace = folder.appendingPathComponent("t.csv").path
        let r = try run(["run", "scenarios/tiny.yaml", "--out", out, "--quiet", "--no-report", "--trace", trace, "--resume"])
        #expect(r.status == 2)
        #expect(r.output.contains("and --resume does not write its trace: run without --resume and with --force"), "\(r.output)")
    }

    @Test func aReplacedReportLeavesNoFileOfTheEarlierRun() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out").path
        // An earlier report with every file, a page stand-in and batches.csv.
        _ = try run(["run", "scenarios/tiny.yaml", "--out", out, "--quiet", "--no-report"])
        try "<html></html>".write(toFile: out + "/report.html", atomically: true, encoding: .utf8)
        // The same run without widget_days.csv would lose it: refused without --force.
        var r = try run(["run", "scenarios/tiny.yaml", "--out", out, "--quiet", "--no-report", "--no-widget-days"])
        #expect(r.status == 2)
        #expect(r.output.contains("holds a finished report with widget_days.csv, which this run (--no-widget-days) would not write; add --force"), "\(r.output)")
        #expect(FileManager.default.fileExists(atPath: out + "/widget_days.csv"))
        // Another run, forced: only its own files remain.
        r = try run(["run", "scenarios/tiny.yaml", "--out", out, "--quiet", "--no-report", "--no-widget-days", "--force",
                     "--seed", "3", "--replications", "2"])
        #expect(r.status == 0, "\(r.output)")
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: out))
        #expect(names == ["summary.csv", "daily.csv", "comparison.csv", "reasons.csv", "schema.json", "run.json"])
    }

    @Test func aMergeDoesNotReplaceAnotherRunsReport() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let shards = (0 ..< 2).map { folder.appendingPathComponent("s\($0)").path }
        for (k, shard) in shards.enumerated() {
            _ = try run(["run", "scenarios/tiny.yaml", "--shard", "\(k)/2", "--out", shard, "--quiet"])
        }
        let out = folder.appendingPathComponent("out").path
        _ = try run(["run", "scenarios/tiny.yaml", "--seed", "9", "--out", out, "--quiet", "--no-report"])
        let before = try String(contentsOfFile: out + "/summary.csv", encoding: .utf8)
        var r = try run(["merge"] + shards + ["--out", out, "--quiet", "--no-report"])
        #expect(r.status == 2)
        #expect(r.output == "widgetsim merge: \(out) holds the finished report of another run (scenario `tiny`, finished \(try finishedTime(out))); add --force to replace it, or give another --out folder to keep both\n")
        #expect(try String(contentsOfFile: out + "/summary.csv", encoding: .utf8) == before)
        r = try run(["merge"] + shards + ["--out", out, "--quiet", "--no-report", "--force"])
        #expect(r.status == 0, "\(r.output)")
    }

    func finishedTime(_ out: String) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: out + "/run.json"))
        return (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["finished"] as? String ?? "?"
    }

    func resolvedPath(_ path: String) -> String {
        guard let real = realpath(URL(fileURLWithPath: path).deletingLastPathComponent().path, nil) else { return path }
        defer { free(real) }
        return String(cString: real) + "/" + URL(fileURLWithPath: path).lastPathComponent
    }

    @Test func smallWordsOfTheCommandLine() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var r = try run(["run", "scenarios/tiny.yaml", "--set", "nope.x=3", "--quiet"])
        #expect(r.status == 2)
        #expect(!r.output.contains("did you mean `nope`"), "\(r.output)")
        r = try run(["run", "scenarios/tiny.yaml", "--sweep", "budgets.quota12.per_day=1..2:1e-300", "--points"])
        #expect(r.status == 2)
        #expect(!r.output.contains("not positive") && !r.output.contains("must be positive"), "\(r.output)")
        #expect(r.output.contains("use at most 9 decimals in a range; `1e-300` has 300"), "\(r.output)")
        r = try run(["run", "scenarios/tiny.yaml", "--point", "-1", "--quiet"])
        #expect(r.status == 2, "\(r.output)")
        r = try run(["compare", folder.path, "foo", "bar"])
        #expect(r.status == 2)
        #expect(r.output == "widgetsim compare: a pair is BUDGET/RANKING, e.g. daily_quota/static; got `foo`\n")
        r = try run(["run", "scenarios/tiny.yaml", "--threads", "0", "--quiet"])
        #expect(r.status == 2, "\(r.output)")
        // --out that is empty, a dangling link, a loop of links, a name with a line break.
        r = try run(["run", "scenarios/tiny.yaml", "--out", "", "--quiet"])
        #expect(r.status == 2)
        #expect(r.output == "widgetsim: --out is empty; give --out a folder (it is created when missing)\n")
        let dangling = folder.appendingPathComponent("dangling").path
        try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: folder.appendingPathComponent("nowhere").path)
        r = try run(["run", "scenarios/tiny.yaml", "--out", dangling, "--quiet"])
        #expect(r.status == 2)
        #expect(r.output == "widgetsim: --out \(dangling) is a symbolic link to nothing (a dangling link); give --out a folder, or remove the link\n")
        let loop = folder.appendingPathComponent("loop").path
        try FileManager.default.createSymbolicLink(atPath: loop, withDestinationPath: loop)
        r = try run(["run", "scenarios/tiny.yaml", "--out", loop, "--quiet"])
        #expect(r.output == "widgetsim: --out \(loop) is a loop of symbolic links; give --out a folder, or remove the link\n")
        let broken = folder.appendingPathComponent("a\nb").path
        try "x".write(toFile: broken, atomically: true, encoding: .utf8)
        r = try run(["run", "scenarios/tiny.yaml", "--out", broken, "--quiet"])
        #expect(r.status == 2)
        #expect(r.output == "widgetsim: --out \(folder.path)/a\\nb is a file, not a folder; give --out a folder (it is created when missing)\n")
    }

    @Test func compareAndReportRefuseADamagedSummary() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out").path
        _ = try run(["run", "scenarios/tiny.yaml", "--out", out, "--quiet", "--no-report", "--no-widget-days"])
        let url = URL(fileURLWithPath: out + "/summary.csv")
        var rows = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        rows[1][10] = "nan"
        try (rows.map { $0.joined(separator: ",") }.joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
        var r = try run(["compare", out, "unlimited/static", "daily_quota/static"])
        #expect(r.status == 2)
        #expect(r.output == "widgetsim compare: cannot read \(url.path): row 1: `views` is `nan`, not a number\n")
        r = try run(["report", out])
        #expect(r.status == 2)
        #expect(r.output.contains("summary.csv:2: `views` is `nan`, not a number"), "\(r.output)")
    }
}

extension CommandLineSafetyTests {
    /// A closed terminal (SIGHUP) stops a run as Ctrl-C does: resumable, and it says how.
    @Test func aHangUpSaysHowToResume() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out").path
        let r = try run(["run", "scenarios/default.yaml", "--people", "400", "--threads", "1", "--out", out, "--quiet",
                         "--no-widget-days"], signal: SIGHUP) {
            FileManager.default.fileExists(atPath: out + "/parts/r0-b0.counts")
        }
        #expect(r.status == 129, "\(r.output)")
        #expect(r.output.contains("widgetsim: interrupted (SIGHUP) after "), "\(r.output)")
        #expect(r.output.contains("widgetsim: finish the run with: widgetsim run scenarios/default.yaml --people 400"), "\(r.output)")
    }

    /// A grid of 10⁹ points is refused at once, in the loader's words, not listed.
    @Test func pointsRefusesAGridBeyondItsBound() throws {
        let r = try run(["run", "scenarios/tiny.yaml", "--sweep", "budgets.daily_quota.per_day=1..1000:1",
                         "--sweep", "seed=1..1000:1", "--sweep", "days=1..1000:1", "--points"])
        #expect(r.status == 2)
        #expect(r.output.contains("more than the 100000 that --points lists; list fewer values, or name one point with --point K"), "\(r.output)")
    }
}
