/// Which instance a session's donated intent matches (MODEL §2, §5 "Smart Stack from
/// donations"). A session drawn for widget w donates an intent of w's kind whose
/// configuration is drawn from w's `donatedConfigurations` by weight (w's own
/// configuration when it lists none); the intent matches the first instance of that
/// kind, in scenario order, configured with exactly those parameters, or none.
struct DonationTargets {
    /// Per widget: where its donated configurations start in `cumulative` and
    /// `targets`, and how many it lists (0: none, it donates its own).
    private let first: [Int]
    private let count: [Int]
    /// Every widget's cumulative weights of its donated configurations, in turn.
    private let cumulative: [Double]
    /// Per donated configuration, as in `cumulative`: the matching instance, or −1.
    private let targets: [Int]

    init(_ widgets: [WidgetSpec]) {
        func match(_ kind: String, _ configuration: [String: String]) -> Int {
            widgets.firstIndex { $0.kind == kind && $0.configuration == configuration } ?? -1
        }
        var first: [Int] = [], count: [Int] = [], cumulative: [Double] = [], targets: [Int] = []
        for spec in widgets {
            first.append(cumulative.count)
            count.append(spec.donatedConfigurations.count)
            var sum = 0.0
            for c in spec.donatedConfigurations {
                sum += c.weight
                cumulative.append(sum)
                targets.append(match(spec.kind, c.configuration))
            }
        }
        self.first = first
        self.count = count
        self.cumulative = cumulative
        self.targets = targets
    }

    /// The instance matched by a donation of a session of `widget`, given a uniform
    /// draw `u` in [0, 1) (drawn for every session, used only when `widget` lists
    /// configurations).
    @inline(__always)
    func target(of widget: Int, uniform u: Double) -> Int {
        let n = count[widget]
        guard n > 0 else { return widget }
        let start = first[widget]
        let x = u * cumulative[start + n - 1]
        var i = 0
        while i < n - 1 && x >= cumulative[start + i] { i += 1 }
        return targets[start + i]
    }
}
