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
    /// Per app, the times of its last `perHour` deliveries.
    private let deliveries = GrantTimes()

    public init(perHour: Int?) {
        precondition(perHour.map { $0 >= 1 } ?? true, "a throttle delivers at least one push an hour")
        self.perHour = perHour
    }

    /// A new person with `apps` apps, none delivered a push yet.
    public func reset(apps: Int) {
        guard let n = perHour else { return }
        deliveries.reset(instances: apps, depth: n)
    }

    /// A background push of `app` at `now`: nil when it is delivered (and recorded),
    /// otherwise why it is dropped (`.pushThrottled`: `perHour` delivered in the last hour).
    @inline(__always)
    public func deliver(app: Int, at now: SimTime) -> RefusalReason? {
        guard perHour != nil else { return nil }
        return deliveries.admit(app, window: Milliseconds.hour, at: now) == nil ? nil : .pushThrottled
    }
}
