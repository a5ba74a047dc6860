import EngineTestSupport
import Testing
import WidgetSimExecution
import WidgetSimModel
import WidgetSimReports

/// A run whose pairs are joined from others' sides (`PersonEngine+SharedSides`), against
/// the general path: each pair run alone, and the traced run, which shares nothing.
@Suite struct SharedSidesRunTests {
    /// The six pairs of `bench-six-pairs.yaml` (three daily quotas × two `time_of_day`
    /// settings, the second made to rank apart from the first), with and without swipes,
    /// on two threads, and three quotas × three rankings: every pair's totals, reasons
    /// by instance included, are those of the pair run alone and of the traced run.
    @Test(arguments: [(0.0, 2), (0.3, 2), (0.3, 3)])
    func pairsTotalAsEachPairAlone(swipe: Double, rankings: Int) throws {
        var s = try loadScenario("bench-six-pairs.yaml")
        s.people = 6
        s.days = 3
        s.person.swipeProbability = swipe
        s.rankings[1].parameters = PolicyParameters(["smoothing": .number(0), "weekday_weight": .number(3)])
        if rankings == 3 {
            var third = s.rankings[0]
            third.label = "time_of_day_s50"
            third.parameters = PolicyParameters(["smoothing": .number(50), "weekday_weight": .number(0)])
            s.rankings.append(third)
        }
        let together = try run(s, threads: 2)
        #expect(together.pairs.count == 3 * rankings)
        for (b, budget) in s.budgets.enumerated() {
            for (r, ranking) in s.rankings.enumerated() {
                var one = s
                one.budgets = [budget]
                one.rankings = [ranking]
                let alone = try run(one)
                let p = b * s.rankings.count + r
                #expect(alone.pairs == [together.pairs[p]])
                #expect(alone.totals[0][0] == together.totals[0][p], "pair \(together.pairs[p])")
                #expect(alone.totals[0][0].sum(.events, days: 0 ..< s.days) > 1_000)
            }
        }
        // The rankings differ in what the stack's side counts, or nothing of it was compared.
        #expect(together.totals[0][0].sum(.hits, days: 0 ..< s.days) != together.totals[0][1].sum(.hits, days: 0 ..< s.days))
        let traced = Runner(scenario: s, threads: 1)
        traced.trace = EventFingerprint()
        #expect(try traced.run().totals == together.totals)
    }
}
