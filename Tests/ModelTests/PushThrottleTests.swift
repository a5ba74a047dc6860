import Testing
import WidgetSimKernel
@testable import WidgetSimModel

/// `PushThrottle` against its rule counted directly: a push of an app is delivered iff
/// fewer than `perHour` of that app's delivered pushes fall in (now − 1 h, now].
@Suite struct PushThrottleTests {
    @Test(arguments: [(UInt64(1), 1), (2, 2), (3, 3), (4, 7)])
    func deliversWhatTheRollingHourAllows(seed: UInt64, perHour: Int) {
        var random = BudgetSplitMix64(seed: seed)
        let apps = 3
        let throttle = PushThrottle(perHour: perHour)
        var delivered = 0, dropped = 0
        for round in 0 ..< 2 {
            // A second person: what the first left must not show.
            throttle.reset(apps: apps)
            var history = Array(repeating: [SimTime](), count: apps)
            var now: SimTime = Int64(round) * 1_000
            for _ in 0 ..< 3_000 {
                // About twice the pushes an hour allows, some at the same time.
                now += random.below(3) == 0 ? 0 : random.upTo(Milliseconds.hour / Int64(perHour))
                let app = random.below(apps)
                let inHour = history[app].filter { $0 > now - Milliseconds.hour }.count
                let expected = inHour < perHour
                #expect(throttle.deliver(app: app, at: now) == (expected ? nil : .pushThrottled), "app \(app) at \(now)")
                if expected {
                    history[app].append(now)
                    delivered += 1
                } else {
                    dropped += 1
                }
            }
        }
        #expect(delivered > 100 && dropped > 100)
    }

    @Test func noThrottleDeliversEveryPush() {
        let throttle = PushThrottle(perHour: nil)
        throttle.reset(apps: 2)
        for k in 0 ..< 100 { #expect(throttle.deliver(app: k % 2, at: 0) == nil) }
    }
}
