import WidgetSimKernel

/// Widget Suggestions (iOS 15 and later; MODEL §5): the system may put on top of the
/// Smart Stack a widget that is not in it, when the person's donations for that widget
/// are strong. A system rule, the same for every ranking policy.
///
/// Rule (our calibration; Apple documents the feature, WWDC21 "Add intelligence to
/// your widgets", not its threshold): the candidates are the instances placed nowhere
/// (`StackSpec.suggestable`). At a view at t, a candidate's strength is the number of
/// donations matching it in (t − 2 h, t]; the strongest candidate with at least 2 is
/// shown on top, the first listed of equally strong ones. Nothing is held from one
/// view to the next: the suggestion lasts while the donations stay strong.
///
/// A suggestion is counted apart: `suggestions_shown`, and `suggestions_wanted` when
/// the suggested instance was the one wanted at that view. The stack's own columns
/// (hits, rotations) describe the stack's order as the ranking proposed it.
public final class WidgetSuggestions {
    /// Donations within this window before a view count.
    public static let windowMs: Int64 = 2 * Milliseconds.hour
    /// The fewest donations in the window that make a suggestion.
    public static let minimumDonations = 2
    /// Donation times kept per candidate (at least `minimumDonations`; more never
    /// change the answer beyond who is strongest among several with this many).
    static let depth = 8

    /// Candidate index of each widget, or −1.
    private let candidateOf: [Int]
    private let count: Int
    /// The latest `depth` donation times of each candidate, a ring at `c * depth`.
    private var times: [SimTime]
    private var next: [Int]

    /// `candidates`: the widget indices placed nowhere, in the order listed.
    public init(candidates: [Int], widgets: Int) {
        var candidateOf = Array(repeating: -1, count: widgets)
        for (j, w) in candidates.enumerated() { candidateOf[w] = j }
        self.candidateOf = candidateOf
        count = candidates.count
        times = Array(repeating: .min, count: candidates.count * Self.depth)
        next = Array(repeating: 0, count: candidates.count)
    }

    /// Forgets every donation (a new person).
    public func reset() {
        for i in times.indices { times[i] = .min }
        for i in next.indices { next[i] = 0 }
    }

    /// A donation matching instance `instance` (any instance; only candidates count).
    public func observeDonation(instance: Int, at t: SimTime) {
        let c = candidateOf[instance]
        guard c >= 0 else { return }
        times[c * Self.depth + next[c]] = t
        next[c] = (next[c] + 1) % Self.depth
    }

    /// The candidate (index into the candidates) shown on top at a view at `t`, or nil.
    public func suggestion(at t: SimTime) -> Int? {
        var best: Int? = nil
        var bestStrength = Self.minimumDonations - 1
        for c in 0 ..< count {
            var strength = 0
            for k in 0 ..< Self.depth where times[c * Self.depth + k] > t - Self.windowMs { strength += 1 }
            if strength > bestStrength {
                best = c
                bestStrength = strength
            }
        }
        return best
    }
}
