import Foundation
import Testing
@testable import WidgetSimModel

/// `LocalClock.hourSpan`: the hour and weekday it gives are `hourAndWeekday`'s, and they
/// hold over the whole span it gives, across DST transitions and trips.
@Suite struct LocalClockTests {
    /// Four weeks in Berlin from 2026-03-16 (DST starts on 2026-03-29) with a trip to
    /// New York, whose DST started on 2026-03-08, from day 3 to day 5 at odd minutes.
    static func clock() throws -> LocalClock {
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        let newYork = try #require(TimeZone(identifier: "America/New_York"))
        let epoch = try #require(LocalClock.startOfDay(CalendarDate(year: 2026, month: 3, day: 16), in: berlin))
        let day = Milliseconds.day
        return LocalClock(home: berlin, epochMs: epoch, end: 28 * day,
                          trips: [(start: 3 * day + 17 * Milliseconds.minute, end: 5 * day + 4_321, zone: newYork)])
    }

    @Test func theSpanHoldsTheHourAndWeekdayOfEveryTimeInIt() throws {
        let clock = try Self.clock()
        #expect(clock.pieces.count >= 4)
        var t: Int64 = 0
        var spans = 0
        while t < clock.end {
            let span = clock.hourSpan(t)
            #expect(span.until > t)
            let (hour, weekday) = clock.hourAndWeekday(t)
            #expect(span.hour == hour && span.weekday == weekday)
            // Every time of the span, sampled at its ends and every 7 minutes, has them.
            for u in Array(stride(from: t, to: span.until, by: Int(7 * Milliseconds.minute))) + [span.until - 1] {
                let (h, d) = clock.hourAndWeekday(u)
                #expect(h == hour && d == weekday, "at \(u), in the span from \(t)")
            }
            // A span ends at a new local hour or at a change of the clock's offset.
            let next = clock.hourAndWeekday(span.until)
            let pieceChanges = clock.pieceIndex(span.until) != clock.pieceIndex(span.until - 1)
            #expect(next.hour != hour || pieceChanges)
            t = span.until
            spans += 1
        }
        // 28 days of hours, give or take the DST and trip offsets.
        #expect(abs(spans - 28 * 24) <= 8)
    }

    /// `LocalHours` steps from hour to hour within each piece of the clock: its spans
    /// are those of `hourSpan` asked at the end of each span in turn.
    @Test func localHoursAreTheClocksSpansInTurn() throws {
        let clock = try Self.clock()
        var expected: [LocalHours.Span] = []
        var t: Int64 = 0
        while t < clock.end {
            let span = clock.hourSpan(t)
            expected.append(LocalHours.Span(end: span.until, hour: UInt8(span.hour), weekday: UInt8(span.weekday)))
            t = span.until
        }
        #expect(LocalHours(clock).spans == expected)
        let flat = LocalClock(fixedOffsetMs: -5 * Milliseconds.hour + 1_234, epochMs: 1_767_571_200_000, end: 3 * Milliseconds.day)
        #expect(LocalHours(flat).spans.count == 3 * 24 + 1)
        #expect(LocalHours(flat).spans.first?.end == Milliseconds.hour - 1_234)
    }
}
