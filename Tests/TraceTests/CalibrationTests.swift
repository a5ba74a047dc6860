import Foundation
import Testing
import WidgetSimModel
import WidgetSimScenario
@testable import WidgetSimTrace

@Suite struct CalibrationTests {
    static let mapping = [(widget: "mail", app: "Gmail"), (widget: "weather", app: "Weather"), (widget: "news", app: "Google News")]

    /// One log made from `TrueModel` and its calibration, shared by the tests below.
    static let fitted: (model: TrueModel, result: TraceCalibrator.Result) = {
        let model = TrueModel()
        let path = try! temporaryFile("model.tsv", model.lsapp(seed: 34))
        let result = try! TraceCalibrator.calibrate(path: path, format: .lsapp, zone: TimeZone(identifier: "UTC"), apps: mapping)
        return (model, result)
    }()

    @Test func recoversTheParametersWithinTheirIntervals() throws {
        let (m, result) = Self.fitted
        let c = result.calibration
        #expect(result.warnings.isEmpty, "\(result.warnings)")
        #expect(c.people == m.people)
        #expect(c.personDays == Double(m.people * m.days))
        #expect(c.sessionsPerDay.contains(m.sessionsPerDay), "\(c.sessionsPerDay)")
        #expect(c.sessionsCV.contains(m.cv), "\(c.sessionsCV)")
        #expect(try #require(c.sessionMedianSeconds).contains(m.medianSeconds), "\(String(describing: c.sessionMedianSeconds))")
        #expect(try #require(c.sessionSigma).contains(m.sigma), "\(String(describing: c.sessionSigma))")
        // The profile: each hour's share of the day.
        let total = m.profile.reduce(0, +)
        let profileMisses = (0 ..< 24).filter { !c.sessionProfile[$0].contains(m.profile[$0] / total) }
        // Interest: the apps' shares at each hour (over the weekdays) and each weekday (over
        // the hours), fitted against true, within 4 standard errors of a share of that many.
        func trueShare(_ w: Int, _ h: Int, _ d: Int) -> Double {
            let l = (0 ..< 3).map { m.base[$0] * m.hourly[$0][h] * m.weekday[$0][d] }
            return l[w] / l.reduce(0, +)
        }
        var worst = 0.0
        for (w, fit) in c.widgets.enumerated() {
            for h in 0 ..< 24 {
                let fitted = (0 ..< 7).reduce(0.0) { $0 + fit.shares[$1 * 24 + h] } / 7
                let truth = (0 ..< 7).reduce(0.0) { $0 + trueShare(w, h, $1) } / 7
                let n = Double(c.hours[h].observed)
                worst = max(worst, abs(fitted - truth) / (truth * (1 - truth) / n).squareRoot())
            }
            for d in 0 ..< 7 {
                let weights = (0 ..< 24).map { m.profile[$0] / total }
                let fitted = (0 ..< 24).reduce(0.0) { $0 + weights[$1] * fit.shares[d * 24 + $1] }
                let truth = (0 ..< 24).reduce(0.0) { $0 + weights[$1] * trueShare(w, $1, d) }
                let n = Double(c.weekdays[d].observed)
                worst = max(worst, abs(fitted - truth) / (truth * (1 - truth) / n).squareRoot())
            }
        }
        #expect(worst < 4, "the worst share is \(worst) standard errors off")
        #expect(profileMisses.count <= 4, "profile misses at hours \(profileMisses)")
        // The log follows the model: no test rejects it.
        #expect(c.pValue > 0.001, "\(c.fitReport)")
        #expect(c.misfits.isEmpty, "\(c.misfits)")
    }

    @Test func theCalibratedScenarioReproducesTheLog() throws {
        let (_, result) = Self.fitted
        let c = result.calibration
        let yaml = c.scenarioYAML(name: "calibrated", source: "model.tsv", timeZone: "UTC")
        var s = try ScenarioLoader.parse(yaml: yaml, file: "calibrated.yaml")
        #expect(s.people == 1000)
        #expect(s.widgets.map(\.id) == ["mail", "weather", "news"])
        s.days = 14
        s.person.viewsPerDay = PerPersonRate(mean: 1, cv: 0)  // views play no part here
        let builder = try WorldBuilder(scenario: s)
        var byHour = [Double](repeating: 0, count: 24)
        var sessions = 0
        for person in 0 ..< s.people {
            let world = builder.build(person: person, replication: 0)
            sessions += world.sessions.count
            for session in world.sessions { byHour[Int(session.hour)] += 1 }
        }
        let simulated = Double(sessions) / Double(s.people * s.days)
        let logged = Double(c.sessions) / c.personDays
        #expect(abs(simulated / logged - 1) < 0.05, "simulated \(simulated), log \(logged) sessions a person-day")
        let observed = c.hours.map { Double($0.observed) }
        #expect(correlation(byHour, observed) > 0.95)
    }

    @Test func burstsAreNamed() throws {
        var model = TrueModel()
        model.people = 60
        model.days = 14
        model.burst = 0.5
        let path = try temporaryFile("bursty.tsv", model.lsapp(seed: 5))
        let c = try TraceCalibrator.calibrate(path: path, format: .lsapp, zone: TimeZone(identifier: "UTC"), apps: Self.mapping).calibration
        #expect(c.misfits.contains { $0.hasPrefix("Bursts: ") }, "\(c.misfits)")
        #expect(Double(c.shortGaps) > 3 * c.expectedShortGaps)
        #expect(c.fitReport.contains("Where the model cannot fit the log:"))
    }

    @Test func withoutAppsTheBusiestBecomeWidgets() throws {
        let path = try temporaryFile("small.tsv", TraceReaderTests.lsapp)
        let result = try TraceCalibrator.calibrate(path: path, format: .lsapp, zone: TimeZone(identifier: "Europe/Rome"), apps: [])
        #expect(result.apps.map(\.widget) == ["gmail", "weather", "google_news"])
        #expect(result.calibration.sessions == 5)
        // Two people: one over one day, one over another.
        #expect(result.calibration.personDays == 2)
        #expect(result.calibration.sessionsPerDay.value == 2.5)
    }

    @Test func aMappedAppThatNeverOccursIsSaid() throws {
        let path = try temporaryFile("small.tsv", TraceReaderTests.lsapp)
        let apps = [(widget: "mail", app: "Gmail"), (widget: "maps", app: "Maps")]
        let c = try TraceCalibrator.calibrate(path: path, format: .lsapp, zone: TimeZone(identifier: "Europe/Rome"), apps: apps).calibration
        #expect(c.widgets.map(\.id) == ["mail"])
        #expect(c.misfits.contains("The app \"Maps\" never occurs in the log: its widget is left out."))
        let none = [(widget: "maps", app: "Maps")]
        #expect(throws: CalibrationError.self) {
            try TraceCalibrator.calibrate(path: path, format: .lsapp, zone: TimeZone(identifier: "Europe/Rome"), apps: none)
        }
    }

    @Test func csvViewsAndDonationsAreFitted() throws {
        let path = try temporaryFile("small.csv", TraceReaderTests.csv)
        let c = try TraceCalibrator.calibrate(
            path: path, format: .csv, zone: TimeZone(identifier: "Europe/Rome"),
            apps: [(widget: "mail", app: "Mail"), (widget: "news", app: "News")]).calibration
        #expect(c.sessions == 2)
        #expect(c.views == 1)
        #expect(c.viewsPerDay?.value == 0.5)
        #expect(c.donationProbability?.value == 0.5)
        let yaml = c.scenarioYAML(name: "small", source: "small.csv", timeZone: "Europe/Rome")
        #expect(yaml.contains("  donation_probability: 0.5   # 95% interval"))
        #expect(yaml.contains("  views_per_day: {mean: 0.5, cv: "))
    }

    func correlation(_ a: [Double], _ b: [Double]) -> Double {
        let n = Double(a.count)
        let ma = a.reduce(0, +) / n, mb = b.reduce(0, +) / n
        var sab = 0.0, saa = 0.0, sbb = 0.0
        for i in a.indices {
            sab += (a[i] - ma) * (b[i] - mb)
            saa += (a[i] - ma) * (a[i] - ma)
            sbb += (b[i] - mb) * (b[i] - mb)
        }
        return sab / (saa * sbb).squareRoot()
    }
}
