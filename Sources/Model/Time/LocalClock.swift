import Foundation
import WidgetSimKernel
import WidgetSimSampling

/// A person's local clock over one run: simulated time → local wall-clock time, from
/// the tz database (through Foundation's `TimeZone`), including DST transitions and
/// changes of zone when the person travels.
///
/// It is a list of pieces `[start, next start)` of constant UTC offset, so every lookup
/// is arithmetic plus a search over a handful of pieces; no calendar call runs per event.
public struct LocalClock: Sendable {
    public struct Piece: Sendable, Hashable {
        /// Simulated time the piece starts.
        public var start: SimTime
        /// Local time − UTC, in ms.
        public var offset: Int64
        /// Whether the piece starts because the zone changed (travel) rather than a DST rule.
        public var zoneChange: Bool
    }

    /// Unix time (ms) of simulated time 0.
    public let epochMs: Int64
    public let end: SimTime
    public private(set) var pieces: [Piece]

    /// The clock of someone who stays in `zone` over [0, end), where 0 is `epochMs`.
    /// `stays` lists trips: from `start` to `end` in another zone.
    public init(home: TimeZone, epochMs: Int64, end: SimTime, trips: [(start: SimTime, end: SimTime, zone: TimeZone)] = []) {
        self.epochMs = epochMs
        self.end = end
        var pieces: [Piece] = []
        // Zone intervals: home, trip, home, trip, ...
        var intervals: [(SimTime, SimTime, TimeZone)] = []
        var t: SimTime = 0
        for trip in trips where trip.start < end {
            if trip.start > t { intervals.append((t, trip.start, home)) }
            intervals.append((trip.start, min(trip.end, end), trip.zone))
            t = min(trip.end, end)
        }
        if t < end { intervals.append((t, end, home)) }
        for (index, (a, b, zone)) in intervals.enumerated() {
            var cursor = a
            var first = true
            while cursor < b {
                let date = Date(timeIntervalSince1970: Double(epochMs + cursor) / 1000)
                let offset = Int64(zone.secondsFromGMT(for: date)) * 1000
                let change = first && index > 0
                if let last = pieces.last, last.offset == offset, !change {
                    // Same offset continues (e.g. a trip to a zone with the same offset).
                } else {
                    pieces.append(Piece(start: cursor, offset: offset, zoneChange: change))
                }
                first = false
                guard let next = zone.nextDaylightSavingTimeTransition(after: date) else { break }
                let nextMs = Int64((next.timeIntervalSince1970 * 1000).rounded()) - epochMs
                if nextMs <= cursor { break }
                cursor = nextMs
            }
        }
        if pieces.isEmpty { pieces.append(Piece(start: 0, offset: 0, zoneChange: false)) }
        self.pieces = pieces
    }

    /// The clock with one fixed offset (tests and the reference workload).
    public init(fixedOffsetMs: Int64, epochMs: Int64 = 0, end: SimTime) {
        self.epochMs = epochMs
        self.end = end
        self.pieces = [Piece(start: 0, offset: fixedOffsetMs, zoneChange: false)]
    }

    /// The index of the piece holding `t`.
    @inlinable
    public func pieceIndex(_ t: SimTime) -> Int {
        var i = pieces.count - 1
        while i > 0 && pieces[i].start > t { i -= 1 }
        return i
    }

    /// Local wall-clock time of `t`, as ms since 1970-01-01 00:00 local.
    @inlinable
    public func localMs(_ t: SimTime) -> Int64 { epochMs + t + pieces[pieceIndex(t)].offset }

    /// Local hour 0…23 and weekday (Monday = 0) of `t`.
    @inlinable
    public func hourAndWeekday(_ t: SimTime) -> (hour: Int, weekday: Int) {
        let local = localMs(t)
        // Local times of a run come after 1970, where `/` and `%` are floor division
        // and its remainder; the general forms serve anything earlier.
        let days = local >= 0 ? local / Milliseconds.day : Self.floorDiv(local, Milliseconds.day)
        let hour = Int((local - days * Milliseconds.day) / Milliseconds.hour)
        // 1970-01-01 was a Thursday: weekday 3 with Monday = 0.
        let weekday = days >= 0 ? Int((days + 3) % 7) : Int(((days + 3) % 7 + 7) % 7)
        return (hour, weekday)
    }

    /// Local hour 0…23 and weekday (Monday = 0) of `t`, as `hourAndWeekday(t)`, with the
    /// first time after `t` at which they may change: the start of the next local hour
    /// or of the clock's next piece, whichever comes first. Every time in `[t, until)`
    /// has the same hour and weekday, so times in order need ask again only from `until`.
    @inlinable
    public func hourSpan(_ t: SimTime) -> (hour: Int, weekday: Int, until: SimTime) {
        let i = pieceIndex(t)
        let offset = pieces[i].offset
        let local = epochMs + t + offset
        let days = local >= 0 ? local / Milliseconds.day : Self.floorDiv(local, Milliseconds.day)
        let hour = (local - days * Milliseconds.day) / Milliseconds.hour
        let weekday = days >= 0 ? Int((days + 3) % 7) : Int(((days + 3) % 7 + 7) % 7)
        let hourEnd = days * Milliseconds.day + (hour + 1) * Milliseconds.hour - epochMs - offset
        let until = i + 1 < pieces.count ? min(hourEnd, pieces[i + 1].start) : hourEnd
        return (Int(hour), weekday, until)
    }

    @inlinable
    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    /// Significant time changes in [0, end), in order: each local midnight (including
    /// t = 0 when it is one), each DST transition and each change of zone. A change that
    /// falls on a local midnight is listed once.
    public func timeChanges() -> [SimTime] {
        var result: [SimTime] = []
        for (i, piece) in pieces.enumerated() {
            let pieceEnd = i + 1 < pieces.count ? pieces[i + 1].start : end
            if i > 0 { result.append(piece.start) }
            // Local midnights inside the piece: local ms multiples of a day.
            let localStart = epochMs + piece.start + piece.offset
            var k = Self.floorDiv(localStart + Milliseconds.day - 1, Milliseconds.day)
            while true {
                let t = k * Milliseconds.day - epochMs - piece.offset
                if t >= pieceEnd { break }
                if t >= piece.start && (i == 0 || t != piece.start) { result.append(t) }
                k += 1
            }
        }
        result.sort()
        var unique: [SimTime] = []
        unique.reserveCapacity(result.count)
        for t in result where t < end && unique.last != t { unique.append(t) }
        return unique
    }

    /// Unix time (ms) of local midnight at the start of `date` in `zone`, or nil when
    /// the date does not exist there.
    public static func startOfDay(_ date: CalendarDate, in zone: TimeZone) -> Int64? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        var parts = DateComponents()
        parts.year = date.year
        parts.month = date.month
        parts.day = date.day
        guard let d = calendar.date(from: parts) else { return nil }
        let start = calendar.startOfDay(for: d)
        return Int64((start.timeIntervalSince1970 * 1000).rounded())
    }
}

/// The local hours of a run on a `LocalClock`, in time order: consecutive spans of
/// simulated time from 0 on, each a local hour or the part of one before or after a
/// change of the clock's offset, with its local hour and weekday. They are worked out
/// once per person and read, in time order, by every process that needs the local
/// hour of its arrivals.
public struct LocalHours: Sendable {
    public struct Span: Sendable, Equatable {
        /// Where the span ends (its start is the end of the span before, or 0).
        public var end: SimTime
        /// The local hour of the day, 0…23.
        public var hour: UInt8
        /// The local weekday, Monday = 0.
        public var weekday: UInt8
    }

    /// The spans, until the first that reaches the clock's end.
    public let spans: [Span]
    /// Each span's end as a `Double` (exact: ends are whole ms far below 2^53), for the
    /// arrivals, which step from span to span in doubles.
    let ends: [Double]

    /// The spans of `clock`: at the start of each of the clock's pieces the span of
    /// `LocalClock.hourSpan`, then one local hour after another up to the next piece.
    public init(_ clock: LocalClock) {
        var spans: [Span] = []
        spans.reserveCapacity(Int(clock.end / Milliseconds.hour) + 2 * clock.pieces.count)
        var t: SimTime = 0
        while t < clock.end {
            var (hour, weekday, until) = clock.hourSpan(t)
            let i = clock.pieceIndex(t)
            let pieceEnd = i + 1 < clock.pieces.count ? clock.pieces[i + 1].start : SimTime.max
            while true {
                spans.append(Span(end: until, hour: UInt8(hour), weekday: UInt8(weekday)))
                t = until
                if t >= clock.end || t >= pieceEnd { break }
                hour += 1
                if hour == 24 {
                    hour = 0
                    weekday = weekday == 6 ? 0 : weekday + 1
                }
                until = min(t + Milliseconds.hour, pieceEnd)
            }
        }
        self.spans = spans
        ends = spans.map { Double($0.end) }
    }
}

extension LocalHours {
    /// The pieces of `LocalHourRate(clock:hourlyRate:)` on the clock these hours were
    /// made from, read from the spans in order: the span that holds a time's whole ms
    /// gives the rate of its hour and ends the piece, as the clock gives them (the hours
    /// are the clock's). Like `LocalHourRate`, a piece asked for less than 1 ms before its
    /// span's end lasts 1 ms (the end is never closer than that).
    /// Asked with times that never decrease, it keeps the index of the last span it gave.
    struct Pieces: RatePieces {
        let spans: UnsafeBufferPointer<Span>
        let ends: UnsafeBufferPointer<Double>
        let hourlyRate: UnsafeBufferPointer<Double>
        var index = 0

        init(spans: UnsafeBufferPointer<Span>, ends: UnsafeBufferPointer<Double>, hourlyRate: UnsafeBufferPointer<Double>) {
            self.spans = spans
            self.ends = ends
            self.hourlyRate = hourlyRate
        }

        @inline(__always)
        mutating func piece(containing t: Double) -> (rate: Double, end: Double) {
            let ms = floorMilliseconds(t)
            let spans = spans.baseAddress!
            // The times asked about never decrease, and stay before the clock's end, which
            // the last span reaches.
            while spans[index].end <= ms { index &+= 1 }
            assert(index < self.spans.count, "a piece asked for at or after the clock's end")
            let span = spans[index]
            let end = Double(span.end)
            return (hourlyRate[Int(span.hour)], Swift.max(end, t + 1))
        }

        /// At the end of the span's own piece (not one stretched to 1 ms): the next span,
        /// whose end is at least 1 ms on (so the piece is the span), and the spans after
        /// it while none holds the next arrival, each with the steps of the arrivals'
        /// loop: no arrival in the piece (`need` above its capacity), `need` less the
        /// capacity, t at its end. Each step's t, the end of the span before, is read
        /// from `ends` as the step needs it.
        @inline(__always)
        mutating func skipPieces(from t: Double, before limit: Double, need: inout Double)
            -> (start: Double, rate: Double, end: Double)? {
            guard t == ends[index] else { return nil }
            var i = index
            while true {
                i &+= 1
                let spanEnd = ends[i], spanRate = hourlyRate[Int(spans[i].hour)]
                assert(spanEnd > ends[i &- 1], "spans end one after another")
                if spanEnd >= limit { break }
                if spanRate > 0 {
                    let capacity = spanRate * (spanEnd - ends[i &- 1])
                    if need <= capacity { break }
                    need -= capacity
                }
            }
            index = i
            return (ends[i &- 1], hourlyRate[Int(spans[i].hour)], ends[i])
        }
    }

    /// Arrival times in `[start, end)` of the Poisson process whose rate in each local
    /// hour is `hourlyRate[hour]` (24 entries, as `LocalHourRate.hourlyRate` gives
    /// them): the same draws and times as `poissonArrivals` with
    /// `LocalHourRate(clock:hourlyRate:)` on these hours' clock, with `end` at most the
    /// clock's end, read from the spans (`Pieces`), which step over the hours without
    /// an arrival at once. Where the stream's exponentials are `TausExponentials`', the
    /// sampling layer's `poissonArrivals(hourSpans:…)` draws them in one C loop over the
    /// spans, the same steps.
    /// Not inlined: in a function of its own, the arrivals keep more of their state in
    /// registers than inlined into a builder's larger loop.
    @inline(never)
    public func poissonArrivals(
        _ stream: RandomStream, from start: SimTime, to end: SimTime, hourlyRate: [Double], into result: inout [Int64]
    ) {
        precondition(hourlyRate.count == 24, "a rate per local hour has 24 entries")
        precondition(start >= end || spans.last.map { $0.end >= end } == true, "arrivals past the clock's end")
        spans.withUnsafeBufferPointer { spans in
            ends.withUnsafeBufferPointer { ends in
                hourlyRate.withUnsafeBufferPointer { hourlyRate in
                    // The spans as the sampling layer's loop reads them: each end, and the
                    // hour at byte 8 (constants, checked when compiled).
                    if MemoryLayout<Span>.stride == 16 && MemoryLayout<Span>.offset(of: \Span.hour) == 8,
                        let first = spans.baseAddress,
                        stream.poissonArrivals(
                            hourSpans: UnsafeRawPointer(first), ends: ends.baseAddress!,
                            hourlyRate: hourlyRate.baseAddress!, from: start, to: end, into: &result)
                    {
                        return
                    }
                    var pieces = Pieces(spans: spans, ends: ends, hourlyRate: hourlyRate)
                    stream.poissonArrivals(from: start, to: end, pieces: &pieces, into: &result)
                }
            }
        }
    }
}

/// A piecewise-constant rate given as a 24-hour profile of local hours on a `LocalClock`:
/// the plain definition, each piece worked out from the clock. The world builder draws
/// its arrivals through `LocalHours.poissonArrivals`, which tests compare with this.
public struct LocalHourRate: PiecewiseConstantRate {
    public let clock: LocalClock
    /// Arrivals per ms in each local hour.
    public let hourlyRate: [Double]

    public init(clock: LocalClock, meanPerDay: Double, hourWeights: [Double]) {
        self.init(clock: clock, hourlyRate: Self.hourlyRate(meanPerDay: meanPerDay, hourWeights: hourWeights))
    }

    /// The rate with `hourlyRate` (as `hourlyRate(meanPerDay:hourWeights:)` gives it),
    /// for a profile whose rates serve many clocks.
    public init(clock: LocalClock, hourlyRate: [Double]) {
        self.clock = clock
        self.hourlyRate = hourlyRate
    }

    /// Arrivals per ms in each local hour: `meanPerDay` spread over the hours in
    /// proportion to `hourWeights` (none when the weights are all 0).
    public static func hourlyRate(meanPerDay: Double, hourWeights: [Double]) -> [Double] {
        let total = hourWeights.reduce(0, +)
        return hourWeights.map { total > 0 ? meanPerDay * $0 / total / Double(Milliseconds.hour) : 0 }
    }

    public func piece(containing t: Double) -> (rate: Double, end: Double) {
        // Times and local times of a run are not negative, where truncation and `/` are
        // the floor and floor division; the general forms serve anything else.
        let ms = t >= 0 ? SimTime(t) : SimTime(t.rounded(.down))
        let pieces = clock.pieces
        let i = clock.pieceIndex(ms)
        let offset = pieces[i].offset
        let local = clock.epochMs + ms + offset
        let hourStart = local >= 0 ? local / Milliseconds.hour : LocalClock.floorDiv(local, Milliseconds.hour)
        let hour = hourStart >= 0 ? Int(hourStart % 24) : Int(((hourStart % 24) + 24) % 24)
        let hourEnd = Double((hourStart + 1) * Milliseconds.hour - clock.epochMs - offset)
        let nextOffsetStart = i + 1 < pieces.count ? Double(pieces[i + 1].start) : .infinity
        return (hourlyRate[hour], max(min(hourEnd, nextOffsetStart), t + 1))
    }
}
