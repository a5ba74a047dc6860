import Foundation
import Testing
import WidgetSimModel
import WidgetSimScenario
@testable import WidgetSimTrace

/// `widgetsim log`'s writer: the people of a scenario written as a log, read back and
/// calibrated, give the scenario's parameters back within their intervals.
@Suite struct SyntheticLogTests {
    static let scenarioFile: String = {
        var url = URL(fileURLWithPath: #filePath)
        while !FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
            url.deleteLastPathComponent()
        }
        return url.appendingPathComponent("scenarios/validation/log-people.yaml").path
    }()

    static let mapping = [(widget: "mail", app: "Gmail"), (widget: "weather", app: "Weather"), (widget: "news", app: "News")]

    /// The scenario's people (60 of them, 21 days) written as a log in `format`, and its calibration.
    static func calibrated(_ format: TraceFormat, burst: Double = 0, within: Int64 = SyntheticLog.burstWindowMs)
        throws -> (scenario: Scenario, summary: SyntheticLog.Summary, result: TraceCalibrator.Result)
    {
        var s = try ScenarioLoader.load(path: scenarioFile)
        s.people = 60
        s.days = 21
        let path = try temporaryFile("people." + (format == .csv ? "csv" : "tsv"), "")
        let summary = try SyntheticLog.write(scenario: s, file: scenarioFile, format: format, burst: burst,
                                             burstWindowMs: within, to: path)
        let result = try TraceCalibrator.calibrate(path: path, format: format, zone: TimeZone(identifier: s.timeZone),
                                                   apps: mapping)
        return (s, summary, result)
    }

    /// What every log of the person model must give back.
    func expectThePersonModel(_ s: Scenario, _ r: TraceCalibrator.Result) throws {
        let c = r.calibration
        #expect(c.people == s.people)
        #expect(c.days == s.days)
        #expect(c.sessionsPerDay.contains(s.person.sessionsPerDay.mean), "\(c.sessionsPerDay)")
        #expect(c.sessionsCV.contains(s.person.sessionsPerDay.cv), "\(c.sessionsCV)")
        let median = Double(s.person.sessionMedianMs) / 1000
        #expect(try #require(c.sessionMedianSeconds).contains(median), "\(String(describing: c.sessionMedianSeconds))")
        #expect(try #require(c.sessionSigma).contains(s.person.sessionSigma), "\(String(describing: c.sessionSigma))")
        let total = s.person.sessionProfile.reduce(0, +)
        let misses = (0 ..< 24).filter { !c.sessionProfile[$0].contains(s.person.sessionProfile[$0] / total) }
        #expect(misses.count <= 4, "the session profile misses at hours \(misses)")
        #expect(c.misfits.isEmpty, "\(c.misfits)")
    }

    @Test func anLSAppLogOfThePersonModelCalibratesBackToIt() throws {
        let (s, summary, r) = try Self.calibrated(.lsapp)
        #expect(r.warnings.isEmpty, "\(r.warnings)")
        #expect(summary.people == s.people)
        // Two lines a session, and the header.
        #expect(summary.lines == 2 * summary.sessions + 1)
        // Every session is read back but those left out where their app was opened again at once.
        #expect(r.calibration.sessions <= summary.sessions && r.calibration.sessions >= summary.sessions - summary.cut)
        try expectThePersonModel(s, r)
    }

    @Test func aCSVLogAlsoGivesDonationsAndViewsBack() throws {
        let (s, _, r) = try Self.calibrated(.csv)
        #expect(r.warnings.isEmpty, "\(r.warnings)")
        try expectThePersonModel(s, r)
        let c = r.calibration
        #expect(try #require(c.donationProbability).contains(s.person.donationProbability), "\(String(describing: c.donationProbability))")
        #expect(try #require(c.viewsPerDay).contains(s.person.viewsPerDay.mean), "\(String(describing: c.viewsPerDay))")
        #expect(try #require(c.viewsCV).contains(s.person.viewsPerDay.cv), "\(String(describing: c.viewsCV))")
    }

    @Test func burstsAreWhatCalibrationNamesAsBursts() throws {
        let (_, summary, r) = try Self.calibrated(.lsapp, burst: 0.5)
        let plain = try Self.calibrated(.lsapp).summary
        // About half the sessions start a burst; the drawn sessions are the same.
        let share = Double(summary.burstSessions) / Double(plain.sessions)
        #expect(abs(share - 0.5) < 0.03, "\(share)")
        #expect(summary.sessions == plain.sessions + summary.burstSessions)
        let c = r.calibration
        #expect(Double(c.shortGaps) > 4 * c.expectedShortGaps, "\(c.shortGaps) against \(c.expectedShortGaps)")
        #expect(c.misfits.contains { $0.hasPrefix("Bursts:") }, "\(c.misfits)")
        // Spread over two hours, the second sessions swing the days but make no bursts.
        let spread = try Self.calibrated(.lsapp, burst: 0.5, within: 7_200_000).result.calibration
        #expect(spread.misfits.contains { $0.hasPrefix("A person's sessions vary from day to day") }, "\(spread.misfits)")
        #expect(!spread.misfits.contains { $0.hasPrefix("Bursts:") }, "\(spread.misfits)")
    }

    @Test func aScenarioThatReplaysALogIsRefused() throws {
        var s = try ScenarioLoader.load(path: Self.scenarioFile)
        s.replay = ReplayedSessions(people: [], source: "x.tsv")
        let path = try temporaryFile("never.tsv", "")
        #expect(throws: SyntheticLog.Problem.self) {
            try SyntheticLog.write(scenario: s, file: "replay.yaml", format: .lsapp, burst: 0, to: path)
        }
    }
}
