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

    /// With `taus2` streams the by-hour loop draws the wanted members from the words and
    /// the builder's thresholds; with another generator (`mt19937`) from the uniforms.
    @Test(arguments: [
        (0.0, 0.0, 0.0, false, "UTC", GeneratorKind.taus2), (0.3, 0.6, 0.0, false, "UTC", .taus2),
        (1.0, 0.0, 0.4, true, "Europe/Berlin", .taus2), (0.5, 1.0, 2.0, true, "America/New_York", .taus2),
        (0.0, 0.0, 0.7, false, "Europe/Berlin", .mt19937),
    ])
    func theByHourLoopWritesTheGeneralLoopsRecords(
        swipe: Double, tap: Double, noInterest: Double, standBy: Bool, zone: String, generator: GeneratorKind
    ) throws {
        var s = try loadScenario("bench-reference.yaml")
        #expect(try WorldBuilder(scenario: s).wantedThresholds.count == 7 * 24 * 6)
        s.generator = generator
        #expect(try WorldBuilder(scenario: s).wantedThresholds.isEmpty == (generator != .taus2))
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

    /// The builder's scenario with `noInterest`, and each member's interest 0 in some
    /// hours (its rows then step over it) and every member's in every fourth hour (rows
    /// of 0) when `idleHours`.
    static func thresholdScenario(noInterest: Double, idleHours: Bool) throws -> Scenario {
        var s = try loadScenario("bench-reference.yaml")
        s.person.noInterest = noInterest
        if idleHours {
            for i in s.widgets.indices {
                s.widgets[i].interest.hourly = (0 ..< 24).map { $0 % 4 == 0 || ($0 + i) % 3 == 0 ? 0 : 1 }
            }
        }
        return s
    }

    /// The general loop's wanted member (`buildViewsOneByOne`, no widget placed
    /// nowhere) of the uniform word / 2^32, by `RandomStream.inverse`.
    static func generalWanted(word: UInt32, none: Double, row: UnsafeBufferPointer<Double>) -> Int {
        let total = row.reduce(0, +)
        let u = Double(word) / 4_294_967_296 * (none + total)
        return u >= none && total > 0 ? RandomStream.inverse(u - none, weights: row) : -1
    }

    /// The wanted member from a view's word and its row of `wantedThresholds` against
    /// the draw of its uniform (`wantedMember(uniform:…)`, the by-hour loop's for other
    /// generators): equal on both sides of every threshold and at the first and last
    /// word, which with the draw's monotony in the word (`wantedThresholds`) makes them
    /// equal on every word; and on a million random words, against the general loop's
    /// inversion too. Rows with no_interest > 0, members of no interest and rows of 0.
    @Test(arguments: [(0.0, false), (0.0, true), (2.0, false), (0.4, true)])
    func wantedThresholdsAreTheDrawsSteps(noInterest: Double, idleHours: Bool) throws {
        let s = try Self.thresholdScenario(noInterest: noInterest, idleHours: idleHours)
        let builder = try WorldBuilder(scenario: s)
        let n = s.stack.members.count, none = s.person.noInterest
        let thresholds = builder.wantedThresholds, guides = builder.wantedGuides, buckets = 1 << WorldBuilder.guideBits
        #expect(thresholds.count == 7 * 24 * (n + 1) && guides.count == 7 * 24 * buckets)
        var compared = 0, steps = 0, skipping = 0, idleRows = 0
        thresholds.withUnsafeBufferPointer { thresholds in guides.withUnsafeBufferPointer { guides in
            builder.stackInterestEnded.withUnsafeBufferPointer { rows in
                for r in 0 ..< 7 * 24 {
                    let at = thresholds.baseAddress! + r * (n + 1), row = rows.baseAddress! + r * (n + 1)
                    let guide = guides.baseAddress! + r * buckets
                    let total = builder.stackSums[r].total
                    let words = Array(UnsafeBufferPointer(start: at, count: n + 1))
                    #expect(words.last == 1 << 32 && zip(words, words.dropFirst()).allSatisfy { $0 <= $1 }, "row \(r): \(words)")
                    let inside = words.filter { $0 > 0 && $0 < 1 << 32 }
                    steps += Set(inside).count
                    if total > 0 && Set(words.dropLast()).count < n { skipping += 1 }
                    if total == 0 { idleRows += 1 }
                    // Both sides of every threshold, and the first and last word of every
                    // guide's bucket.
                    let bucketWords = (0 ..< UInt32(buckets)).flatMap { b in
                        let first = b << (32 - UInt32(WorldBuilder.guideBits))
                        return [first, first | (1 << (32 - UInt32(WorldBuilder.guideBits)) - 1)]
                    }
                    let probes: [UInt32] = bucketWords + inside.flatMap { [UInt32($0 - 1), UInt32($0)] }
                    for word in probes {
                        let own = WorldBuilder.wantedMember(word: word, thresholds: at, guide: guide)
                        let drawn = WorldBuilder.wantedMember(
                            uniform: TausUniforms.uniform(ofWord: word), none: none, total: total, row: row, count: n)
                        #expect(own == drawn, "row \(r), word \(word): \(own) from the thresholds, \(drawn) drawn")
                        compared += 1
                    }
                }
                var draws = SystemRandomNumberGenerator()
                for _ in 0 ..< 1_000_000 {
                    let word = UInt32.random(in: 0 ... .max, using: &draws), r = Int.random(in: 0 ..< 7 * 24, using: &draws)
                    let own = WorldBuilder.wantedMember(
                        word: word, thresholds: thresholds.baseAddress! + r * (n + 1), guide: guides.baseAddress! + r * buckets)
                    let general = Self.generalWanted(
                        word: word, none: none, row: UnsafeBufferPointer(start: rows.baseAddress! + r * (n + 1), count: n))
                    if own != general {
                        Issue.record("row \(r), word \(word): \(own) from the thresholds, \(general) in the general loop")
                        break
                    }
                }
            }
        } }
        #expect(compared > 7 * 24 * 2 && steps > 7 * 24)
        #expect((skipping > 0) == idleHours && (idleRows == 7 * 24 / 4) == idleHours, "\(skipping) rows step over a member, \(idleRows) of 0")
        // With interest in wanting none, the first words want none.
        #expect(noInterest == 0 || thresholds.enumerated().allSatisfy { $0.offset % (n + 1) != 0 || $0.element > 0 })
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
