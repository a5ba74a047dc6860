import Foundation
import Testing

/// `widgetsim batch` draws each scenario's page, and its combined comparison.csv names
/// the run of every row.
@Suite struct BatchPageTests {
    @Test func eachScenarioOfABatchHasItsPage() throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("widgetsim-batch-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let out = work.appendingPathComponent("batch")
        let scenarios = ["tiny.yaml", "validation/evening-freeze.yaml"].map { repositoryRoot.appendingPathComponent("scenarios/" + $0).path }
        let r = try widgetsim(["batch"] + scenarios + ["--people", "2", "--days", "2", "--warmup-days", "0", "--out", out.path, "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let folders = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { !$0.contains(".") }.sorted()
        #expect(folders.count == 2, "\(folders)")
        for folder in folders {
            #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent(folder + "/report.html").path), "\(folder)")
        }
        // The combined comparison keeps each row's run id.
        let comparison = try String(contentsOf: out.appendingPathComponent("comparison.csv"), encoding: .utf8)
        let lines = comparison.split(separator: "\n")
        #expect(lines.first?.hasPrefix("run_id,scenario,") == true)
        let ids = Set(lines.dropFirst().map { $0.split(separator: ",")[0] })
        #expect(ids.count == 2 && ids.allSatisfy { $0.count == 17 }, "\(ids)")
        // --no-report leaves the pages out.
        let bare = work.appendingPathComponent("bare")
        let s = try widgetsim(["batch", scenarios[0], "--people", "2", "--days", "1", "--out", bare.path, "--quiet", "--no-report"])
        #expect(s.status == 0, "\(s.stderr)")
        #expect(!FileManager.default.fileExists(atPath: bare.appendingPathComponent("tiny/report.html").path))
    }
}
