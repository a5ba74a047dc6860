import WidgetSimModel

/// The rows a block's part keeps beside its counts, one person's counts under one pair
/// at a time: `widget_days.csv`'s rows, which the report layer formats (and later joins
/// in block order). A format is shared by the runner's threads.
public protocol PartRowFormat: Sendable {
    /// Appends the rows of `person` in `replication` under the pair at index `pair`.
    func append(replication: Int, person: Int, pair: Int, _ counts: PersonCounts, to out: ByteBuffer)
}

/// A trace the runner tells which replication, and which point of a study, the events
/// it receives next belong to.
public protocol RunTrace: TraceSink {
    var replication: Int { get set }
    var point: Int? { get set }
}
