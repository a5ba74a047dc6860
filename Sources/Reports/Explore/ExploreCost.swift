import WidgetSimModel

/// What an exploring study will cost, known before it runs: its design, its worlds
/// (points), and the person-days it simulates under every pair: Σ over points of
/// people × days × replications × pairs. One world serves every pair (each pair sees the
/// same people), so the figure is the points' runs side by side, nothing more.
public enum ExploreCost {
    public static func personDays(_ study: Study) -> Int {
        study.points.reduce(0) { $0 + $1.scenario.people * $1.scenario.days * $1.scenario.replications * $1.scenario.policyPairs.count }
    }

    /// One line for the terminal, or nil for a study that does not explore.
    public static func line(_ study: Study) -> String? {
        guard let d = study.design else { return nil }
        let first = study.first
        let design = d.isSaltelli
            ? "Saltelli's design over a Sobol sequence: \(d.samples) base samples × (\(d.ranges.count) ranges + 2) = \(study.totalPoints) worlds"
            : "\(d.method) design: \(study.totalPoints) worlds over \(d.ranges.count) range\(d.ranges.count == 1 ? "" : "s")"
        let one = first.people * first.days * first.replications * first.policyPairs.count
        return "explore: \(design) (seed \(d.seed)); \(study.points.count) to run × \(first.policyPairs.count) pairs × "
            + "\(first.replications) replication\(first.replications == 1 ? "" : "s") × \(first.people) people × \(first.days) days"
            + " = \(personDays(study)) person-days simulated, \(one > 0 ? personDays(study) / one : 0) times one run of the file"
    }
}
