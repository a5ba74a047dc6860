import WidgetSimKernel

/// What the engine tracks of one widget instance during a run.
struct InstanceState {
    /// First random change not yet shown, or `.max`.
    var firstUnshownRandom: SimTime = .max
    /// The current timeline's entries of predictable content.
    var timeline = ContentTimeline()
    var hadReload = false
    /// The first refusal since the last charged grant, or `.max`.
    var exhaustedSince: SimTime = .max
}

/// The static facts of one widget instance that its reloads read, side by side.
struct InstanceFacts {
    let horizon: Int64
    let entrySpacing: Int64
    /// The period of its periodic content changes, or 0.
    let periodic: Int64
    /// Energy of one reload, in thousandths.
    let cost: Int64
    let reloadPolicy: ReloadPolicy
    /// Whether its timelines carry relevance.
    let hasRelevance: Bool
    /// Whether it has predictable (periodic or scheduled) content changes; without them
    /// no timeline ever shows a change ahead.
    let hasPredictable: Bool
    /// Whether it is a stack member whose staleness changes only at events (no
    /// predictable content, none added during the run): its stale member views are
    /// counted by spans (`Staleness`).
    let spanned: Bool
    /// The interval of its reload policy when that is `after` and a reload renews
    /// nothing else (no predictable content, no relevance): the next timeline request is
    /// then all a reload schedules. 0 otherwise.
    let plainAfter: Int64

    init(horizon: Int64, entrySpacing: Int64, periodic: Int64, cost: Int64, reloadPolicy: ReloadPolicy,
         hasRelevance: Bool, hasPredictable: Bool, spanned: Bool) {
        self.horizon = horizon
        self.entrySpacing = entrySpacing
        self.periodic = periodic
        self.cost = cost
        self.reloadPolicy = reloadPolicy
        self.hasRelevance = hasRelevance
        self.hasPredictable = hasPredictable
        self.spanned = spanned
        if case .after(let interval) = reloadPolicy, !hasRelevance, !hasPredictable {
            plainAfter = max(interval, 0)
        } else {
            plainAfter = 0
        }
    }
}

/// One list of widget indices per widget, stored flat: widget `w`'s list is
/// `items[range(w)]`. Walking an array of arrays retains the inner array every time;
/// these two buffers are read in place, through their addresses (the engine asks for
/// widgets below the count it made the lists for).
struct WidgetLists {
    let items: UnsafeMutablePointer<Int>
    private let start: UnsafeMutablePointer<Int>
    private let count: Int
    /// The buffers behind `items` and `start`, held here.
    private let buffers: (items: FlatBuffer<Int>, start: FlatBuffer<Int>)

    init(_ lists: [[Int]]) {
        var start = [0]
        for list in lists { start.append(start[start.count - 1] + list.count) }
        buffers = (FlatBuffer(lists.flatMap { $0 }), FlatBuffer(start))
        items = buffers.items.address
        self.start = buffers.start.address
        count = lists.count
    }

    /// The positions in `items` of widget `w`'s list.
    @inline(__always)
    func range(_ w: Int) -> Range<Int> {
        assert(w >= 0 && w < count, "widget \(w) out of 0 ..< \(count)")
        return Range(uncheckedBounds: (start[w], start[w &+ 1]))
    }
}
