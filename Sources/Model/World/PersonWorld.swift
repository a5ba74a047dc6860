import Foundation
import WidgetSimKernel
import WidgetSimSampling

/// One person's exogenous world over a run (MODEL §2): every arrival and every draw
/// that no policy can change, generated once and replayed under each policy pair, so
/// policies are compared on exactly the same days (common random numbers).
public final class PersonWorld {
    @exclusivity(unchecked) public internal(set) var person = 0
    @exclusivity(unchecked) public internal(set) var replication = 0
    @exclusivity(unchecked) public internal(set) var clock: LocalClock
    /// The clock's local hours, for the processes that read them in time order.
    @exclusivity(unchecked) public internal(set) var hours: LocalHours
    @exclusivity(unchecked) public internal(set) var timeChanges: [SimTime] = []
    @exclusivity(unchecked) public internal(set) var environmentChanges: [SimTime] = []
    @exclusivity(unchecked) public internal(set) var views: [ViewRecord] = []
    /// λ of each stack member at each view, in member order, one row of `members`
    /// values per view: row `i` for view i, or, when `interestByHour` is true, row
    /// `weekday * 24 + hour` of the view's local weekday and hour (when no member's
    /// interest bursts, λ depends on those alone, and one table serves every view).
    @exclusivity(unchecked) public internal(set) var viewInterest: [Double] = []
    @exclusivity(unchecked) public internal(set) var interestByHour = false
    @exclusivity(unchecked) public internal(set) var sessions: [SessionRecord] = []
    /// Session ends in time order, with the session's widget.
    @exclusivity(unchecked) public internal(set) var sessionEnds: [WidgetMoment] = []
    /// Every widget's random content changes, and their pushes, by time then widget:
    /// laid out from the world's order (`WorldOrder.merge` sorts them with the other
    /// items) when first read, since a run reads each item's widget from the order.
    public var randomChanges: [WidgetMoment] {
        layOutMoments()
        return changeMoments
    }
    public var pushes: [WidgetMoment] {
        layOutMoments()
        return pushMoments
    }
    /// `randomChanges` and `pushes` once laid out, over the last person's lists.
    @exclusivity(unchecked) var changeMoments: [WidgetMoment] = []
    @exclusivity(unchecked) var pushMoments: [WidgetMoment] = []
    /// Whether `changeMoments` and `pushMoments` are those of `order`.
    @exclusivity(unchecked) var momentsLaidOut = true
    /// Each widget's scheduled (predictable, known-ahead) changes, sorted.
    @exclusivity(unchecked) public internal(set) var scheduled: [[SimTime]] = []
    /// Each widget's push arrival times, sorted (for interest bursts).
    @exclusivity(unchecked) public internal(set) var pushTimes: [[SimTime]] = []
    /// Audio or navigation session starts and ends, each in time order, with the
    /// widget that declares its app's sessions.
    @exclusivity(unchecked) public internal(set) var audioStarts: [WidgetMoment] = []
    @exclusivity(unchecked) public internal(set) var audioEnds: [WidgetMoment] = []
    /// StandBy periods: starts and ends, in time order, one of each per night.
    @exclusivity(unchecked) public internal(set) var standByStarts: [SimTime] = []
    @exclusivity(unchecked) public internal(set) var standByEnds: [SimTime] = []
    /// Instances added to the home screen during the run, in time order.
    @exclusivity(unchecked) public internal(set) var additions: [WidgetMoment] = []
    /// All of the above before the run's end, in the order the engine meets them.
    @exclusivity(unchecked) public internal(set) var order = WorldOrder()

    init(clock: LocalClock) {
        self.clock = clock
        hours = LocalHours(clock)
    }
}

/// The lists of a world that a run reads at most of its items (the content changes'
/// and pushes' widgets are in their keys), in place: an item's
/// position (the items of its process before it in the `WorldOrder`) is below its
/// list's count by construction, so the run reads them without a bounds check (checked
/// in debug builds).
struct WorldItems {
    let views: UnsafeBufferPointer<ViewRecord>
    let sessions: UnsafeBufferPointer<SessionRecord>
    let sessionEnds: UnsafeBufferPointer<WidgetMoment>
}

extension PersonWorld {
    /// Calls `body` with the world's `WorldItems`, valid for the call.
    func withItems<R>(_ body: (WorldItems) throws -> R) rethrows -> R {
        try views.withUnsafeBufferPointer { views in
            try sessions.withUnsafeBufferPointer { sessions in
                try sessionEnds.withUnsafeBufferPointer { sessionEnds in
                    try body(WorldItems(views: views, sessions: sessions, sessionEnds: sessionEnds))
                }
            }
        }
    }
}

public enum WorldError: Error, CustomStringConvertible {
    case unknownTimeZone(String)
    case badStartDate(String)
    public var description: String {
        switch self {
        case .unknownTimeZone(let z): "unknown time zone `\(z)`"
        case .badStartDate(let d): "the start date \(d) has no local midnight"
        }
    }
}
