/// Conversions from a `Double` drawn at random to a whole number of milliseconds.
///
/// Scenario bounds keep every mean and median inside the run, but a draw from a
/// long-tailed distribution (a log-normal length, an exponential stay) can still land
/// anywhere: converted as is, a value beyond `Int64` would trap. These conversions
/// saturate instead, at a length far past the end of any run (a run lasts at most
/// 100 000 days, 8.64e12 ms), so an instant plus such a length still fits in `Int64`
/// and is simply never reached. Values inside the limit convert exactly as `Int64(_:)`.
public enum CheckedTime {
    /// About 46 000 years: far past any run's end, far inside `Int64`.
    public static let limit: Int64 = 1 << 50

    /// `v` (already rounded as wanted) as milliseconds, saturated to ±`limit`; NaN is 0.
    @inlinable
    public static func milliseconds(_ v: Double) -> Int64 {
        if v >= Double(limit) { return limit }
        if v <= -Double(limit) { return -limit }
        if v.isNaN { return 0 }
        return Int64(v)
    }
}
