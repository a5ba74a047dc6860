import Foundation
import Testing
import WidgetSimKernel
import WidgetSimSampling
@testable import WidgetSimModel

/// The loop that builds views whose λ depends on the local hour and weekday alone
/// (`WorldBuilder.buildViewsByHour`) against the general loop (`buildViewsOneByOne`): the
/// same records, field by field, the same λ of the members at each view, and the same
/// draws after them.
@Suite struct WorldViewsTests {
    static func records(_ s: Scenario, ownLoop: Bool, people: Int) throws -> [[String]] {
        let builder = try WorldBuilder(scenario: s)
        builder.viewsByHourInOwnLoop = ownLoop
        var rows: [[String]] = []
        for person in 0 ..< people {
            let w = builder.build(person: person, replication: 1)
            #expect(w.interestByHour == ownLoop, "the by-hour loop keeps one table of λ, the general loop a row per view")
            let n = s.stack.members.count
            rows.append(w.views.enumerated().map { i, v in
                // The members' λ at the view: the row of its hour and weekday, or its own.
                let row = w.interestByHour ? (Int(v.weekday) * 24 + Int(v.hour)) * n : i * n
                return "\(v.time) \(v.hour) \(v.weekday) \(v.wanted) \(v.wouldSwipe) \(v.wouldTap) "
                    + "\(v.bestChanceNano) \(v.wantedChanceNano) \(v.standBy) \(w.viewInterest[row ..< row + n])"
            })
            // The streams the views draw from are where the general loop leaves them.
            rows.append(["\(builder.stream(StreamProcess.wanted).uniform()) \(builder.stream(StreamProcess.feedback).uniform())"])
        }
        return rows
    }

    /// With `taus2` streams the by-hour loop draws the wanted members from the words
    /// (`wantedSteps`); with another generator (`mt19937`) from the uniforms.
    @Test(arguments: [
        (0.0, 0.0, 0.0, false, "UTC", GeneratorKind.taus2), (0.3, 0.6, 0.0, false, "UTC", .taus2),
        (1.0, 0.0, 0.4, true, "Europe/Berlin", .taus2), (0.5, 1.0, 2.0, true, "America/New_York", .taus2),
        (0.0, 0.0, 0.7, false, "Europe/Berlin", .mt19937),
    ])
    func theByHourLoopWritesTheGeneralLoopsRecords(
        swipe: Double, tap: Double, noInterest: Double, standBy: Bool, zone: String, generator: GeneratorKind
    ) throws {
        var s = try loadScenario("bench-reference.yaml")
        s.generator = generator
        #expect(try WorldBuilder(scenario: s).wantedSteps.isEmpty == (generator != .taus2))
        s.days = 40
        s.timeZone = zone
        s.start = CalendarDate(year: 2026, month: 3, day: 1)
        s.person.swipeProbability = swipe
        s.person.tapProbability = tap
        s.person.noInterest = noInterest
        if standBy {
            var model = StandByModel()
            model.viewsPerHour = 3
            s.person.standBy = model
        }
        let own = try Self.records(s, ownLoop: true, people: 4)
        let general = try Self.records(s, ownLoop: false, people: 4)
        #expect(own.count == 8 && own.reduce(0) { $0 + $1.count } > 4 * 40 * 80)
        #expect(own.count == general.count)
        for (i, (a, b)) in zip(own, general).enumerated() where a != b {
            let j = (0 ..< min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
            Issue.record("list \(i), item \(j): \(j < a.count ? a[j] : "none") in its own loop, \(j < b.count ? b[j] : "none") in the general one")
            break
        }
    }

    /// The loop that builds sessions when no widget's interest bursts
    /// (`WorldBuilder.buildSessionsByHour`) against the general loop of `buildSessions`:
    /// the same sessions and session ends, and the same draws after them.
    @Test(arguments: [
        (0.0, 1.0, "UTC", false), (0.8, 0.5, "Europe/Berlin", false), (0.3, 0.9, "America/New_York", true),
    ])
    func theByHourSessionLoopWritesTheGeneralLoopsSessions(
        sigma: Double, donation: Double, zone: String, idleHours: Bool
    ) throws {
        var s = try loadScenario("bench-reference.yaml")
        s.days = 40
        s.timeZone = zone
        s.start = CalendarDate(year: 2026, month: 3, day: 1)
        s.person.sessionSigma = sigma
        s.person.donationProbability = donation
        // No interest in every third local hour: candidates then are dropped.
        if idleHours {
            for i in s.widgets.indices { s.widgets[i].interest.hourly = (0 ..< 24).map { $0 % 3 == 0 ? 0 : 1 } }
        }
        func sessions(ownLoop: Bool) throws -> [String] {
            let builder = try WorldBuilder(scenario: s)
            builder.sessionsByHourInOwnLoop = ownLoop
            var rows: [String] = []
            for person in 0 ..< 4 {
                let w = builder.build(person: person, replication: 2)
                rows += w.sessions.map {
                    "\($0.start) \($0.end) \($0.widget) \($0.donates) \($0.donatedInstance) \($0.hour) \($0.weekday)"
                }
                rows += w.sessionEnds.map { "end \($0.time) \($0.widget)" }
                rows.append("\(builder.stream(StreamProcess.sessionDetails).uniform()) "
                    + "\(builder.stream(StreamProcess.donatedConfigurations).uniform())")
            }
            return rows
        }
        let own = try sessions(ownLoop: true), general = try sessions(ownLoop: false)
        #expect(own.count > 4 * 40 * 10)
        #expect(own.count == general.count)
        if let j = (0 ..< min(own.count, general.count)).first(where: { own[$0] != general[$0] }) {
            Issue.record("item \(j): \(own[j]) in its own loop, \(general[j]) in the general one")
        }
    }

    /// The by-hour loop's inversion over rows ended by +∞ (`invertEnded`) against the
    /// general one (`RandomStream.inverse`): the same index for targets inside the row,
    /// at its partial sums (where the chain of roundings decides), at and past its sum
    /// (the general loop's fall-through to the last positive weight), and over rows
    /// with zero weights, first, last or all.
    @Test func endedInversionIsTheGeneralOne() {
        let rows: [[Double]] = [
            [0.35, 0.25, 0.20, 0.12, 0.08], [0.1, 0.2, 0.3], [0, 0.5, 0, 0.25, 0], [0, 0, 0], [1],
            [1e-300, 0.7, 1e-17], [0.3, 0.3, 0.3, 0.1], [0.3, 0, 0], [2.5, 1e-9, 3.75, 0],
        ]
        var draws = SystemRandomNumberGenerator()
        var compared = 0, fellThrough = 0
        for row in rows {
            let ended = row + [.infinity]
            var sum = 0.0
            var targets: [Double] = [0, -0.0]
            for w in row {
                sum += w
                targets += [sum, sum.nextDown, sum.nextUp]
            }
            targets += [sum * 2, 1e300]
            targets += (0 ..< 2000).map { _ in Double.random(in: 0 ..< max(sum, 1e-300), using: &draws) }
            row.withUnsafeBufferPointer { weights in
                ended.withUnsafeBufferPointer { endedWeights in
                    for t in targets {
                        let general = RandomStream.inverse(t, weights: weights)
                        let own = WorldBuilder.invertEnded(t, weights: endedWeights.baseAddress!, count: row.count)
                        #expect(own == general, "row \(row), target \(t)")
                        compared += 1
                        var u = t
                        if !weights.contains(where: { u -= $0; return u < 0 }) { fellThrough += 1 }
                    }
                }
            }
        }
        #expect(compared > 18_000)
        #expect(fellThrough > 20, "the fall-through past the last weight was reached")
    }
}
