import WidgetSimKernel

/// The times of each instance's latest `depth` granted charged reloads, the oldest
/// overwritten first: the rolling-window memory of `daily_quota`, `view_weighted` and
/// `standby_buckets`.
///
/// One flat ring per instance, at `instance * depth + slot`; nothing is allocated after
/// `reset`, and every operation is O(1) without a division (budget policies ask at
/// every charged request). Times must be recorded in non-decreasing order.
///
/// Its memory is a `FlatBuffer`, written in place: a policy holds one `GrantTimes` for
/// its whole life and never copies it.
final class GrantTimes {
    /// How many of each instance's latest grants are kept.
    private(set) var depth = 1
    private let times = FlatBuffer<SimTime>(repeating: 0)
    /// Per instance: the grants recorded since `reset`, and the slot the next one goes
    /// to (`total % depth`, kept as a counter). One struct, so one array write each.
    private struct Ring {
        var total = 0
        var next = 0
    }
    private let rings = FlatBuffer<Ring>(repeating: Ring())

    /// Forgets every grant. O(instances × depth) only when the shape changes.
    func reset(instances: Int, depth: Int) {
        precondition(depth >= 1, "a grant ring keeps at least one time")
        self.depth = depth
        // Slots are only read below an instance's total, so stale times never show.
        if times.count != instances * depth { times.reset(count: instances * depth, to: 0) }
        rings.reset(count: instances, to: Ring())
    }

    func record(_ instance: Int, at time: SimTime) {
        var ring = rings[instance]
        times[instance * depth + ring.next] = time
        ring.total += 1
        ring.next = ring.next + 1 == depth ? 0 : ring.next + 1
        rings[instance] = ring
    }

    /// The time of the `k`-th latest grant of `instance` (`k` = 1 is the latest;
    /// 1 ≤ `k` ≤ `depth`), or nil when it has had fewer than `k`.
    func latest(_ instance: Int, _ k: Int) -> SimTime? {
        assert(k >= 1 && k <= depth, "grant \(k) back is not kept (depth \(depth))")
        let ring = rings[instance]
        guard k <= ring.total else { return nil }
        // (total − k) mod depth, from next = total mod depth and 1 ≤ k ≤ depth.
        var slot = ring.next - k
        if slot < 0 { slot += depth }
        return times[instance * depth + slot]
    }

    /// One grant of `instance` at `now` when fewer than `depth` of its grants fall in the
    /// rolling window (`now` − `window`, `now`]: records it and returns nil. Otherwise
    /// records nothing and returns the time the oldest of the last `depth` leaves the
    /// window, as `fullUntil(instance, count: depth, …)` does. The oldest of the last
    /// `depth` grants sits in the slot the next one goes to, so one ring read serves both.
    @inline(__always)
    func admit(_ instance: Int, window: Int64, at now: SimTime) -> SimTime? {
        let ring = rings[instance]
        let slot = instance &* depth &+ ring.next
        if ring.total >= depth {
            let oldest = times[slot]
            if now - oldest < window { return oldest + window }
        }
        times[slot] = now
        rings[instance] = Ring(total: ring.total &+ 1, next: ring.next &+ 1 == depth ? 0 : ring.next &+ 1)
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
