import WidgetSimKernel

/// How the engine serves a budget that reads the future (`FutureReadingBudget`, the
/// budget ceiling): each person is run twice, a rehearsal whose free reloads the budget
/// notes, then the counted run, in which the budget's planned reloads come as background
/// requests in a queue slot of their own per instance (`plannedSlot`). Every other
/// budget runs once and never reaches this code.
extension PersonEngine {
    /// The rehearsal of `world` under the `planner` (the budget refuses every charged
    /// request and notes the free reloads; nothing is traced or kept), and its plan.
    @inline(never)
    func rehearse(_ world: PersonWorld) {
        let planner = planner.unsafelyUnwrapped
        let traced = trace
        trace = nil
        planner.rehearsing = true
        _ = simulate(world)
        planner.rehearsing = false
        trace = traced
        planner.plan(world: world, scenario: scenario)
    }

    /// The `planner`'s first request of each instance, in the queue (not in a rehearsal).
    @inline(never)
    func schedulePlanned() {
        guard !planner.unsafelyUnwrapped.rehearsing else { return }
        for w in 0 ..< widgetCount { schedulePlanned(w, after: -1) }
    }

    /// The `planner`'s next request of `w` after `t`, in its slot. Under a planner every
    /// background retry is a planned request (such a budget never defers).
    @inline(never)
    func schedulePlanned(_ w: Int, after t: SimTime) {
        if let next = planner.unsafelyUnwrapped.nextRequest(instance: w, after: t) {
            queue.schedule(at: next, rank: 6, slot: plannedSlot(w), .backgroundRetry(Int32(truncatingIfNeeded: w)))
        }
    }
}
