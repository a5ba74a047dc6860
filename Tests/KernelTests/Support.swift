import Testing
import WidgetSimKernel

/// SplitMix64: a small deterministic generator for the tests' random operations, so
/// that every run of a test performs the same operations.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state = state &+ 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in 0 ..< n (n ≥ 1); the modulo bias is irrelevant here.
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }

    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
}

/// One delivered event, as a test records it.
struct Delivery: Equatable, CustomStringConvertible {
    var time: SimTime
    var id: Int
    var description: String { "\(id)@\(time)" }
}

/// What a scripted model may do to a queue while it handles an event.
protocol Scheduling {
    mutating func schedule(at time: SimTime, rank: UInt8, _ payload: Int)
    mutating func schedule(at time: SimTime, rank: UInt8, slot: Int, _ payload: Int)
    mutating func cancel(slot: Int)
    func pendingTime(slot: Int) -> SimTime?
}

extension EventQueue: Scheduling where Payload == Int {}

/// The obviously correct future-event list the kernel is compared with: an array kept
/// sorted by (time, rank, scheduling order) with plain binary-search insertion, popped
/// from the front, and eager removal of superseded and cancelled slot events.
struct ReferenceQueue: Scheduling {
    struct Item {
        var time: SimTime
        var rank: UInt8
        var order: Int
        var slot: Int?
        var payload: Int

        func precedes(_ other: Item) -> Bool {
            (time, rank, order) < (other.time, other.rank, other.order)
        }
    }

    /// Sorted, earliest first.
    private(set) var items: [Item] = []
    private var nextOrder = 0
    private var slotTimes: [Int: SimTime] = [:]

    private mutating func insert(_ item: Item) {
        var low = 0, high = items.count
        while low < high {
            let mid = (low + high) / 2
            if items[mid].precedes(item) { low = mid + 1 } else { high = mid }
        }
        items.insert(item, at: low)
        nextOrder += 1
    }

    mutating func schedule(at time: SimTime, rank: UInt8, _ payload: Int) {
        insert(Item(time: time, rank: rank, order: nextOrder, slot: nil, payload: payload))
    }

    mutating func schedule(at time: SimTime, rank: UInt8, slot: Int, _ payload: Int) {
        cancel(slot: slot)
        slotTimes[slot] = time
        insert(Item(time: time, rank: rank, order: nextOrder, slot: slot, payload: payload))
    }

    mutating func cancel(slot: Int) {
        guard slotTimes.removeValue(forKey: slot) != nil else { return }
        items.removeAll { $0.slot == slot }
    }

    func pendingTime(slot: Int) -> SimTime? { slotTimes[slot] }

    mutating func popNext(before limit: SimTime) -> Delivery? {
        guard let first = items.first, first.time < limit else { return nil }
        items.removeFirst()
        if let slot = first.slot { slotTimes[slot] = nil }
        return Delivery(time: first.time, id: first.payload)
    }

    var count: Int { items.count }
}

extension EventQueue where Payload == Int {
    mutating func popDelivery(before limit: SimTime = .max) -> Delivery? {
        popNext(before: limit).map { Delivery(time: $0.time, id: $0.payload) }
    }

    /// Pops everything, checking the heap property after each pop.
    mutating func drain() -> (deliveries: [Delivery], invariantsHeld: Bool) {
        var out = [Delivery]()
        var held = checkInvariants()
        while let d = popDelivery() {
            out.append(d)
            held = held && checkInvariants()
        }
        return (out, held)
    }
}

/// How a scripted model reacts to each event it handles.
enum Reaction: CaseIterable, Sendable {
    /// The hold model: every event schedules exactly one successor.
    case hold
    /// No event schedules anything: the queue only drains.
    case nothing
    /// Each event schedules 0, 1, 2 or 3 events (mean 1), some at the current time.
    case several
    /// The hold model plus up to three slot operations per event: schedules into
    /// slots (superseding when the slot is live) and cancellations.
    case slots
}

/// A model driven by a seeded generator: given the same seed it performs the same
/// scheduling operations in response to the same deliveries, on any `Scheduling` queue.
struct Script {
    static let slotCount = 12
    var reaction: Reaction
    var random: SplitMix64
    var nextID = 1_000_000
    /// Reactions left before the script goes quiet: a bound on the work of a test even
    /// if a broken queue made the population explode (the test then fails, not hangs).
    var reactionsLeft = 20_000

    init(_ reaction: Reaction, seed: UInt64) {
        self.reaction = reaction
        self.random = SplitMix64(seed: seed)
    }

    /// A delay with many zeros and small values, so that ties are frequent.
    mutating func delay() -> SimTime {
        switch random.below(4) {
        case 0: 0
        case 1: SimTime(random.below(3))
        default: SimTime(random.below(200))
        }
    }

    mutating func rank() -> UInt8 { UInt8(random.below(4)) }

    mutating func react(to id: Int, at now: SimTime, queue: inout some Scheduling) {
        guard reactionsLeft > 0 else { return }
        reactionsLeft -= 1
        switch reaction {
        case .nothing:
            return
        case .hold:
            queue.schedule(at: now + delay(), rank: rank(), nextID)
            nextID += 1
        case .several:
            for _ in 0 ..< random.below(4) where random.chance(67) {
                queue.schedule(at: now + delay(), rank: rank(), nextID)
                nextID += 1
            }
        case .slots:
            // Plain events (id ≥ 0) hold; slot events (negative ids) do not, or every
            // slot event would start a new lineage and the population would explode.
            if id >= 0 {
                queue.schedule(at: now + delay(), rank: rank(), nextID)
                nextID += 1
            }
            for _ in 0 ..< random.below(4) {
                let slot = random.below(Self.slotCount)
                switch random.below(10) {
                case 0 ..< 3:
                    queue.cancel(slot: slot)
                default:
                    queue.schedule(at: now + delay(), rank: rank(), slot: slot, -nextID)
                }
                nextID += 1
            }
        }
    }
}

/// What a test's model does with each event its loop hands it: it may schedule,
/// supersede or cancel events in the queue it is given.
protocol EventHandler {
    associatedtype Payload
    mutating func handle(_ payload: Payload, at time: SimTime, queue: inout EventQueue<Payload>)
}

/// A test's run loop over one queue, as a model drives it: pops events in order and
/// hands each to the handler, keeping the clock at the time of the last one.
struct QueueLoop<Handler: EventHandler> {
    private(set) var now: SimTime = 0
    private(set) var eventsHandled = 0
    var queue: EventQueue<Handler.Payload>
    var handler: Handler

    init(handler: Handler, queue: EventQueue<Handler.Payload>) {
        self.handler = handler
        self.queue = queue
    }

    private mutating func handle(_ event: (time: SimTime, payload: Handler.Payload)) {
        #expect(event.time >= now, "an event was delivered before the clock")
        now = event.time
        eventsHandled += 1
        handler.handle(event.payload, at: event.time, queue: &queue)
    }

    /// Handles every event due strictly before `end`, then sets the clock to `end`.
    mutating func run(until end: SimTime) {
        while let event = queue.popNext(before: end) { handle(event) }
        now = max(now, end)
    }

    /// Handles every queued event that comes before an outside event due at `time`
    /// with `rank`, then sets the clock to `time`.
    mutating func run(before time: SimTime, rank: UInt8) {
        while let event = queue.popNext(before: time, rank: rank) { handle(event) }
        now = time
    }
}

/// A `QueueLoop` handler that records every delivery and checks the heap property
/// while the handled event is still the consumed top (before and after the model
/// schedules), on every `checkEvery`-th event (0: never).
struct ScriptedHandler: EventHandler {
    var script: Script
    var checkEvery = 1
    var log: [Delivery] = []
    var invariantChecks = 0
    var invariantFailures = 0

    init(script: Script, checkEvery: Int = 1) {
        self.script = script
        self.checkEvery = checkEvery
    }

    mutating func handle(_ payload: Int, at time: SimTime, queue: inout EventQueue<Int>) {
        log.append(Delivery(time: time, id: payload))
        // Only while the script is active and the queue of a plausible size: a broken
        // queue then fails quickly instead of running O(n²) checks.
        let check = checkEvery > 0 && log.count % checkEvery == 0 && script.reactionsLeft > 0
            && queue.storedCount <= 4000
        if check && !queue.checkInvariants() { invariantFailures += 1 }
        script.react(to: payload, at: time, queue: &queue)
        if check {
            invariantChecks += 1
            if !queue.checkInvariants() { invariantFailures += 1 }
        }
    }
}

/// A handler that does nothing but count.
struct CountingHandler: EventHandler {
    var log: [Delivery] = []
    mutating func handle(_ payload: Int, at time: SimTime, queue: inout EventQueue<Int>) {
        log.append(Delivery(time: time, id: payload))
    }
}

/// Where two delivery sequences first differ, or nil when they are equal. Long logs are
/// compared with this rather than `#expect(a == b)`, whose failure message would diff
/// thousands of elements.
func firstDifference(_ a: [Delivery], _ b: [Delivery]) -> String? {
    for i in 0 ..< min(a.count, b.count) where a[i] != b[i] {
        return "at \(i): \(a[i]) vs \(b[i])"
    }
    return a.count == b.count ? nil : "lengths \(a.count) vs \(b.count)"
}
