import Testing
@testable import WidgetSimSampling

/// Non-homogeneous Poisson arrivals with a `DailyProfile`.
@Suite struct ArrivalsTests {
    static let hour: Int64 = 3_600_000
    static let day: Int64 = 86_400_000

    /// Nothing from 23:00 to 06:00, a morning peak at 8, a lunch bump and an evening peak.
    static let weights: [Double] = [
        0, 0, 0, 0, 0, 0, // 00–05
        1, 4, 9, 5, 3, 3, // 06–11
        6, 4, 3, 3, 4, 6, // 12–17
        10, 8, 6, 4, 2, 0, // 18–23
    ]
    static let meanPerDay = 85.0

    /// Expected arrivals in each local hour of day over `[start, end)`, integrated
    /// directly from the weights: each local hour [u, u + 1 h) contributes
    /// meanPerDay · w/Σw · (overlap / 1 h).
    static func expectedPerLocalHour(start: Int64, end: Int64, offset: Int64) -> [Double] {
        let total = weights.reduce(0, +)
        var expected = Array(repeating: 0.0, count: 24)
        let localStart = start + offset, localEnd = end + offset
        var u = localStart - ((localStart % hour) + hour) % hour  // floor to the hour
        while u < localEnd {
            let overlap = min(u + hour, localEnd) - max(u, localStart)
            let h = Int(((u / hour) % 24 + 24) % 24)
            expected[h] += meanPerDay * weights[h] / total * Double(overlap) / Double(hour)
            u += hour
        }
        return expected
    }

    static func localHour(_ t: Int64, offset: Int64) -> Int {
        // floor((t + offset) / 1 h) mod 24, for negative values too.
        let local = t + offset
        let hourIndex = local >= 0 ? local / hour : -((-local + hour - 1) / hour)
        return Int((hourIndex % 24 + 24) % 24)
    }

    func arrivals(
        _ key: StreamKey, from start: Int64, to end: Int64, offset: Int64 = 0
    ) -> [Int64] {
        let s = RandomStream(key: key)
        let profile = DailyProfile(meanPerDay: Self.meanPerDay, hourWeights: Self.weights, offsetMs: Int64(offset))
        var result = [Int64]()
        s.poissonArrivals(from: start, to: end, rate: profile, into: &result)
        return result
    }

    /// Hour-of-day counts over many days against the integrated rate, within z Poisson
    /// standard deviations; nothing in a zero-weight hour; all inside [start, end) and
    /// sorted. Offsets include half-hour zones, negative ones and a window that does not
    /// start on an hour.
    static let windows: [(start: Int64, offset: Int64)] = [
        (0, 0),
        (0, -5 * hour),
        (0, 5 * hour + hour / 2),
        (1_234_567, 9 * hour + 3 * hour / 4),
        (-3 * day + 17, -11 * hour),
    ]

    @Test(arguments: windows)
    func hourOfDayCounts(start: Int64, offset: Int64) {
        let days: Int64 = 365
        let end = start + days * Self.day + Self.hour / 2
        let times = arrivals(
            StreamKey(seed: 2024, replication: 0, person: Int(offset & 0xFFFF), process: 1),
            from: start, to: end, offset: offset)
        #expect(!times.isEmpty)
        #expect(times.allSatisfy { $0 >= start && $0 < end }, "an arrival outside [start, end)")
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 }, "arrivals not sorted")

        var counts = Array(repeating: 0, count: 24)
        for t in times { counts[Self.localHour(t, offset: offset)] += 1 }
        let expected = Self.expectedPerLocalHour(start: start, end: end, offset: offset)
        for h in 0 ..< 24 {
            if Self.weights[h] == 0 {
                #expect(counts[h] == 0, "local hour \(h) has weight 0 but \(counts[h]) arrivals")
            } else {
                let tolerance = z * expected[h].squareRoot()  // Poisson: variance = mean
                #expect(abs(Double(counts[h]) - expected[h]) <= tolerance,
                        "local hour \(h): \(counts[h]) arrivals, expected \(expected[h]) ± \(tolerance)")
            }
        }
        let totalExpected = expected.reduce(0, +)
        #expect(abs(Double(times.count) - totalExpected) <= z * totalExpected.squareRoot())
    }

    /// The count over D days is Poisson with mean meanPerDay·D: across independent
    /// seeds the mean count is within z standard errors, and so is the variance
    /// (Poisson μ4 = λ(1 + 3λ)).
    @Test func totalCountIsPoisson() {
        let days: Int64 = 7
        let replications = 200
        let counts = (0 ..< replications).map { r in
            Double(arrivals(StreamKey(seed: 9, replication: r, person: 3, process: 1),
                            from: 0, to: days * Self.day, offset: 2 * Self.hour).count)
        }
        let lambda = Self.meanPerDay * Double(days)
        expectMoments(counts, Analytic(mean: lambda, variance: lambda, mu4: lambda * (1 + 3 * lambda)),
                      "arrivals over \(days) days")
    }

    /// A flat profile is a homogeneous process: the gaps are exponential with mean
    /// 1 day / meanPerDay (the memoryless property holds across hour boundaries).
    @Test func flatProfileGapsAreExponential() {
        let s = RandomStream(key: StreamKey(seed: 3, replication: 0, person: 0, process: 9))
        let profile = DailyProfile(meanPerDay: 240, hourWeights: Array(repeating: 1, count: 24))
        var times = [Int64]()
        s.poissonArrivals(from: 0, to: 400 * Self.day, rate: profile, into: &times)
        let gaps = zip(times, times.dropFirst()).map { Double($1 - $0) }
        let m = Double(Self.day) / 240
        // Times are rounded down to whole ms; that adds variance ≈ 1/6 ms², negligible.
        expectMoments(gaps, Analytic(mean: m, variance: m * m, mu4: 9 * m * m * m * m), "flat gaps")
    }

    /// One exponential draw per arrival, plus one: after k arrivals the stream is
    /// where a fresh one is after k + 1 unit exponentials, whatever the profile.
    static let offsets: [Int64] = [0, 7 * hour]

    @Test(arguments: offsets)
    func drawsPerArrival(offset: Int64) {
        let key = StreamKey(seed: 4, replication: 0, person: 1, process: 1)
        let s = RandomStream(key: key)
        let profile = DailyProfile(meanPerDay: 85, hourWeights: Self.weights, offsetMs: Int64(offset))
        var times = [Int64]()
        s.poissonArrivals(from: 0, to: 3 * Self.day, rate: profile, into: &times)
        let shadow = RandomStream(key: key)
        for _ in 0 ... times.count { _ = shadow.exponential(mean: 1) }
        #expect(s.uniform() == shadow.uniform())
    }

    @Test func zeroRateWindowHasNoArrivalAndOneDraw() {
        let key = StreamKey(seed: 4, replication: 0, person: 2, process: 1)
        let s = RandomStream(key: key)
        let profile = DailyProfile(meanPerDay: 1000, hourWeights: Self.weights)
        var times = [Int64]()
        // 23:00 to 06:00 the next day: every hour has weight 0.
        s.poissonArrivals(from: 23 * Self.hour, to: Self.day + 6 * Self.hour, rate: profile, into: &times)
        #expect(times.isEmpty)
        let shadow = RandomStream(key: key)
        _ = shadow.exponential(mean: 1)
        #expect(s.uniform() == shadow.uniform())
    }

    @Test func appendsToExistingResultAndHandlesEmptyWindow() {
        let s = RandomStream(key: StreamKey(seed: 4, replication: 0, person: 3, process: 1))
        let profile = DailyProfile(meanPerDay: 85, hourWeights: Self.weights)
        var times: [Int64] = [-42]
        s.poissonArrivals(from: 5 * Self.day, to: 5 * Self.day, rate: profile, into: &times)
        #expect(times == [-42])
        s.poissonArrivals(from: 5 * Self.day, to: 6 * Self.day, rate: profile, into: &times)
        #expect(times.first == -42)
        #expect(times.count > 1)
        #expect(times.dropFirst().allSatisfy { $0 >= 5 * Self.day && $0 < 6 * Self.day })
    }

    /// Splitting a window does not change the distribution: day-by-day calls with one
    /// stream produce per-day counts with the right mean.
    @Test func dayByDayCallsKeepTheRate() {
        let s = RandomStream(key: StreamKey(seed: 8, replication: 0, person: 0, process: 1))
        let profile = DailyProfile(meanPerDay: Self.meanPerDay, hourWeights: Self.weights, offsetMs: 3_600_000)
        var perDay = [Double]()
        for d in 0 ..< 500 as Range<Int64> {
            var times = [Int64]()
            s.poissonArrivals(from: d * Self.day, to: (d + 1) * Self.day, rate: profile, into: &times)
            perDay.append(Double(times.count))
        }
        let lambda = Self.meanPerDay
        expectMoments(perDay, Analytic(mean: lambda, variance: lambda, mu4: lambda * (1 + 3 * lambda)),
                      "arrivals per day")
    }

    @Test func profileRates() {
        let p = DailyProfile(meanPerDay: 85, hourWeights: Self.weights, offsetMs: -2 * 3_600_000)
        let total = Self.weights.reduce(0, +)
        // Integrated over a day the rate gives meanPerDay.
        let daily = p.hourlyRate.reduce(0, +) * DailyProfile.hourMs
        #expect(abs(daily - 85) < 1e-9)
        for h in 0 ..< 24 {
            #expect(abs(p.hourlyRate[h] - 85 * Self.weights[h] / total / DailyProfile.hourMs) < 1e-15)
        }
        // Simulated 10:30 is local 08:30 (offset −2 h); that piece ends at simulated 11:00.
        let piece = p.piece(containing: 10.5 * DailyProfile.hourMs)
        #expect(piece.rate == p.hourlyRate[8])
        #expect(piece.end == 11 * DailyProfile.hourMs)
        // Before the start: simulated −0:30 is local 21:30 the day before.
        let early = p.piece(containing: -0.5 * DailyProfile.hourMs)
        #expect(early.rate == p.hourlyRate[21])
        #expect(early.end == 0)
    }

    /// The piece containing a piece's end starts there: walking from piece end to piece
    /// end advances by exactly one hour, for 400 days (past the binade boundaries 2^25 …
    /// 2^35 ms, where rounding of t + offset could otherwise stall the walk).
    @Test(arguments: [Int64(0), -1_154_433, 19_800_000, -39_600_000, 1])
    func pieceEndsAdvanceByOneHour(offset: Int64) {
        let p = DailyProfile(meanPerDay: 85, hourWeights: Self.weights, offsetMs: Int64(offset))
        var t = p.piece(containing: 0).end
        var stalls = 0, wrongLength = 0
        for _ in 0 ..< 400 * 24 {
            let next = p.piece(containing: t).end
            if !(next > t) { stalls += 1; break }
            if next - t != DailyProfile.hourMs { wrongLength += 1 }
            t = next
        }
        #expect(stalls == 0)
        #expect(wrongLength == 0)
        // Piece ends fall on local hour boundaries.
        #expect((Int64(t) + offset) % Self.hour == 0)
    }

    /// Hour boundaries are exact for whole-millisecond offsets: just before and at each
    /// boundary, a piece ends after t (the arrival loop relies on it to progress).
    @Test func pieceEndsAfterTNearEveryBoundary() {
        for offset: Int64 in [-1_154_433, 0, 1_800_000, 5 * 3_600_000 + 1] {
            let p = DailyProfile(meanPerDay: 85, hourWeights: Self.weights, offsetMs: offset)
            for hour in 0 ..< 48 {
                let boundary = Double(hour) * DailyProfile.hourMs - Double(offset)
                for t in [boundary.nextDown, boundary, boundary.nextUp, boundary + 0.3] where t >= 0 {
                    #expect(p.piece(containing: t).end > t, "offset \(offset), t \(t)")
                }
            }
        }
    }

    /// The method as one loop, asking for the piece whenever t comes within 1 ms of the
    /// last piece's end: `poissonArrivals` must give these arrivals and leave its stream
    /// where this leaves it, to the bit (it is what the world's processes draw).
    static func oneLoop(_ s: RandomStream, from start: Int64, to end: Int64,
                        rate: some PiecewiseConstantRate) -> [Int64] {
        var result: [Int64] = []
        var t = Double(start)
        let limit = Double(end)
        var need = s.exponential(mean: 1)
        var r = 0.0, pieceEnd = -Double.infinity
        while t < limit {
            if !(t + 1 <= pieceEnd) { (r, pieceEnd) = rate.piece(containing: t) }
            let reach = min(pieceEnd, limit)
            let stop = reach > t ? reach : t.nextUp
            if r > 0 {
                let capacity = r * (stop - t)
                if need <= capacity {
                    t += need / r
                    let ms = Int64(t.rounded(.down))
                    if ms >= end { break }
                    result.append(ms)
                    need = s.exponential(mean: 1)
                    continue
                }
                need -= capacity
            }
            t = stop
        }
        return result
    }

    /// Short pieces of odd lengths, some of rate 0, ending at fractions of a ms.
    struct Ragged: PiecewiseConstantRate {
        func piece(containing t: Double) -> (rate: Double, end: Double) {
            let length = 777.7
            let k = (t / length).rounded(.down)
            let rates = [0.004, 0, 0.02, 0.0001, 0]
            return (rates[Int(k.truncatingRemainder(dividingBy: 5))], (k + 1) * length)
        }
    }

    @Test(arguments: [(0, 0), (1_234_567, -5 * hour), (0, 5 * hour + hour / 2)] as [(Int64, Int64)])
    func arrivalsAreTheOneLoopDefinitionsToTheBit(start: Int64, offset: Int64) {
        for person in 0 ..< 4 {
            let key = StreamKey(seed: 21, replication: 0, person: person, process: 1)
            let profile = DailyProfile(meanPerDay: 900, hourWeights: Self.weights, offsetMs: offset)
            let a = RandomStream(key: key), b = RandomStream(key: key)
            var times: [Int64] = []
            a.poissonArrivals(from: start, to: start + 9 * Self.day, rate: profile, into: &times)
            #expect(times.count > 64 * 10)
            #expect(times == Self.oneLoop(b, from: start, to: start + 9 * Self.day, rate: profile))
            #expect(a.uniform() == b.uniform())
            var ragged: [Int64] = []
            a.poissonArrivals(from: start, to: start + 3_000_000, rate: Ragged(), into: &ragged)
            #expect(ragged == Self.oneLoop(b, from: start, to: start + 3_000_000, rate: Ragged()))
            #expect(a.uniform() == b.uniform())
        }
    }

    /// A rate whose piece ends exactly at t (a broken contract) cannot stall arrivals.
    @Test func arrivalsProgressPastAPieceThatEndsAtT() {
        struct Stuck: PiecewiseConstantRate {
            func piece(containing t: Double) -> (rate: Double, end: Double) {
                // Up to 500 ms nothing; a piece "ending" at 500 when asked at 500 (the
                // broken contract); then 0.01 arrivals per ms.
                t <= 500 ? (0, 500) : (0.01, .infinity)
            }
        }
        let stream = RandomStream(kind: .taus2, seed: 3)
        var times: [Int64] = []
        stream.poissonArrivals(from: 0, to: 100_000, rate: Stuck(), into: &times)
        #expect(!times.isEmpty)
        #expect(times.allSatisfy { $0 >= 500 && $0 < 100_000 })
    }

    /// A `taus2` stream's arrivals are drawn from a copy of its state in the loop
    /// (`withTausUniforms`): the same times as drawing from the stream itself, whatever
    /// the profile, window and offset, and the stream goes on where it would have
    /// (the next uniform and the next arrivals agree too).
    @Test func arrivalsFromACopyOfTheStateAreThoseOfTheStream() {
        let flat = [Double](repeating: 1, count: 24)
        var windows = 0
        for (k, (weights, offset)) in [(Self.weights, Int64(0)), (flat, -3 * Self.hour), (Self.weights, 19_800_000)]
            .enumerated() {
            for perDay in [0.5, 12, 90, 2_000] {
                let profile = DailyProfile(meanPerDay: perDay, hourWeights: weights, offsetMs: offset)
                let copied = RandomStream(kind: .taus2, seed: UInt(40 + k))
                let itself = RandomStream(kind: .taus2, seed: UInt(40 + k))
                for (start, end) in [(Int64(0), 7 * Self.day), (1_234_567, 1_234_567 + 5 * Self.hour), (Self.day, Self.day)] {
                    var a: [Int64] = [], b: [Int64] = []
                    copied.poissonArrivals(from: start, to: end, rate: profile, into: &a)
                    var draws = itself
                    var pieces = PiecesOfRate(profile)
                    RandomStream.poissonArrivals(&draws, from: start, to: end, pieces: &pieces, into: &b)
                    #expect(a == b, "\(perDay) a day, offset \(offset), [\(start), \(end))")
                    #expect(copied.uniform() == itself.uniform())
                    windows += a.isEmpty ? 0 : 1
                }
            }
        }
        #expect(windows > 12)
    }
}
