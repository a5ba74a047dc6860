import Testing
import WidgetSimKernel
@testable import WidgetSimModel
import WidgetSimSampling

/// The reason the governor gives for keeping members off the top
/// (`RotationChoice.refused`), against the rule asked afterwards: `.held` while a hold
/// lasts; otherwise, when the order had the wanted member ahead of the top, the first
/// limit `veto` finds for it; otherwise none.
@Suite struct RotationChoiceTests {
    /// A governor driven over views with relevance (scores ≤ 0 now and then, a history
    /// that grows), random orders and a random wanted member; the person swipes away
    /// now and then. Every reason the governor gives must be seen.
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func refusedIsTheRuleAskedAfterwards(seed: UInt64) {
        let n = 5
        let history = StackHistory()
        history.reset(members: n)
        let governor = RotationGovernor(limits: RotationLimits(holdMinMs: 60_000, holdMaxMs: 1_800_000))
        governor.begin(members: n, stream: RandomStream(kind: .taus2, seed: UInt(seed)))
        var random = BudgetSplitMix64(seed: seed)
        var t: SimTime = 0
        var seen: [MissedViewReason: Int] = [:]
        for k in 0 ..< 4_000 {
            t += SimTime(random.next() % 900_000)
            for m in 0 ..< n {
                switch random.next() % 8 {
                case 0: history.currentRelevance[m] = nil
                case 1: history.currentRelevance[m] = -1
                default:
                    let score = Double(random.next() % UInt64(2 + m))
                    history.currentRelevance[m] = score
                    if random.next() % 4 == 0 { history.recordRelevance(member: m, score: score) }
                }
            }
            var order = Array(0 ..< n)
            for i in stride(from: n - 1, to: 0, by: -1) { order.swapAt(i, Int(random.next() % UInt64(i + 1))) }
            let wanted = Int(random.next() % UInt64(n + 1)) - 1
            let choice = governor.choose(order, home: 0, wanted: wanted, at: t, history: history)
            let ahead = wanted >= 0 && wanted != choice.top
                && order.firstIndex(of: wanted)! < order.firstIndex(of: choice.top)!
            let expected = governor.holding ? .held : !ahead ? nil : governor.veto(wanted, at: t, history: history)
            #expect(choice.refused == expected, "view \(k) at \(t)")
            #expect(!ahead || choice.refused != nil, "view \(k): proposed ahead of the top, and no reason")
            if let why = choice.refused { seen[why, default: 0] += 1 }
            if random.next() % 25 == 0 { governor.swiped(at: t) }
        }
        for why in [MissedViewReason.held, .coolingDown, .rotationQuota, .vetoedScore] {
            #expect(seen[why, default: 0] > 10, "\(why.label): \(seen[why, default: 0])")
        }
    }

    /// Mode `none`: the order's first member is on top, and nothing is ever refused.
    @Test func noLimitsRefuseNothing() {
        let history = StackHistory()
        history.reset(members: 3)
        let governor = RotationGovernor(limits: .none)
        governor.begin(members: 3, stream: RandomStream(kind: .taus2, seed: 1))
        for wanted in -1 ..< 3 {
            #expect(governor.choose([2, 0, 1], wanted: wanted, at: 0, history: history) == RotationChoice(top: 2, refused: nil))
        }
    }
}
