import Foundation
import WidgetSimKernel
import WidgetSimSampling

/// `donation_frequency`: each member scores Σ 2^(−(now − t) / half_life) over the times t
/// of its app's donations; highest first, equal scores in the person's order.
///
/// The score is kept incrementally: per member a value and the time it refers to. A
/// donation decays the value to its time and adds 1; `rank` decays every value (and its
/// time) to the view.
///
/// Source: the Smart Stack weighs the intents people donate from apps (Apple, WWDC21
/// "Add intelligence to your widgets"); the exponential decay is this project's choice.
public final class DonationFrequencyRanking: RankingPolicy {
    public static let halfLife = ParameterSpec(
        "half_life", .duration(minimumMs: Milliseconds.minute), default: .duration(7 * Milliseconds.day),
        "time after which a donation counts half")

    public static let descriptor = RankingPolicyDescriptor(
        name: "donation_frequency",
        summary: "Donations counted with exponential decay (weight 2^(−age/half_life)); highest first.",
        source: "Smart Stack uses the intents people donate from apps (Apple, WWDC21 \"Add intelligence to your widgets\")",
        parameters: [halfLife],
        make: { p in DonationFrequencyRanking(halfLifeMs: p.duration(halfLife)) })

    let halfLifeMs: Double
    /// Each member's decayed donation count, as of `lastTime[m]`.
    @exclusivity(unchecked) private(set) var value: [Double] = []
    @exclusivity(unchecked) private(set) var lastTime: [SimTime] = []
    @exclusivity(unchecked) private var scratch: [Double] = []

    public init(halfLifeMs: Int64) {
        precondition(halfLifeMs > 0)
        self.halfLifeMs = Double(halfLifeMs)
    }

    /// Donations, to weigh each by its age.
    public var observes: RankingObservations { [.donations] }

    public func begin(members: Int, stream: RandomStream) {
        value.resetRankingState(count: members, to: 0)
        lastTime.resetRankingState(count: members, to: 0)
        scratch.reserveCapacity(members)
    }

    /// 2^(−age / half_life).
    @inline(__always)
    func decay(_ age: SimTime) -> Double { exp2(-Double(age) / halfLifeMs) }

    public func observeDonation(member m: Int, at time: SimTime, hour: Int, weekday: Int) {
        if time >= lastTime[m] {
            value[m] = value[m] * decay(time - lastTime[m]) + 1
            lastTime[m] = time
        } else {
            // Not expected (the clock is monotonic), but exact all the same.
            value[m] += decay(lastTime[m] - time)
        }
    }

    /// Decays `m`'s value to `now` and returns it: its score at `now`.
    func score(_ m: Int, at now: SimTime) -> Double {
        if now > lastTime[m] {
            value[m] *= decay(now - lastTime[m])
            lastTime[m] = now
        }
        return value[m]
    }

    public func rank(_ view: ViewContext, history: StackHistory, order: inout [Int]) {
        let now = view.time
        order.rankDescending(by: { m in score(m, at: now) }, scratch: &scratch)
    }
}
