import Foundation
import Testing
import WidgetSimKernel
@testable import WidgetSimModel
import WidgetSimSampling

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

    /// Arrivals read from `LocalHours` are those of `LocalHourRate` on the same clock,
    /// draw for draw: over DST, a trip and odd offsets, hours of rate 0, and starts that
    /// are not 0.
    @Test func arrivalsFromTheHoursAreThoseOfTheClocksRate() throws {
        let waking = (0 ..< 24).map { $0 < 7 ? 0.0 : 1.0 + Double($0 % 5) }
        let profiles: [[Double]] = [Array(repeating: 1, count: 24), waking, (0 ..< 24).map { $0 == 13 ? 2.0 : 0 }]
        var compared = 0
        for clock in [try Self.clock(), Self.flat] {
            let hours = LocalHours(clock)
            for weights in profiles {
                for perDay in [0.5, 12, 90, 20_000] {
                    let rate = LocalHourRate.hourlyRate(meanPerDay: perDay, hourWeights: weights)
                    for (seed, start) in [(UInt(1), Int64(0)), (7, 0), (11, 5 * Milliseconds.hour + 17)] {
                        var expected: [Int64] = [], got: [Int64] = []
                        let a = RandomStream(seed: seed), b = RandomStream(seed: seed)
                        a.poissonArrivals(from: start, to: clock.end, rate: LocalHourRate(clock: clock, hourlyRate: rate), into: &expected)
                        hours.poissonArrivals(b, from: start, to: clock.end, hourlyRate: rate, into: &got)
                        #expect(got == expected, "\(perDay) a day, seed \(seed), from \(start)")
                        #expect(a.uniform() == b.uniform(), "the streams stay aligned")
                        compared += expected.count
                    }
                }
            }
        }
        #expect(compared > 100_000)
    }

    /// The pieces `LocalHours` gives are `LocalHourRate`'s, asked in time order at each
    /// span's end (where arrivals step from piece to piece), at fractions of a ms into
    /// a span, and within its last ms (where a piece lasts 1 ms past the span, which an
    /// arrival there meets only once in millions).
    @Test func piecesFromTheHoursAreThoseOfTheClocksRate() throws {
        let rate = LocalHourRate.hourlyRate(meanPerDay: 90, hourWeights: (0 ..< 24).map { $0 < 7 ? 0.0 : Double($0) })
        var asked = 0
        for clock in [try Self.clock(), Self.flat] {
            let hours = LocalHours(clock)
            let expected = LocalHourRate(clock: clock, hourlyRate: rate)
            hours.spans.withUnsafeBufferPointer { spans in hours.ends.withUnsafeBufferPointer { ends in
                rate.withUnsafeBufferPointer { rates in
                    var pieces = LocalHours.Pieces(spans: spans, ends: ends, hourlyRate: rates)
                    var start = 0.0
                    for span in spans {
                        let end = Double(span.end)
                        for t in [start, start + 0.25, (start + end) / 2, end - 1, end - 0.75, (end - 1e-7)] where t >= start && t < end {
                            let (r, e) = pieces.piece(containing: t)
                            let (r0, e0) = expected.piece(containing: t)
                            #expect(r == r0 && e == e0, "at \(t)")
                            asked += 1
                        }
                        start = end
                        if span.end >= clock.end { break }
                    }
                }
            } }
        }
        #expect(asked > 5 * 28 * 24)
    }

    static let flat = LocalClock(fixedOffsetMs: -5 * Milliseconds.hour + 1_234, epochMs: 1_767_571_200_000, end: 3 * Milliseconds.day)
}
