import Foundation
import Testing
import WidgetSimKernel
import WidgetSimSampling
@testable import WidgetSimModel

/// The draws made from a `taus2` word (`WordSteps`: a view's wanted member, a session's
/// widget; `wordsBelow`: a donation, a push) against the same draws from the word's
/// uniform, word / 2^32, as the general loops make them.
@Suite struct WordStepsTests {
    /// The reference workload with `noInterest`, and each widget's interest 0 in some
    /// hours (rows then step over it) and every widget's in every fourth hour (rows of
    /// 0) when `idleHours`.
    static func scenario(noInterest: Double, idleHours: Bool) throws -> Scenario {
        var s = try loadScenario("bench-reference.yaml")
        s.person.noInterest = noInterest
        if idleHours {
            for i in s.widgets.indices {
                s.widgets[i].interest.hourly = (0 ..< 24).map { $0 % 4 == 0 || ($0 + i) % 3 == 0 ? 0 : 1 }
            }
        }
        return s
    }

    /// `steps`' outcomes against `general(row, word)` in each of `rows` rows: on both
    /// sides of every threshold and at the first and last word of every guide's bucket,
    /// which, as both are non-decreasing in the word, makes them equal on every word;
    /// then on a million random words. Returns the number of thresholds inside the
    /// words (above 0, below 2^32), of rows of one outcome (none inside), and of the
    /// other rows that step over an outcome (two thresholds, or the last and 2^32, at
    /// one word).
    static func compare(
        _ steps: WordSteps, rows: Int, _ general: (_ row: Int, _ word: UInt32) -> Int
    ) -> (inside: Int, skipping: Int, flat: Int) {
        let n = steps.count, bits = WordSteps.guideBits
        #expect(steps.thresholds.count == rows * (n + 1) && steps.guides.count == rows << bits)
        var inside = 0, skipping = 0, flat = 0
        let bucketSize = UInt64(1) << (32 - bits)
        let bucketWords: [UInt32] = (0 ..< UInt64(1) << bits).flatMap { (b: UInt64) -> [UInt32] in
            [UInt32(b * bucketSize), UInt32(b * bucketSize + bucketSize - 1)]
        }
        _ = steps.withRows { table in
            for r in 0 ..< rows {
                let words = Array(steps.thresholds[r * (n + 1) ... r * (n + 1) + n])
                #expect(words.last == 1 << 32 && zip(words, words.dropFirst()).allSatisfy { $0 <= $1 }, "row \(r): \(words)")
                let within = words.filter { $0 > 0 && $0 < 1 << 32 }
                inside += Set(within).count
                if within.isEmpty { flat += 1 } else if Set(words).count < n + 1 { skipping += 1 }
                let probes: [UInt32] = bucketWords + within.flatMap { [UInt32($0 - 1), UInt32($0)] }
                for word in probes where table.outcome(of: word, row: r) != general(r, word) {
                    Issue.record("row \(r), word \(word): \(table.outcome(of: word, row: r)) by the steps, \(general(r, word)) drawn")
                    return
                }
            }
            var draws = SystemRandomNumberGenerator()
            for _ in 0 ..< 1_000_000 {
                let word = UInt32.random(in: 0 ... .max, using: &draws), r = Int.random(in: 0 ..< rows, using: &draws)
                if table.outcome(of: word, row: r) != general(r, word) {
                    Issue.record("row \(r), word \(word): \(table.outcome(of: word, row: r)) by the steps, \(general(r, word)) drawn")
                    return
                }
            }
        }
        return (inside, skipping, flat)
    }

    /// A view's wanted member: against `wantedMember(uniform:…)` (the by-hour loop's for
    /// other generators) and the general loop's inversion (`buildViewsOneByOne`, no
    /// widget placed nowhere), with no_interest > 0, members of no interest and rows of 0.
    @Test(arguments: [(0.0, false), (0.0, true), (2.0, false), (0.4, true)])
    func wantedMembers(noInterest: Double, idleHours: Bool) throws {
        let s = try Self.scenario(noInterest: noInterest, idleHours: idleHours)
        let builder = try WorldBuilder(scenario: s)
        let n = s.stack.members.count, none = s.person.noInterest, rows = 7 * 24
        builder.stackInterestEnded.withUnsafeBufferPointer { ended in
            let byHour = Self.compare(builder.wantedSteps, rows: rows) { r, word in
                WorldBuilder.wantedMember(
                    uniform: TausUniforms.uniform(ofWord: word), none: none, total: builder.stackSums[r].total,
                    row: ended.baseAddress! + r * (n + 1), count: n)
            }
            let general = Self.compare(builder.wantedSteps, rows: rows) { r, word in
                let row = UnsafeBufferPointer(start: ended.baseAddress! + r * (n + 1), count: n)
                let total = row.reduce(0, +)
                let u = Double(word) / 4_294_967_296 * (none + total)
                return u >= none && total > 0 ? RandomStream.inverse(u - none, weights: row) : -1
            }
            #expect(byHour == general)
            // Without idle hours every row steps at each member after the first (and, with
            // interest in none, at the first); else rows of 0 and members of no interest.
            if idleHours {
                #expect(byHour.skipping > 0 && byHour.flat == rows / 4, "\(byHour)")
            } else {
                #expect(byHour.skipping == 0 && byHour.flat == 0 && byHour.inside == rows * (noInterest > 0 ? n : n - 1), "\(byHour)")
            }
        }
        // The first words want none with interest in wanting none, or in a row of 0.
        for r in 0 ..< rows {
            let first = builder.wantedSteps.thresholds[r * (n + 1)]
            #expect((first > 0) == (noInterest > 0 || builder.stackSums[r].total == 0), "row \(r): \(first)")
        }
    }

    /// A session's widget: against the general loop's inversion of u × Σλ over the
    /// row's λ (−1, no session, where Σλ is 0). No steps when a widget's interest
    /// bursts (sessions are thinned) or the streams are not `taus2`.
    @Test(arguments: [false, true])
    func sessionWidgets(idleHours: Bool) throws {
        var s = try Self.scenario(noInterest: 0, idleHours: idleHours)
        let builder = try WorldBuilder(scenario: s)
        let n = s.widgets.count, rows = 7 * 24
        let found = builder.hourWeekdayInterest.withUnsafeBufferPointer { table in
            Self.compare(builder.sessionSteps, rows: rows) { r, word in
                let row = UnsafeBufferPointer(rebasing: table[r * n ..< (r + 1) * n])
                let total = builder.hourWeekdayTotals[r]
                return total > 0 ? RandomStream.inverse(Double(word) / 4_294_967_296 * total, weights: row) : -1
            }
        }
        if idleHours {
            #expect(found.skipping > 0 && found.flat == rows / 4, "\(found)")
        } else {
            #expect(found.skipping == 0 && found.flat == 0 && found.inside == rows * (n - 1), "\(found)")
        }
        s.generator = .mt19937
        #expect(try WorldBuilder(scenario: s).sessionSteps.isEmpty)
        s.generator = .taus2
        s.widgets[2].interest.afterPush = Burst(factor: 2, afterMs: 60_000)
        #expect(try WorldBuilder(scenario: s).sessionSteps.isEmpty)
    }

    /// `wordsBelow(p)`: the uniform of the word below it is below p, that of the word
    /// itself is not (so, by monotony, exactly the words below it draw u < p).
    /// A guide's counts are bytes: steps are made for at most 255 outcomes, and a world
    /// builder with more widgets than that draws from the uniforms.
    @Test func stepsAreMadeOnlyForOutcomesAGuideNumbers() {
        #expect(WordSteps.numbers(255))
        #expect(!WordSteps.numbers(256))
    }

    @Test func wordsBelowAProbability() {
        var draws = SystemRandomNumberGenerator()
        let ps: [Double] = [0, -0.5, 1e-300, 0x1p-33, 0x1p-32, 0x1.8p-32, 0.3, 0.5, 0.9, Double(1).nextDown, 1, 1.5]
            + (0 ..< 1000).map { _ in Double.random(in: 0 ..< 1, using: &draws) }
        for p in ps {
            let words = WordSteps.wordsBelow(p)
            #expect(words <= 1 << 32)
            if words > 0 { #expect(TausUniforms.uniform(ofWord: UInt32(words - 1)) < p, "p \(p): \(words)") }
            if words < 1 << 32 { #expect(!(TausUniforms.uniform(ofWord: UInt32(words)) < p), "p \(p): \(words)") }
        }
        #expect(WordSteps.wordsBelow(0.5) == 1 << 31 && WordSteps.wordsBelow(0) == 0 && WordSteps.wordsBelow(1) == 1 << 32)
        #expect(WordSteps.wordsBelow(0x1.8p-32) == 2)
    }

    /// A widget's pushes drawn with the words below `push_fraction` and with the
    /// uniforms: the same pushes, and the stream left at the same draw.
    @Test(arguments: [0.5, 0.37, 0.0, 1.0])
    func pushesByWordsAreThePushesByUniforms(fraction: Double) throws {
        var content = try loadScenario("bench-reference.yaml").widgets[0].content
        content.pushFraction = fraction
        var draws = SystemRandomNumberGenerator()
        let changes = (0 ..< 5000).map { _ in SimTime.random(in: 0 ..< 7 * 86_400_000, using: &draws) }.sorted()
        func pushes(words: UInt64?) -> [String] {
            let stream = RandomStream(kind: .taus2, seed: 17)
            var out: [String] = []
            WorldBuilder.drawPushes(of: changes, content: content, draws: stream, announcedWords: words) { out.append("\($0) \($1)") }
            return out + ["\(stream.uniform())"]
        }
        let byWords = pushes(words: WordSteps.wordsBelow(fraction)), byUniforms = pushes(words: nil)
        #expect(byWords == byUniforms)
        #expect(fraction == 0 || Double(byWords.count) > 5000 * fraction * 0.9)
    }
}
