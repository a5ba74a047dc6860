import Testing
@testable import WidgetSimModel

/// `StaleSpans` against the direct count: at every view, each stale widget's day counter
/// goes up by one.
@Suite struct StaleSpansTests {
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func spansCountWhatEachViewWouldCount(seed: UInt64) {
        var random = BudgetSplitMix64(seed: seed)
        let days = 6, widgets = 3
        let spans = StaleSpans(days: days, widgets: widgets)
        let counts = RunningCounts(days: days, widgets: widgets)
        var expected = Array(repeating: 0 as Int64, count: days * widgets)
        var stale = Array(repeating: false, count: widgets)
        spans.reset()
        // Events in time order over the days, some days with no view at all.
        for day in 0 ..< days where day != 2 {
            for _ in 0 ..< Int(random.next() % 40) {
                let w = Int(random.next() % UInt64(widgets))
                switch random.next() % 4 {
                case 0:
                    if !stale[w] {
                        stale[w] = true
                        spans.turnedStale(w, day: day)
                    }
                case 1:
                    if stale[w] {
                        stale[w] = false
                        spans.turnedFresh(w, day: day, counts: counts)
                    }
                default:
                    spans.viewed(day: day)
                    for x in 0 ..< widgets where stale[x] { expected[day * widgets + x] += 1 }
                }
            }
        }
        spans.finish(lastDay: days - 1, counts: counts)
        let got = (0 ..< days * widgets).map { counts[$0 / widgets, widget: $0 % widgets, .staleMemberViews] }
        #expect(got == expected)
        #expect(expected.reduce(0, +) > 20)
    }
}
