import ArgumentParser
import WidgetSimExecution
import WidgetSimModel
import WidgetSimReports

/// The options that change a scenario, shared by `run` and `batch`.
struct OverrideOptions: ParsableArguments {
    @Option(help: "The seed, 0…2^63−1. (default: the scenario's `seed`)")
    var seed: UInt64?

    @Option(help: "People per replication. (default: the scenario's `people`)")
    var people: Int?

    @Option(help: "Simulated days. (default: the scenario's `days`)")
    var days: Int?

    @Option(help: "Leading days that run but count only in daily.csv. (default: the scenario's `warmup_days`)")
    var warmupDays: Int?

    @Option(help: "Replications, each a fresh set of people from the same seed. (default: the scenario's `replications`)")
    var replications: Int?

    @Option(parsing: .upToNextOption, help: "Run only these budget policies, by label. (default: every one in the scenario)")
    var budget: [String] = []

    @Option(parsing: .upToNextOption, help: "Run only these ranking policies, by label. (default: every one in the scenario)")
    var ranking: [String] = []

    var asOverrides: RunOverrides {
        var o = RunOverrides()
        o.seed = seed
        o.people = people
        o.days = days
        o.warmupDays = warmupDays
        o.replications = replications
        o.budgets = budget.isEmpty ? nil : budget
        o.rankings = ranking.isEmpty ? nil : ranking
        return o
    }
}

func parseShard(_ text: String) -> Shard? {
    let parts = text.split(separator: "/")
    guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), n >= 1, k >= 0, k < n else { return nil }
    return Shard(index: k, count: n)
}
