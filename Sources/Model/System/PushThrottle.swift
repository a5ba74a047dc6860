import WidgetSimKernel

/// The system's throttle of background pushes (MODEL §3), before any budget policy:
/// an app is delivered at most `perHour` background pushes in any rolling hour; a push
/// beyond that is dropped (it wakes nothing and asks for no reload). Pushes that reach
/// an app in the foreground are not throttled and do not count.
///
/// Rule: a background push of app `a` at `now` is delivered iff fewer than `perHour`
/// delivered pushes of `a` fall in (now − 1 h, now]. Each app keeps the times of its
/// last `perHour` deliveries in a ring (flat, apps × perHour): exact, O(1).
///
/// Source: Apple, "Pushing background updates to your App": the system may throttle
/// background notifications and advises no more than two or three an hour; the
/// default, 3, is that figure.
public final class PushThrottle {
    /// `person: background_pushes_per_hour:` — a whole number, or `none` (no throttle).
    public static let defaultPerHour = 3
    public static let parameter = ParameterSpec(
        "background_pushes_per_hour", .count(1 ... 3600), default: .number(Double(defaultPerHour)),
        "background pushes delivered per app in any rolling hour, or `none`")

    /// Deliveries allowed per app per rolling hour; nil: no throttle.
    public let perHour: Int?
    /// Per app, the times of its last `perHour` deliveries at `app * perHour + slot`
    /// (`.min` before the first), and the slot the next one goes to. In memory the
    /// throttle owns, written in place: a push is a few loads and stores.
    private let times = FlatBuffer<SimTime>(repeating: .min)
    private let next = FlatBuffer<Int>(repeating: 0)

    public init(perHour: Int?) {
        precondition(perHour.map { $0 >= 1 } ?? true, "a throttle delivers at least one push an hour")
        self.perHour = perHour
    }

    /// A new person with `apps` apps, none delivered a push yet.
    public func reset(apps: Int) {
        guard let n = perHour else { return }
        times.reset(count: apps * n, to: .min)
        next.reset(count: apps, to: 0)
    }

    /// Whether a background push of `app` at `now` is delivered; records it if so.
    @inline(__always)
    public func deliver(app: Int, at now: SimTime) -> Bool {
        guard let n = perHour else { return true }
        let k = next[app]
        let slot = app &* n &+ k
        // The slot holds the oldest of the last n deliveries.
        if times[slot] > now - Milliseconds.hour { return false }
        times[slot] = now
        next[app] = k &+ 1 == n ? 0 : k &+ 1
        return true
    }
}
