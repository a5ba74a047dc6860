import WidgetSimKernel

/// The times of each instance's latest `depth` granted charged reloads, the oldest
/// overwritten first: the rolling-window memory of `daily_quota`, `view_weighted` and
/// `standby_buckets`, and of the system's push throttle (`PushThrottle`, per app).
///
/// One flat ring per instance, at `instance * depth + slot`; nothing is allocated after
/// `reset`, and every operation is O(1) without a division (budget policies ask at
/// every charged request). Times must be recorded in non-decreasing order, and are
/// never `SimTime.min`: a slot holding it has had no grant yet.
///
/// Its memory is a `FlatBuffer`, written in place: a policy holds one `GrantTimes` for
/// its whole life and never copies it. The buffers are reached through their addresses
/// (`FlatBuffer.address`, taken again at every `reset`): one load fewer at each request.
final class GrantTimes {
    /// How many of each instance's latest grants are kept.
    @exclusivity(unchecked) private(set) var depth = 1
    /// The rings; `.min` in a slot no grant has reached yet.
    private let timeBuffer = FlatBuffer<SimTime>(repeating: .min)
    /// Per instance: the slot the next grant goes to (the grants so far modulo `depth`,
    /// kept as a counter). It holds the oldest of the last `depth` grants.
    private let nextBuffer = FlatBuffer<Int>(repeating: 0)
    /// The addresses of `timeBuffer` and `nextBuffer`.
    @exclusivity(unchecked) private var times: UnsafeMutablePointer<SimTime>
    @exclusivity(unchecked) private var next: UnsafeMutablePointer<Int>

    init() {
        times = timeBuffer.address
        next = nextBuffer.address
    }

    /// Forgets every grant. O(instances × depth).
    func reset(instances: Int, depth: Int) {
        precondition(depth >= 1, "a grant ring keeps at least one time")
        self.depth = depth
        timeBuffer.reset(count: instances * depth, to: .min)
        nextBuffer.reset(count: instances, to: 0)
        times = timeBuffer.address
        next = nextBuffer.address
    }

    func record(_ instance: Int, at time: SimTime) {
        assert(instance >= 0 && instance < nextBuffer.count, "instance \(instance) has no grant ring")
        let k = next[instance]
        times[instance &* depth &+ k] = time
        next[instance] = k &+ 1 == depth ? 0 : k &+ 1
    }

    /// The time of the `k`-th latest grant of `instance` (`k` = 1 is the latest;
    /// 1 ≤ `k` ≤ `depth`), or nil when it has had fewer than `k`.
    func latest(_ instance: Int, _ k: Int) -> SimTime? {
        assert(k >= 1 && k <= depth, "grant \(k) back is not kept (depth \(depth))")
        assert(instance >= 0 && instance < nextBuffer.count, "instance \(instance) has no grant ring")
        // (grants − k) mod depth, from next = grants mod depth and 1 ≤ k ≤ depth.
        var slot = next[instance] - k
        if slot < 0 { slot += depth }
        let time = times[instance &* depth &+ slot]
        return time == .min ? nil : time
    }

    /// One grant of `instance` at `now` when fewer than `depth` of its grants fall in the
    /// rolling window (`now` − `window`, `now`]: records it and returns nil. Otherwise
    /// records nothing and returns the time the oldest of the last `depth` leaves the
    /// window, as `fullUntil(instance, count: depth, …)` does. The oldest of the last
    /// `depth` grants sits in the slot the next one goes to, so one ring read serves both.
    @inline(__always)
    func admit(_ instance: Int, window: Int64, at now: SimTime) -> SimTime? {
        assert(instance >= 0 && instance < nextBuffer.count, "instance \(instance) has no grant ring")
        let k = next[instance]
        let slot = instance &* depth &+ k
        // A slot with no grant yet holds `.min`, outside every window. `now` is a time of
        // the run (≥ 0) and `window` its callers' day or hour: the difference stays far
        // from Int64's end, unchecked.
        assert(now >= 0 && window >= 0, "a grant before the run or a negative window")
        let oldest = times[slot]
        if oldest > now &- window { return oldest + window }
        // The next slot and the ring's address worked out before the store, which could
        // otherwise be taken to change them.
        let following = k &+ 1 == depth ? 0 : k &+ 1
        let next = self.next
        times[slot] = now
        next[instance] = following
        return nil
    }

    /// If at least `k` grants of `instance` fall in the rolling window
    /// (`now` − `window`, `now`], the time the `k`-th latest of them leaves it (from
    /// then on fewer than `k` are in the window); otherwise nil.
    func fullUntil(_ instance: Int, count k: Int, window: Int64, at now: SimTime) -> SimTime? {
        guard let t = latest(instance, k), now - t < window else { return nil }
        return t + window
    }
}
