import Foundation
import Testing

/// Runs without `--out` each write a folder of their own under reports/<scenario name>/,
/// and `latest` points at the last one finished; `--out` keeps its protection.
@Suite struct RunFolderTests {
    /// A fresh working folder holding the repository's `scenarios/`.
    func workingFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("widgetsim-runs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            at: folder.appendingPathComponent("scenarios"), withDestinationURL: repositoryRoot.appendingPathComponent("scenarios"))
        return folder
    }

    func entries(_ folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    @Test func runsWithoutOutNeverCollideAndLatestIsTheLastOne() throws {
        let work = try workingFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        // The demo's run, then the README's next command with other options, back to back.
        let first = try widgetsim(["run", "scenarios/tiny.yaml", "--no-report", "--quiet"], in: work)
        #expect(first.status == 0, "\(first.stderr)")
        let second = try widgetsim(["run", "scenarios/tiny.yaml", "--people", "2", "--no-report", "--quiet"], in: work)
        #expect(second.status == 0, "\(second.stderr)")
        // The same command again: a folder of its own too, not a replacement.
        let third = try widgetsim(["run", "scenarios/tiny.yaml", "--people", "2", "--no-report", "--quiet"], in: work)
        #expect(third.status == 0, "\(third.stderr)")

        let root = work.appendingPathComponent("reports/tiny")
        let names = try entries(root)
        let runs = names.filter { $0 != "latest" }
        #expect(names.contains("latest"))
        #expect(runs.count == 3, "\(names)")
        // <yyyyMMdd>-<HHmmss>-<run id: 8 hex digits>-<8 hex digits>[-k], the run id that run.json and every CSV row carry
        for run in runs {
            let parts = run.split(separator: "-")
            #expect(parts.count >= 4 && parts[0].count == 8 && parts[1].count == 6 && parts[2].count == 8 && parts[3].count == 8, "\(run)")
            let record = try String(contentsOf: root.appendingPathComponent(run).appendingPathComponent("run.json"), encoding: .utf8)
            #expect(record.contains("\"run_id\" : \"\(parts[2])-\(parts[3])\""), "\(run)")
            let summary = try String(contentsOf: root.appendingPathComponent(run).appendingPathComponent("summary.csv"), encoding: .utf8)
            #expect(summary.split(separator: "\n").dropFirst().allSatisfy { $0.hasPrefix("\(parts[2])-\(parts[3]),") })
        }
        // Each run's folder is the one its last line names; latest is the third.
        func folder(of outcome: Outcome) -> String? {
            outcome.stdout.split(separator: "\n").first { $0.hasPrefix("reports written to ") }
                .map { String($0.dropFirst("reports written to ".count).dropLast()) }
        }
        let target = try FileManager.default.destinationOfSymbolicLink(atPath: root.appendingPathComponent("latest").path)
        #expect(folder(of: third)?.hasSuffix("/" + target) == true, "\(third.stdout) latest → \(target)")
        #expect(folder(of: second) != folder(of: third))
        // The same scenario and options share the run id; other options have another.
        func id(_ outcome: Outcome) -> String? {
            folder(of: outcome)?.split(separator: "/").last.map { $0.split(separator: "-")[2 ... 3].joined(separator: "-") }
        }
        #expect(id(second) == id(third))
        #expect(id(first) != id(second))
        // Every run finished: reports, no parts, no lock file, no temporary link.
        for run in runs {
            let files = try entries(root.appendingPathComponent(run))
            #expect(files.contains("run.json") && files.contains("summary.csv"), "\(run): \(files)")
            #expect(!files.contains("parts") && !files.contains { $0.hasPrefix(".") }, "\(run): \(files)")
        }
        #expect(!names.contains { $0.hasPrefix(".") }, "\(names)")

        // reports/tiny stands for its latest run in `report` and `compare`.
        let compare = try widgetsim(["compare", "reports/tiny", "daily_quota/static", "unlimited/static"], in: work)
        #expect(compare.status == 0, "\(compare.stderr)")
        #expect(compare.stdout.contains("A = daily_quota × static"), "\(compare.stdout)")
        let people = try String(contentsOf: root.appendingPathComponent("latest/run.json"), encoding: .utf8)
        #expect(people.contains("\"people\" : 2"), "latest is not the run with --people 2")
    }

    @Test func anExplicitOutKeepsItsProtectionAndLeavesNoLock() throws {
        let work = try workingFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let first = try widgetsim(["run", "scenarios/tiny.yaml", "--no-report", "--quiet", "--out", "reports/mine"], in: work)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try !entries(work.appendingPathComponent("reports/mine")).contains { $0.hasPrefix(".") })
        let other = try widgetsim(["run", "scenarios/tiny.yaml", "--people", "2", "--no-report", "--quiet", "--out", "reports/mine"], in: work)
        #expect(other.status == 2)
        #expect(other.stderr.contains("holds the finished report of another run"), "\(other.stderr)")
        #expect(!FileManager.default.fileExists(atPath: work.appendingPathComponent("reports/tiny").path))
        let resume = try widgetsim(["run", "scenarios/tiny.yaml", "--resume"], in: work)
        #expect(resume.status == 2 && resume.stderr.contains("--out"), "\(resume.stderr)")
    }
}
