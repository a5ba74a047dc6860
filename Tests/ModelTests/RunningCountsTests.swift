import Testing
@testable import WidgetSimModel

/// The engine's counts, written through pointers, and their copy as `PersonCounts`.
@Suite struct RunningCountsTests {
    @Test func theCopyHoldsEveryCountWhereThePersonCountsLayoutHasIt() {
        let days = 3
        let widgets = 4
        let running = RunningCounts(days: days, widgets: widgets)
        var value: Int64 = 1
        for day in 0 ..< days {
            for c in PersonCounter.allCases {
                running[day, c] = value
                value += 1
            }
            for w in 0 ..< widgets {
                for c in WidgetCounter.allCases {
                    running[day, widget: w, c] = value
                    value += 1
                }
            }
            for r in RefusalReason.allCases {
                running[day, refusal: r] = value
                value += 1
            }
            for m in MissedViewReason.allCases {
                running[day, missed: m] = value
                value += 1
            }
        }
        let copy = running.counts()
        #expect(copy.days == days && copy.widgets == widgets)
        let empty = PersonCounts(days: days, widgets: widgets)
        #expect(copy.person.count == empty.person.count && copy.widget.count == empty.widget.count)
        #expect(copy.refusals.count == empty.refusals.count && copy.missedViews.count == empty.missedViews.count)
        value = 1
        for day in 0 ..< days {
            for c in PersonCounter.allCases {
                #expect(copy[day, c] == value)
                value += 1
            }
            for w in 0 ..< widgets {
                for c in WidgetCounter.allCases {
                    #expect(copy[day, widget: w, c] == value)
                    value += 1
                }
            }
            for r in RefusalReason.allCases {
                #expect(copy[day, refusal: r] == value)
                value += 1
            }
            for m in MissedViewReason.allCases {
                #expect(copy[day, missed: m] == value)
                value += 1
            }
        }
        // The copy is the counts' own: a reset and new counts leave it as it was.
        running.reset()
        running[0, .views] = 99
        #expect(copy[0, .views] == 2)
        #expect(running.counts()[0, .views] == 99)
        #expect(running.counts().widget.allSatisfy { $0 == 0 })
    }
}
