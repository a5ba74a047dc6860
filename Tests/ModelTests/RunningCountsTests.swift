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

    /// A day's counters (`day(_:)`, as the engine holds them in `today`) are the counts
    /// of that day under the general subscripts, and no other day's: each count written
    /// through one is read back through the other with the value written.
    @Test func aDaysCountersAreThatDaysCounts() {
        let days = 3, widgets = 4
        let running = RunningCounts(days: days, widgets: widgets)
        var value: Int64 = 1
        for day in 0 ..< days {
            let today = running.day(day)
            for c in PersonCounter.allCases {
                today[c] = value
                value += 1
            }
            for w in 0 ..< widgets {
                for c in WidgetCounter.allCases {
                    today[widget: w, c] = value
                    value += 1
                }
            }
            for m in MissedViewReason.allCases {
                today[missed: m] = value
                value += 1
            }
        }
        value = 1
        for day in 0 ..< days {
            let today = running.day(day)
            for c in PersonCounter.allCases {
                #expect(running[day, c] == value && today[c] == value)
                value += 1
            }
            for w in 0 ..< widgets {
                for c in WidgetCounter.allCases {
                    #expect(running[day, widget: w, c] == value && today.row(widget: w)[c] == value)
                    value += 1
                }
            }
            for m in MissedViewReason.allCases {
                #expect(running[day, missed: m] == value)
                value += 1
            }
        }
    }

    /// A day's missed views in a `ReasonTally` (`day(_:)`, the engine's `todayMissed`) are
    /// the tally's counts of that day under its general subscript, and no other day's.
    @Test func aDaysMissedViewsAreThatDaysTally() {
        let days = 3, widgets = 4
        let tally = ReasonTally(days: days, widgets: widgets)
        var value: Int64 = 1
        for day in 0 ..< days {
            let missed = tally.day(day)
            for wanted in 0 ... widgets {
                for top in 0 ... widgets {
                    for m in MissedViewReason.allCases {
                        missed[wanted: wanted, top: top, missed: m] = value
                        value += 1
                    }
                }
            }
        }
        value = 1
        for day in 0 ..< days {
            for wanted in 0 ... widgets {
                for top in 0 ... widgets {
                    for m in MissedViewReason.allCases {
                        #expect(tally[day, wanted: wanted, top: top, missed: m] == value)
                        value += 1
                    }
                }
            }
        }
        #expect(tally.take().missedViews == (1 ... value - 1).map { $0 })
    }

    /// Clearing in 1 KB pieces reaches every count asked for, across pieces, and not one
    /// past them.
    @Test(arguments: [0, 1, 127, 128, 129, 256, 300, 1_000])
    func zeroClearsExactlyTheCountsAskedFor(count: Int) {
        let buffer = UnsafeMutablePointer<Int64>.allocate(capacity: count + 2)
        defer { buffer.deallocate() }
        buffer.initialize(repeating: 7, count: count + 2)
        buffer.zero(count: count)
        #expect((0 ..< count).allSatisfy { buffer[$0] == 0 })
        #expect(buffer[count] == 7 && buffer[count + 1] == 7)
    }

    /// A reset clears the whole table, many pieces long (30 days, 10 widgets).
    @Test func resetClearsEveryCountOfALargeTable() {
        let running = RunningCounts(days: 30, widgets: 10)
        running.storage.update(repeating: 5, count: running.total)
        running.reset()
        let counts = running.counts()
        #expect(running.total > 1_000)
        #expect(counts.person.allSatisfy { $0 == 0 } && counts.widget.allSatisfy { $0 == 0 })
        #expect(counts.refusals.allSatisfy { $0 == 0 } && counts.missedViews.allSatisfy { $0 == 0 })
    }
}
