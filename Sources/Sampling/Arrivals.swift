import CSampling
import Foundation

/// The whole millisecond at or before `t`, whose integer part must fit in 64 bits. For
/// t ≥ 0, the times of a run, truncation is the floor: one conversion instruction
/// (`Int64(_:)` checks the range first).
@inlinable @inline(__always)
public func floorMilliseconds(_ t: Double) -> Int64 {
    t >= 0 ? widgetsim_trunc_i64(t) : Int64(t.rounded(.down))
}

/// A rate that is constant on consecutive pieces of time, for non-homogeneous Poisson
/// arrivals. Times are milliseconds, as `Double` while sampling.
public protocol PiecewiseConstantRate {
    /// The rate (arrivals per millisecond, ≥ 0) on the piece that contains `t`, and the
    /// end of that piece (> t). Every later time of the piece, up to 1 ms before its
    /// end, must get the same answer: `poissonArrivals` asks again only after that.
    func piece(containing t: Double) -> (rate: Double, end: Double)
}

/// A 24-hour profile: `meanPerDay` arrivals a day, spread over the local hours in
/// proportion to `hourWeights`, with local time = simulated time + `offset` (whole
/// milliseconds, so hour boundaries are exact).
public struct DailyProfile: PiecewiseConstantRate, Sendable {
    public static let hourMs = 3_600_000.0
    public static let dayMs = 86_400_000.0

    /// Arrivals per millisecond within each local hour.
    public let hourlyRate: [Double]
    public let offset: Double

    /// `hourWeights` needs 24 non-negative entries that are not all 0.
    public init(meanPerDay: Double, hourWeights: [Double], offsetMs: Int64 = 0) {
        precondition(hourWeights.count == 24, "a daily profile has 24 hourly weights")
        let total = hourWeights.reduce(0, +)
        precondition(total > 0 && hourWeights.allSatisfy { $0 >= 0 })
        hourlyRate = hourWeights.map { meanPerDay * $0 / total / Self.hourMs }
        offset = Double(offsetMs)
    }

    public func piece(containing t: Double) -> (rate: Double, end: Double) {
        let local = t + offset
        let hourIndex = (local / Self.hourMs).rounded(.down)
        let hourOfDay = Int(hourIndex.truncatingRemainder(dividingBy: 24) + 24) % 24
        return (hourlyRate[hourOfDay], (hourIndex + 1) * Self.hourMs - offset)
    }
}

/// The pieces of a rate as one run of `poissonArrivals` reads them: at times that never
/// decrease, and before the run's end. A reader may keep where it is (an index into a
/// table of pieces), and may step over the pieces that hold no arrival in one go
/// (`skipPieces`).
public protocol RatePieces {
    /// The rate (arrivals per millisecond, ≥ 0) on the piece that contains `t`, and the
    /// end of that piece (> t), as `PiecewiseConstantRate.piece(containing:)` gives them.
    mutating func piece(containing t: Double) -> (rate: Double, end: Double)

    /// At `t`, the end of the piece last given and before `limit`, with `need` of
    /// integrated rate to go before the next arrival: the pieces from `t` on that the
    /// loop of `poissonArrivals` would walk through without an arrival, each taking its
    /// capacity (rate × length) off `need`, then the piece after them (its start, rate
    /// and end), which holds the arrival or reaches `limit`. Nil leaves the loop to ask
    /// `piece(containing: t)`. Whatever it answers, the arrivals are the same.
    mutating func skipPieces(from t: Double, before limit: Double, need: inout Double)
        -> (start: Double, rate: Double, end: Double)?
}

extension RatePieces {
    @inlinable
    public mutating func skipPieces(from t: Double, before limit: Double, need: inout Double)
        -> (start: Double, rate: Double, end: Double)? { nil }
}

/// The pieces of a `PiecewiseConstantRate`, asked for one at a time.
public struct PiecesOfRate<Rate: PiecewiseConstantRate>: RatePieces {
    @usableFromInline let rate: Rate

    @inlinable
    public init(_ rate: Rate) { self.rate = rate }

    @inlinable
    public func piece(containing t: Double) -> (rate: Double, end: Double) { rate.piece(containing: t) }
}

extension RandomStream {
    /// Arrival times in `[start, end)` of a Poisson process with a piecewise-constant
    /// rate, in whole milliseconds (each arrival rounded down).
    ///
    /// Inlinable so that callers get a copy specialised for their rate type: called
    /// through the protocol, `piece(containing:)` costs more than the rest of the loop.
    @inlinable
    public func poissonArrivals(
        from start: SimTimeLike, to end: SimTimeLike, rate: some PiecewiseConstantRate,
        into result: inout [Int64]
    ) {
        var pieces = PiecesOfRate(rate)
        poissonArrivals(from: start, to: end, pieces: &pieces, into: &result)
    }

    /// Arrival times in `[start, end)` of a Poisson process whose rate is read from
    /// `pieces`, in whole milliseconds (each arrival rounded down).
    ///
    /// The method is inversion of the integrated rate: unit-mean exponential gaps are
    /// laid out on the cumulative-intensity axis and mapped back to clock time piece
    /// by piece, so a piece of rate 0 gets no arrival and uses no draw. The number of
    /// draws depends only on the number of arrivals (one per arrival, plus one), which
    /// keeps streams aligned.
    ///
    /// The arrivals of one piece are drawn in an inner loop that keeps the piece, and
    /// they reach `result` in batches through a buffer on the stack (an append to
    /// `result` would check its storage at every arrival).
    ///
    /// A `taus2` stream's state is copied out for the loop (`withTausUniforms`), which
    /// keeps it in registers across the draws: the same uniforms in the same order. Its
    /// exponentials are `TausExponentials`' where glibc's log1p is the fused one: the
    /// same bits without glibc's entry checks and the call through its table.
    @inlinable
    public func poissonArrivals(
        from start: SimTimeLike, to end: SimTimeLike, pieces: inout some RatePieces, into result: inout [Int64]
    ) {
        let copied: Void? = withTausUniforms { uniforms in
            guard TausExponentials.fusedLog1p else {
                return Self.poissonArrivals(&uniforms, from: start, to: end, pieces: &pieces, into: &result)
            }
            var exponentials = TausExponentials(uniforms)
            Self.poissonArrivals(&exponentials, from: start, to: end, pieces: &pieces, into: &result)
            uniforms = exponentials.uniforms
        }
        if copied == nil {
            var draws = self
            Self.poissonArrivals(&draws, from: start, to: end, pieces: &pieces, into: &result)
        }
    }

    /// `poissonArrivals(from:to:pieces:into:)` drawing its uniforms from `draws`; each
    /// exponential is −log1p(−u) of one uniform u (`unitExponential()`), as
    /// `exponential(mean: 1)` draws it.
    @inlinable
    static func poissonArrivals(
        _ draws: inout some UniformSource, from start: SimTimeLike, to end: SimTimeLike, pieces: inout some RatePieces,
        into result: inout [Int64]
    ) {
        @inline(__always) func exponential() -> Double { draws.unitExponential() }
        // Batches of 128 arrivals: 1 KB, the most `withUnsafeTemporaryAllocation` keeps
        // on the stack (a larger buffer would be allocated at every call).
        withUnsafeTemporaryAllocation(of: Int64.self, capacity: 128) { batch in
            let base = batch.baseAddress!
            var filled = 0
            var t = Double(start)
            let limit = Double(end)
            var need = exponential()
            pieces: while t < limit {
                var (r, pieceEnd) = pieces.piece(containing: t)
                piece: while true {
                    let reach = Swift.min(pieceEnd, limit)
                    // A piece must end after t; should rounding ever say otherwise, step
                    // past t rather than stall.
                    let stop = reach > t ? reach : t.nextUp
                    if r > 0 {
                        let capacity = r * (stop - t)
                        if need <= capacity {
                            t += need / r
                            // t is below `limit` (an Int64), so its integer part fits.
                            let ms = floorMilliseconds(t)
                            if ms >= end { break pieces }
                            if filled == batch.count {
                                result.append(contentsOf: batch)
                                filled = 0
                            }
                            (base + filled).initialize(to: ms)
                            filled &+= 1
                            need = exponential()
                            // The piece still holds while t is 1 ms or more before its end
                            // (the protocol's promise): the same answer, without asking again.
                            if t < limit && t + 1 <= pieceEnd { continue }
                            continue pieces
                        }
                        need -= capacity
                    }
                    t = stop
                    // At the piece's end, before the limit: the pieces without an arrival
                    // stepped over at once, when the reader can.
                    if t == pieceEnd && t < limit, let next = pieces.skipPieces(from: t, before: limit, need: &need) {
                        (t, r, pieceEnd) = next
                        continue piece
                    }
                    continue pieces
                }
            }
            result.append(contentsOf: UnsafeBufferPointer(rebasing: batch[..<filled]))
        }
    }
}

extension RandomStream {
    /// The arrivals in `[start, end)` of a Poisson process whose rate is constant on
    /// spans of time, each span's rate `hourlyRate[hour]` of its local hour, by
    /// CSampling's `widgetsim_hour_arrivals_run`: the draws and times of
    /// `poissonArrivals(from:to:pieces:into:)` with WidgetSimModel's `LocalHours.Pieces`
    /// over the same spans, for a `taus2` stream where its exponentials are
    /// `TausExponentials`'. Elsewhere it returns false and draws nothing.
    ///
    /// `spans` are 16 bytes apart, each a 64-bit end (ms, increasing, the last at or
    /// after `end`) with the hour (0…23, a byte) at byte 8; `ends` are the same ends as
    /// doubles.
    @inlinable
    public func poissonArrivals(
        hourSpans spans: UnsafeRawPointer, ends: UnsafePointer<Double>, hourlyRate: UnsafePointer<Double>,
        from start: SimTimeLike, to end: SimTimeLike, into result: inout [Int64]
    ) -> Bool {
        guard TausExponentials.fusedLog1p else { return false }
        return withTausUniforms { uniforms in
            var state = widgetsim_hour_arrivals()
            state.t = Double(start)
            state.need = widgetsim_exponential_of_word(uniforms.uniformWord())
            state.words = uniforms.words
            withUnsafeTemporaryAllocation(of: Int64.self, capacity: 128) { batch in
                var finished: Int32 = 0
                repeat {
                    let n = widgetsim_hour_arrivals_run(
                        &state, spans, ends, hourlyRate, Double(end), end, batch.baseAddress!, batch.count, &finished)
                    result.append(contentsOf: UnsafeBufferPointer(rebasing: batch[..<n]))
                } while finished == 0
            }
            uniforms.words = state.words
            return true
        } ?? false
    }
}

/// Millisecond times as the sampling layer accepts them.
public typealias SimTimeLike = Int64
