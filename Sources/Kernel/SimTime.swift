/// Simulated time: whole milliseconds since the scenario's start instant.
public typealias SimTime = Int64

/// Milliseconds in common units.
public enum Milliseconds {
    /// One second.
    public static let second: SimTime = 1_000
    /// One minute.
    public static let minute: SimTime = 60_000
    /// One hour.
    public static let hour: SimTime = 3_600_000
    /// One day (24 h).
    public static let day: SimTime = 86_400_000
}
