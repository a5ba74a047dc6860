import WidgetSimKernel

/// Who is on top now, as `predictive`'s pool learns it from the person's views (MODEL §4):
/// over pairs of the person's views at most `nearGap` apart, how often each instance
/// shown at the first was shown at the second too, and how often one not shown came on
/// top. `factor` turns that into how many times its mean share of the next views an
/// instance is expected to get, given whether it was shown at the person's last view.
struct OnTopOdds {
    /// Views further apart than this are not a pair, and a request this long after the
    /// last view learns nothing from it.
    static let nearGap = 30 * Milliseconds.minute

    /// The person's last view and the one before it (`.min`: none yet).
    private var lastView: SimTime = .min
    private var previousView: SimTime = .min
    /// Each instance's last view, and whether it was shown at the person's view before
    /// the last.
    private var shownAt: [SimTime] = []
    private var wasShown: [Bool] = []
    /// Over the pairs: shown at the first (`fromShown`) or not (`fromHidden`), and of
    /// those shown at the second too (`stay`, `enter`).
    private var stay: [Double] = []
    private var fromShown: [Double] = []
    private var enter: [Double] = []
    private var fromHidden: [Double] = []

    /// Forgets every view, for a person with `n` instances.
    mutating func reset(instances n: Int) {
        lastView = .min
        previousView = .min
        shownAt.resetFlat(count: n, to: .min)
        wasShown.resetFlat(count: n, to: false)
        stay.resetFlat(count: n, to: 0)
        fromShown.resetFlat(count: n, to: 0)
        enter.resetFlat(count: n, to: 0)
        fromHidden.resetFlat(count: n, to: 0)
    }

    /// Instance `i` shown at a view at `now` (several instances at one view: one call each).
    /// The first call of a new view counts the pair of the two views before it.
    mutating func viewed(_ i: Int, at now: SimTime) {
        defer { shownAt[i] = now }
        guard now != lastView else { return }
        if lastView != .min {
            if previousView != .min && lastView - previousView <= Self.nearGap {
                for j in shownAt.indices {
                    let b = shownAt[j] == lastView
                    if wasShown[j] {
                        fromShown[j] += 1
                        if b { stay[j] += 1 }
                    } else {
                        fromHidden[j] += 1
                        if b { enter[j] += 1 }
                    }
                }
            }
            for j in shownAt.indices { wasShown[j] = shownAt[j] == lastView }
            previousView = lastView
        }
        lastView = now
    }

    /// How many times its mean share of the person's views `i` is expected to get at the
    /// next ones, by whether it was shown at the person's last view (within `nearGap`):
    /// P(shown | shown at the view before) or P(shown | not shown at it), each shrunk
    /// toward P(shown) with two pseudo-pairs, over P(shown); 1 with no such view or pair.
    func factor(_ i: Int, at now: SimTime) -> Double {
        guard lastView != .min, now - lastView <= Self.nearGap else { return 1 }
        let pairs = fromShown[i] + fromHidden[i]
        let p = pairs > 0 ? (stay[i] + enter[i]) / pairs : 0
        guard p > 0 else { return 1 }
        let given = shownAt[i] == lastView
            ? (stay[i] + 2 * p) / (fromShown[i] + 2) : (enter[i] + 2 * p) / (fromHidden[i] + 2)
        return given / p
    }
}
