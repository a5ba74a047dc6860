import Foundation
import Testing

/// `widgetsim run --estimate` against the run it estimates, in a child process.
@Suite struct RunSizeTests {
    let tiny = repositoryRoot.appendingPathComponent("scenarios/tiny.yaml").path

    /// The figure after `label` in `--estimate`'s table.
    func figure(_ label: String, _ table: String) throws -> Double {
        let line = try #require(table.split(separator: "\n").first { $0.hasPrefix(label) }, "\(table)")
        let words = line.dropFirst(label.count).split(separator: " ")
        return try #require(Double(words[0].replacingOccurrences(of: ",", with: "")), "\(line)")
    }

    /// Peak memory as the run itself reports it (`peak memory 36.9 MB`).
    func peakMB(_ output: String) throws -> Double {
        let tail = try #require(output.range(of: "peak memory "), "\(output)")
        return try #require(Double(output[tail.upperBound...].prefix { $0 != " " }), "\(output)")
    }

    /// Long runs of one person a thread are mostly the person's days: the estimate is
    /// within a factor of 1.5 of the peak memory the run reaches (a debug build holds
    /// its data as a release build does).
    @Test(arguments: [(1, 1, 2500), (2, 2, 1500)])
    func peakMemoryIsEstimatedWithinAFactorOfOneAndAHalf(_ people: Int, _ threads: Int, _ days: Int) throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("widgetsim-size-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let options = ["--people", "\(people)", "--days", "\(days)", "--threads", "\(threads)", "--no-report"]
        let estimate = try widgetsim(["run", tiny, "--estimate"] + options)
        #expect(estimate.status == 0, "\(estimate.stderr)")
        let estimated = try figure("peak memory mb", estimate.stdout)
        #expect(try figure("events", estimate.stdout) > 1e6)
        let run = try widgetsim(["run", tiny, "--out", work.path] + options)
        #expect(run.status == 0, "\(run.stderr)")
        let measured = try peakMB(run.stdout)
        #expect(estimated <= 1.5 * measured && measured <= 1.5 * estimated,
                "\(people) people × \(days) days on \(threads) threads: estimated \(estimated) MB, measured \(measured) MB")
    }

    /// `--estimate` prints and stops: no folder is made, nothing runs.
    @Test func theEstimateIsPrintedWithoutRunning() throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("widgetsim-size-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let out = work.appendingPathComponent("out")
        let r = try widgetsim(["run", tiny, "--estimate", "--people", "10", "--days", "3", "--threads", "2", "--out", out.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try figure("person-days", r.stdout) == 10 * 3 * 4)
        #expect(r.stdout.contains("wall seconds") && r.stdout.contains("on 2 threads of an idle machine"), "\(r.stdout)")
        let parts = r.stdout.split(separator: "\n").filter { $0.hasPrefix("  ") }
        #expect(parts.count == 7, "\(r.stdout)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    /// 4·10¹⁶ person-days (issue 31) are refused before anything starts; `--estimate`
    /// still says how large the run is.
    @Test func anEnormousRunIsRefusedWithoutIKnow() throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("widgetsim-size-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let huge = ["--people", "10000000", "--days", "100000", "--replications", "10000", "--no-widget-days"]
        let r = try widgetsim(["run", tiny, "--out", work.path, "--threads", "2"] + huge)
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("this run is refused before it starts: it would need about"), "\(r.stderr)")
        #expect(r.stderr.contains("years on 2 threads"), "\(r.stderr)")
        #expect(r.stderr.contains("add --i-know to start it anyway"))
        #expect(!FileManager.default.fileExists(atPath: work.path))
        let size = try widgetsim(["run", tiny, "--estimate"] + huge)
        #expect(size.status == 0, "\(size.stderr)")
        #expect(try figure("person-days", size.stdout) == 4e16)
    }
}
