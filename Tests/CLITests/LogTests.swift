import Foundation
import Testing

/// `widgetsim log` end to end: a scenario's people written as a log that `calibrate`
/// reads back, and bad input refused with its reason and exit status 2.
@Suite struct LogTests {
    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("widgetsim-log-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func aScenariosPeopleCalibrateBackToIt() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let scenario = repositoryRoot.appendingPathComponent("scenarios/validation/log-people.yaml").path
        let log = folder.appendingPathComponent("sub/people.csv").path
        let outcome = try widgetsim(["log", scenario, "--format", "csv", "--people", "30", "--days", "14", "--out", log])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.hasPrefix("Wrote \(log): 30 people × 14 days, "))
        #expect(outcome.stdout.contains("Its app names (for --app and trace: apps): Gmail, Weather, News."))
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.first == "person,start,end,app,kind")
        #expect(try !FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("sub").path).contains { $0.hasSuffix(".tmp") })

        let calibrated = folder.appendingPathComponent("calibrated.yaml").path
        let fit = try widgetsim(["calibrate", log, "--format", "csv", "--app", "mail=Gmail", "--app", "weather=Weather",
                                 "--app", "news=News", "--out", calibrated])
        #expect(fit.status == 0, "\(fit.stderr)")
        #expect(fit.stderr.isEmpty, "no line of the log is skipped: \(fit.stderr)")
        #expect(fit.stdout.contains("The model fits: no test rejects it at the 0.1% level."), "\(fit.stdout)")
        // The scenario's 12 sessions and 60 views a day within their intervals.
        let yaml = try String(contentsOfFile: calibrated, encoding: .utf8)
        for (key, truth) in [("sessions_per_day", 12.0), ("views_per_day", 60.0)] {
            let line = try #require(yaml.split(separator: "\n").first { $0.hasPrefix("  \(key):") }.map(String.init))
            let interval = try #require(line.firstMatch(of: /mean: 95% interval ([0-9.]+) … ([0-9.]+)/))
            #expect(Double(interval.1)! <= truth && truth <= Double(interval.2)!, "\(line)")
        }
        // Donations: 0.7 within about 4 standard errors (the 95% interval's whole width),
        // as a single 95% interval misses one seed in twenty.
        let donation = try #require(yaml.firstMatch(of: /donation_probability: ([0-9.]+) +# 95% interval ([0-9.]+) … ([0-9.]+)/))
        #expect(abs(Double(donation.1)! - 0.7) <= Double(donation.3)! - Double(donation.2)!, "\(donation.0)")
    }

    @Test func badInputIsRefusedWithItsReason() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let tiny = repositoryRoot.appendingPathComponent("scenarios/tiny.yaml").path
        let out = folder.appendingPathComponent("x.tsv").path
        let cases: [([String], String)] = [
            (["log", tiny, "--format", "tsv", "--out", out], "--format is lsapp or csv; got `tsv`"),
            (["log", tiny, "--format", "lsapp", "--burst", "1.5", "--out", out], "--burst is a probability 0…1; got 1.5"),
            (["log", tiny, "--format", "lsapp", "--people", "0", "--out", out], "--people is a whole number 1…10000000; got 0"),
            (["log", folder.appendingPathComponent("none.yaml").path, "--format", "lsapp", "--out", out], "none.yaml"),
            (["log", repositoryRoot.appendingPathComponent("scenarios/logs/replay.yaml").path, "--format", "lsapp", "--out", out],
             "replays a usage log (`trace:`)"),
        ]
        for (arguments, message) in cases {
            let outcome = try widgetsim(arguments)
            #expect(outcome.status == 2, "\(arguments): \(outcome.status)")
            #expect(outcome.stderr.contains(message), "\(arguments): \(outcome.stderr)")
            #expect(!outcome.stderr.contains("Fatal error"))
        }
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
