import WidgetSimKernel
import WidgetSimSampling

/// What a ranking policy sees at one home-screen view. Stack members are numbered
/// `0 ..< count` in the person's order.
public struct ViewContext {
    /// The view's time (milliseconds since the run's start).
    public var time: SimTime
    /// Local hour of day, 0…23.
    public var hour: Int
    /// Local weekday, Monday = 0 … Sunday = 6.
    public var weekday: Int
    /// Latent interest λ of each stack member at this view. This is the ground truth
    /// the person's behaviour is drawn from: only `oracle` may read it.
    public var groundTruthInterest: MemberInterest

    /// The context of one view (the engine makes it; tests may too, with
    /// `MemberInterest.withValues(_:_:)`).
    public init(time: SimTime, hour: Int, weekday: Int, groundTruthInterest: MemberInterest) {
        self.time = time
        self.hour = hour
        self.weekday = weekday
        self.groundTruthInterest = groundTruthInterest
    }
}

/// One value per stack member, in member order, read in place from the engine's
/// tables: `interest[m]` is member m's (checked against `count`). It is valid during
/// the call it comes with; a policy that wants values later copies them
/// (`Array(interest)`), as they change from view to view.
public struct MemberInterest: RandomAccessCollection {
    private let values: UnsafeBufferPointer<Double>

    /// The values at `values`, which the caller keeps alive while this is read.
    init(_ values: UnsafeBufferPointer<Double>) {
        self.values = values
    }

    /// Calls `body` with a view of `values` (one per member), valid during the call.
    public static func withValues<R>(_ values: [Double], _ body: (MemberInterest) throws -> R) rethrows -> R {
        try values.withUnsafeBufferPointer { try body(MemberInterest($0)) }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { values.count }

    /// Member `m`'s value; `m` must be in `0 ..< count`.
    public subscript(m: Int) -> Double {
        precondition(m >= 0 && m < values.count, "a member outside the stack")
        return values[m]
    }
}

/// What the person visibly did at a view: the learning signal.
public struct ViewOutcome {
    /// The view's time (milliseconds since the run's start).
    public var time: SimTime
    /// Local hour of day, 0…23.
    public var hour: Int
    /// Local weekday, Monday = 0 … Sunday = 6.
    public var weekday: Int
    /// The member the stack showed on top: the ranking's first, unless the rotation
    /// governor kept or chose another.
    public var top: Int
    /// The member the person swiped to because the top was not the one wanted, or nil.
    public var swipedTo: Int?
    /// Whether the person tapped the widget they ended up looking at.
    public var tapped: Bool

    /// The outcome of one view (the engine makes it; tests may too).
    public init(time: SimTime, hour: Int, weekday: Int, top: Int, swipedTo: Int?, tapped: Bool) {
        self.time = time
        self.hour = hour
        self.weekday = weekday
        self.top = top
        self.swipedTo = swipedTo
        self.tapped = tapped
    }
}

/// A relevance-ranking policy (MODEL §5): orders a Smart Stack's members at each
/// home-screen view, best first.
///
/// The order is a proposal. The rotation governor, a system rule applied under every
/// ranking (`stack: rotation_limits:`), decides what is on top: it keeps a rotated-in
/// widget held and then cooling down, never rotates in a widget whose relevance is
/// ≤ 0, and limits how often each widget rotates in per 24 h. With `rotation_limits:
/// none` the first member of the order is on top. ``ViewOutcome/top`` says which
/// member the stack actually showed, and the missed-view reason codes of `reasons.csv`
/// tell a miss the ranking caused (`outranked`, `no_signal`) from one the governor
/// caused (`held`, `cooling_down`, `rotation_quota`, `vetoed_score`).
///
/// ## Lifetime
/// One object serves one worker thread for one budget × ranking pair, and is reused
/// for person after person: ``begin(members:stream:)`` starts each person;
/// ``rank(_:history:order:)`` is called at every view of a stack with Smart Rotate on,
/// and ``observe(_:history:)`` right after it with what the person did; donations
/// arrive through ``observeDonation(member:at:hour:weekday:)``, and the pushes the
/// phone delivers to a member's app through ``observePush(member:at:)``. Calls come in
/// time order, from one thread: no locks are needed.
///
/// ## What it may read
/// Its arguments, the ``StackHistory`` (the observable record of the person's
/// donations, swipes, taps and relevance scores), the pushes it is told of, and its own
/// state. The
/// ``ViewContext/groundTruthInterest`` the person's behaviour is drawn from is ground
/// truth: only the built-in `oracle` (the ceiling every policy is compared with) may
/// read it; a policy that does is not a policy a phone could run.
///
/// ## What it must not do
/// `rank` and `observe` run at every view, millions of times per run. They must not
/// allocate, lock, print, read files or build strings or dictionaries: keep
/// per-member state in arrays sized in `begin` (keeping their storage from person to
/// person) and sort with `Array.rankDescending(by:scratch:)`. Randomness comes only
/// from the `stream` given to `begin`, so that runs are reproducible and a policy's
/// draws never shift any other stream. It must not modify the history.
public protocol RankingPolicy: AnyObject {
    /// A new person whose stack has `members` instances. `stream` is the policy's own
    /// random stream for this person (seeded apart from every exogenous stream).
    /// Called once per person before any other call for that person; resets every
    /// per-person state. O(members).
    func begin(members: Int, stream: RandomStream)
    /// Orders `order` best first. It arrives holding `0 ..< members` in the person's
    /// order, and must leave a permutation of it. Called at every view of the stack:
    /// expected O(members log members) or O(members²) for a stack of at most 10, no
    /// allocation.
    func rank(_ view: ViewContext, history: StackHistory, order: inout [Int])
    /// The observable result of the view just ranked (already recorded in `history`):
    /// which member was on top, whether the person swiped to another, whether they
    /// tapped. Called after every `rank`: O(members) at most. Optional.
    func observe(_ outcome: ViewOutcome, history: StackHistory)
    /// A session of `member`'s app donated its intent at `time` (local `hour` 0…23,
    /// `weekday` Monday = 0), already recorded in `history`. O(1). Optional.
    func observeDonation(member: Int, at time: SimTime, hour: Int, weekday: Int)
    /// The phone delivered a push to the app of `member` at `time` (the app woke to
    /// handle it; a push the background throttle drops is not delivered). Every member
    /// of that app is told, since a phone knows the app a push is for, not which of its
    /// widgets' content it announces. O(1). Optional.
    func observePush(member: Int, at time: SimTime)
    /// The calls among `observe`, `observeDonation` and `observePush` the policy wants;
    /// the engine makes no other (a policy that learns from the history alone needs
    /// none). Read once, when the engine is made. Default: all three.
    var observes: RankingObservations { get }
}

/// The notifications a ranking policy asks for (`RankingPolicy.observes`).
public struct RankingObservations: OptionSet, Sendable, Hashable {
    /// One bit per notification.
    public let rawValue: UInt8
    /// The set with these bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// ``RankingPolicy/observe(_:history:)``, after each view it ranked.
    public static let views = RankingObservations(rawValue: 1)
    /// ``RankingPolicy/observeDonation(member:at:hour:weekday:)``.
    public static let donations = RankingObservations(rawValue: 2)
    /// ``RankingPolicy/observePush(member:at:)``.
    public static let pushes = RankingObservations(rawValue: 4)
    /// Every notification.
    public static let all: RankingObservations = [.views, .donations, .pushes]
}

extension RankingPolicy {
    /// Every notification, unless the policy says otherwise.
    public var observes: RankingObservations { .all }
    public func observe(_ outcome: ViewOutcome, history: StackHistory) {}
    public func observeDonation(member: Int, at time: SimTime, hour: Int, weekday: Int) {}
    public func observePush(member: Int, at time: SimTime) {}
}

extension Array where Element == Int {
    /// Sorts stack members by `score`, highest first; equal scores keep the person's
    /// order (lower member index first). `score` is called once per member, in member
    /// order. The array may hold the members in any order on entry.
    ///
    /// It runs at every view, so it sorts by hand with insertion sort: the algorithm
    /// (and comparison) the standard library's `sort` uses for up to 20 elements, so the
    /// order is exactly the one `sort` gave, but without its closure calls and buffer
    /// handling (a stack has at most 10 members).
    public mutating func rankDescending(by score: (Int) -> Double, scratch: inout [Double]) {
        let n = count
        if scratch.count != n { scratch = [Double](repeating: 0, count: n) }
        for m in 0 ..< n { scratch[m] = score(m) }
        guard n > 1 else { return }
        scratch.withUnsafeBufferPointer { s in
            withUnsafeMutableBufferPointer { order in
                insertionRankDescending(order.baseAddress!, count: n, scores: s.baseAddress!)
            }
        }
    }
}

/// Sorts the `n` members listed at `order` by `scores` (indexed by member), highest
/// first, equal scores to the lower member index, by insertion from the order given:
/// `Array.rankDescending(by:scratch:)`, and `time_of_day`'s ranking kept from one view
/// to the next (which is mostly sorted already, so there is little to move).
@inline(__always)
func insertionRankDescending(_ order: UnsafeMutablePointer<Int>, count n: Int, scores s: UnsafePointer<Double>) {
    var sortedEnd = 1
    while sortedEnd < n {
        var i = sortedEnd
        while i > 0 {
            let a = order[i], b = order[i - 1]
            // Stop once `a` need not go before `b` (higher score, or equal and lower index).
            if !(s[a] != s[b] ? s[a] > s[b] : a < b) { break }
            order[i] = b
            order[i - 1] = a
            i -= 1
        }
        sortedEnd += 1
    }
}
