import Foundation
import Testing

/// `widgetsim calibrate` end to end: the shipped example log, and a broken one.
@Suite struct CalibrateTests {
    @Test func theExampleLogCalibratesToAValidScenario() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("widgetsim-calibrate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = repositoryRoot.appendingPathComponent("scenarios/logs/example.tsv").path
        let out = folder.appendingPathComponent("calibrated.yaml").path
        let outcome = try widgetsim([
            "calibrate", log, "--format", "lsapp", "--time-zone", "Europe/Rome",
            "--app", "mail=Gmail", "--app", "news=Google News", "--out", out,
        ])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.contains("widgets: mail=\"Gmail\", news=\"Google News\""))
        #expect(outcome.stdout.contains("hour  observed  expected  chi-square"))
        #expect(outcome.stdout.contains("Wrote \(out)."))
        let yaml = try String(contentsOfFile: out, encoding: .utf8)
        #expect(yaml.contains("  - id: news              # the log's \"Google News\""))
        #expect(yaml.contains("time_zone: Europe/Rome"))
        let validate = try widgetsim(["validate", out])
        #expect(validate.status == 0, "\(validate.stderr)")
        #expect(validate.stdout.contains("ok (calibrated: 1000 people × 14 days, 2 widgets, 2 policy pairs)"))
    }

    @Test func aBrokenLogIsLocatedAndNothingIsWritten() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("widgetsim-calibrate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("broken.tsv").path
        try Data("u\t1\t2026-03-02 08:00:00\tGmail\tOpened\nu\t1\t2026-03-02 8:01\tGmail\tClosed\n".utf8)
            .write(to: URL(fileURLWithPath: log))
        let out = folder.appendingPathComponent("c.yaml").path
        let outcome = try widgetsim(["calibrate", log, "--format", "lsapp", "--time-zone", "UTC", "--out", out])
        #expect(outcome.status == 2)
        #expect(outcome.stderr.hasPrefix("widgetsim calibrate: \(log):2: timestamp `2026-03-02 8:01` is not a timestamp"))
        #expect(!FileManager.default.fileExists(atPath: out))
        let format = try widgetsim(["calibrate", log, "--format", "tsv", "--out", out])
        #expect(format.status != 0)
        #expect(format.stderr.contains("--format is lsapp or csv; got `tsv`"))
    }
}
