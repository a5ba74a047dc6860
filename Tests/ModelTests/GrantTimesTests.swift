import Testing
import WidgetSimKernel
@testable import WidgetSimModel

/// `GrantTimes.admit` against `fullUntil(count: depth)` followed by `record`, and both
/// against the rule counted directly over each instance's grants: the same answers and
/// the same memory, on random request times.
@Suite struct GrantTimesTests {
    @Test(arguments: [(UInt64(1), 1), (2, 2), (3, 3), (4, 5), (5, 48)])
    func admitIsFullUntilThenRecord(seed: UInt64, depth: Int) {
        var random = BudgetSplitMix64(seed: seed)
        let instances = 2
        let window: Int64 = 1_000
        let fast = GrantTimes(), general = GrantTimes()
        var now: SimTime = 0
        var refused = 0, granted = 0
        for round in 0 ..< 3 {
            // Reset between rounds: what an earlier person left must not show.
            fast.reset(instances: instances, depth: depth)
            general.reset(instances: instances, depth: depth)
            if round > 0 { now = 0 }
            var history = Array(repeating: [SimTime](), count: instances)
            for step in 0 ..< 4_000 {
                // Twice the requests the window allows, some at the same time, and a
                // quiet spell now and then that empties every window.
                now += step % 500 == 499 ? 2 * window : random.below(2) == 0 ? 0 : random.upTo(window / Int64(depth))
                let i = random.below(instances)
                let expected = general.fullUntil(i, count: depth, window: window, at: now)
                if expected == nil { general.record(i, at: now) }
                let got = fast.admit(i, window: window, at: now)
                #expect(got == expected, "instance \(i) at \(now)")
                // The rule: granted iff fewer than `depth` grants in (now − window, now];
                // refused until the depth-th latest of them leaves the window.
                let inWindow = history[i].filter { $0 > now - window }.count
                let rule = inWindow < depth ? nil : history[i][history[i].count - depth] + window
                #expect(got == rule, "instance \(i) at \(now)")
                if rule == nil { history[i].append(now) }
                if got == nil { granted += 1 } else { refused += 1 }
                for k in 1 ... depth {
                    #expect(fast.latest(i, k) == general.latest(i, k))
                    #expect(fast.latest(i, k) == (k <= history[i].count ? history[i][history[i].count - k] : nil))
                }
            }
        }
        // Both answers are exercised.
        #expect(granted > 100 && refused > 100)
    }
}
