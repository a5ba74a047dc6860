/// Which instance a session's donated intent matches (MODEL §2, §5 "Smart Stack from
/// donations"). A session drawn for widget w donates an intent of w's kind whose
/// configuration is drawn from w's `donatedConfigurations` by weight (w's own
/// configuration when it lists none); the intent matches the first instance of that
/// kind, in scenario order, configured with exactly those parameters, or none.
struct DonationTargets {
    /// Per widget: cumulative weights of its donated configurations (empty: its own).
    private let cumulative: [[Double]]
    /// Per widget and donated configuration: the matching instance, or −1.
    private let targets: [[Int]]

    init(_ widgets: [WidgetSpec]) {
        func match(_ kind: String, _ configuration: [String: String]) -> Int {
            widgets.firstIndex { $0.kind == kind && $0.configuration == configuration } ?? -1
        }
        cumulative = widgets.map { spec in
            var sum = 0.0
            return spec.donatedConfigurations.map { sum += $0.weight; return sum }
        }
        targets = widgets.map { spec in
            spec.donatedConfigurations.map { match(spec.kind, $0.configuration) }
        }
    }

    /// The instance matched by a donation of a session of `widget`, given a uniform
    /// draw `u` in [0, 1) (drawn for every session, used only when `widget` lists
    /// configurations).
    @inline(__always)
    func target(of widget: Int, uniform u: Double) -> Int {
        let c = cumulative[widget]
        guard let total = c.last else { return widget }
        let x = u * total
        var i = 0
        while i < c.count - 1 && x >= c[i] { i += 1 }
        return targets[widget][i]
    }
}
