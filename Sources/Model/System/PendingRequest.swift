import WidgetSimKernel

/// One pending request per instance (MODEL §3): what the engine keeps of an instance's
/// refused and deferred charged request. When a second request of the same instance is
/// refused and deferred while one is pending, the two become one: it is asked at the
/// earlier of their two times, with the stronger of their two reasons.
///
/// Strength: a timeline request is stronger than a background one. The timeline is the
/// system's own schedule and is retried until granted; a background request is a
/// best effort that the refusal rule may drop (`background_retry: drop`). A pending
/// request that holds a timeline request must keep being retried, so it carries the
/// timeline reason; a reload, whatever its reason, shows the newest content either way.
public struct PendingRequest: Sendable, Equatable {
    /// Which requests it holds.
    public var timeline = false
    public var background = false

    public init(timeline: Bool = false, background: Bool = false) {
        self.timeline = timeline
        self.background = background
    }

    public var isEmpty: Bool { !timeline && !background }

    /// The reason it is asked with: the strongest it holds.
    public var reason: ReloadReason { timeline ? .timeline : .background }

    /// Adds a request of `reason` (a charged one).
    public mutating func add(_ reason: ReloadReason) {
        if reason == .timeline { timeline = true } else { background = true }
    }

    /// The stronger of two reasons.
    public static func stronger(_ a: ReloadReason, _ b: ReloadReason) -> ReloadReason {
        a == .timeline || b == .timeline ? .timeline : .background
    }
}
