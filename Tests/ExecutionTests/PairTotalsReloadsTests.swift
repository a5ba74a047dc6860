import Testing
import WidgetSimModel
@testable import WidgetSimExecution

/// The reload histogram of `PairTotals`, which sums the first counters of each widget row.
@Suite struct PairTotalsReloadsTests {
    @Test func theReloadCountersAreTheFirstOfEachRowInTheReasonsOrder() {
        #expect(ReloadReason.allCases.map { WidgetCounter.reload($0).rawValue }
                == Array(0 ..< PairTotals.reloadCounters))
    }

    @Test func theHistogramCountsEachMeasuredWidgetDaysReloadsAndNothingElse() {
        let days = 3, widgets = 2
        var counts = PersonCounts(days: days, widgets: widgets)
        // Every counter of every row set (the other counters too, which must not count),
        // each reason's reloads a different number in each row.
        for day in 0 ..< days {
            for x in 0 ..< widgets {
                let row = (day * widgets + x) * WidgetCounter.count
                for c in 0 ..< WidgetCounter.count { counts.widget[row + c] = Int64(1000 + c) }
                for (i, reason) in ReloadReason.allCases.enumerated() {
                    counts.widget[row + WidgetCounter.reload(reason).rawValue] = Int64(day * 2 + x + i)
                }
            }
        }
        var totals = PairTotals(days: days, widgets: widgets, warmupDays: 1)
        totals.add(counts)
        let n = ReloadReason.allCases.count
        let base = n * (n - 1) / 2
        // Days 1 and 2 (day 0 is warm-up): each row's reloads base + n·(2·day + x).
        let expected = [1, 2, 3, 4].map { base + n * (2 + $0 - 1) }
        var histogram = Array(repeating: Int64(0), count: expected.max()! + 1)
        for k in expected { histogram[k] += 1 }
        #expect(totals.reloadHistogram == histogram)
    }
}
