/// What a model supplies to the kernel: a handler for its own event payloads.
///
/// The kernel calls `handle` once per live event, in time order (ties by rank, then
/// by scheduling order; see `EventQueue`). The handler may schedule, supersede or
/// cancel events through the queue it is given. The kernel never looks inside a payload.
public protocol EventHandler {
    associatedtype Payload
    mutating func handle(_ payload: Payload, at time: SimTime, queue: inout EventQueue<Payload>)
}

/// The clock and the run loop over one `EventQueue`.
public struct Simulation<Handler: EventHandler> {
    /// The current simulated time: the due time of the event being (or last) handled,
    /// or the bound of the last `run(until:)`.
    @inlinable public var now: SimTime { clock }
    /// Live events handled so far.
    @inlinable public var eventsHandled: Int { handled }
    @usableFromInline var clock: SimTime = 0
    @usableFromInline var handled: Int = 0
    public var queue: EventQueue<Handler.Payload>
    public var handler: Handler

    public init(handler: Handler, queue: EventQueue<Handler.Payload>) {
        self.handler = handler
        self.queue = queue
    }

    /// Handles the next live event if one is due before `limit`; returns false when
    /// none is. O(log n) amortised.
    @inlinable
    @discardableResult
    public mutating func step(before limit: SimTime = .max) -> Bool {
        guard let (time, payload) = queue.popNext(before: limit) else { return false }
        precondition(time >= clock, "an event was scheduled in the past")
        clock = time
        handled += 1
        handler.handle(payload, at: time, queue: &queue)
        return true
    }

    /// Handles every event due strictly before `end`, in order, then sets the clock to
    /// `end`. An event due at `end` or later stays pending and does not run.
    @inlinable
    public mutating func run(until end: SimTime) {
        while step(before: end) {}
        if end > clock { clock = end }
    }

    /// Handles, in order, every queued event that comes before an event due at `time`
    /// with `rank` that the caller keeps outside the queue, then sets the clock to
    /// `time` for the caller to handle its own event. Queued events come first when due
    /// earlier, or at `time` with a smaller rank; at equal time and rank, the caller's
    /// event comes first.
    ///
    /// For inputs known before the run (a trace, pre-drawn arrivals): merged in here a
    /// run loop at a time, they never enter the heap, which then holds only the events
    /// the model schedules as it goes.
    @inlinable
    public mutating func run(before time: SimTime, rank: UInt8) {
        while let (due, payload) = queue.popNext(before: time, rank: rank) {
            precondition(due >= clock, "an event was scheduled in the past")
            clock = due
            handled += 1
            handler.handle(payload, at: due, queue: &queue)
        }
        precondition(time >= clock, "an outside event is due in the past")
        clock = time
    }
}
