import WidgetSimModel
import WidgetSimSampling
import Yams

/// The top level of a scenario file: run settings, then the sections.
extension ScenarioReader {
    static let topLevelKeys = [
        "name", "description", "seed", "days", "warmup_days", "replications", "people", "start",
        "time_zone", "generator", "person", "widgets", "stack", "budgets", "rankings", "baseline", "trace",
    ]

    /// Reads the whole scenario; nil when anything was wrong (every problem reported).
    func scenario(_ root: Node, budgets budgetCatalog: PolicyCatalog, rankings rankingCatalog: PolicyCatalog) -> Scenario? {
        guard let f = fields(root, "", keys: Self.topLevelKeys, what: "a mapping of scenario settings") else {
            return nil
        }
        let name = required("name", in: f).flatMap {
            word($0, f.path("name"), role: " (it names the report folder)")
        }
        let description = f.read("description") { node, path -> String? in
            guard let t = text(node, path) else { return nil }
            guard t.unicodeScalars.count <= Bounds.descriptionLength else {
                report("must be at most \(Bounds.descriptionLength) characters, got \(t.unicodeScalars.count)", at: node, path: path)
                return nil
            }
            return t
        }
        let seed = required("seed", in: f).flatMap { self.seed($0, f.path("seed")) }
        let days = required("days", in: f).flatMap { whole($0, f.path("days"), in: Bounds.days) }
        let warmupDays = f.read("warmup_days") { whole($0, $1, in: 0 ... Int.max) }
        if let warmupDays, let days, warmupDays >= days, let node = f["warmup_days"] {
            report("must be less than days (\(days)), got \(warmupDays)", at: node, path: f.path("warmup_days"))
        }
        let replications = f.read("replications") { whole($0, $1, in: Bounds.replications) }
        // With a log to replay (`trace:`), the log gives the people and the first day.
        let trace = f.read("trace") { self.trace($0, $1) }
        let fromLog = f["trace"] != nil
        let people = fromLog ? f.read("people") { whole($0, $1, in: Bounds.people) } ?? 1
            : required("people", in: f).flatMap { whole($0, f.path("people"), in: Bounds.people) }
        let start = fromLog ? f.read("start") { date($0, $1) } ?? CalendarDate(year: 2000, month: 1, day: 3)
            : required("start", in: f).flatMap { date($0, f.path("start")) }
        let timeZone = required("time_zone", in: f).flatMap { self.timeZone($0, f.path("time_zone")) }
        let generator = f.read("generator") {
            choice($0, $1, what: "generator", options: GeneratorKind.allCases.map { ($0.rawValue, $0) })
        }
        let person = f["person"].map { self.person($0, f.path("person")) } ?? PersonModel()
        let widgets = required("widgets", in: f).map { self.widgets($0, f.path("widgets")) } ?? []
        let stack = widgets.isEmpty ? nil : self.stack(f["stack"], f.path("stack"), widgets: widgets)
        let budgets = required("budgets", in: f).map { policies($0, f.path("budgets"), catalog: budgetCatalog) } ?? []
        let rankings = required("rankings", in: f).map { policies($0, f.path("rankings"), catalog: rankingCatalog) } ?? []
        let baseline = f.read("baseline") { self.baseline($0, $1, budgets: budgets, rankings: rankings) }

        if let days { checkWithinRun(days: days) }
        guard issues.isEmpty, let name, let seed, let days, let people, let start, let timeZone, let stack
        else { return nil }
        let widgetSpecs = widgets.compactMap(\.spec)
        let budgetChoices = budgets.compactMap(\.choice)
        let rankingChoices = rankings.compactMap(\.choice)
        guard !widgetSpecs.isEmpty, widgetSpecs.count == widgets.count,
              !budgetChoices.isEmpty, budgetChoices.count == budgets.count,
              !rankingChoices.isEmpty, rankingChoices.count == rankings.count
        else { return nil }

        var scenario = Scenario(
            name: name, seed: seed, days: days, people: people, start: start, timeZone: timeZone,
            person: person, widgets: widgetSpecs, stack: stack,
            budgets: budgetChoices, rankings: rankingChoices, baseline: baseline)
        if let description { scenario.description = description }
        if let warmupDays { scenario.warmupDays = warmupDays }
        if let replications { scenario.replications = replications }
        if let generator { scenario.generator = generator }
        if let trace { replay(trace, into: &scenario, path: f.path("trace")) }
        for finding in RunGuard.check(scenario, budgetParameters: budgetCatalog.parameters) {
            let node = finding.paths.lazy.compactMap { self.node(near: $0) }.first ?? root
            report(finding.message, at: node, path: finding.paths.first ?? "")
        }
        return issues.isEmpty ? scenario : nil
    }

    /// The node read at `path`, or at the nearest enclosing path that was read.
    func node(near path: String) -> Node? {
        var p = path
        while !p.isEmpty {
            if let n = nodes[p] { return n }
            if let n = nodes[p + ".mean"] { return n }
            guard let cut = p.lastIndex(where: { $0 == "." || $0 == "[" }) else { break }
            p = String(p[..<cut])
        }
        return nil
    }

    /// A whole number in 0…2^63 − 1 (a 64-bit signed integer that is not negative).
    func seed(_ node: Node, _ path: String) -> UInt64? {
        if let t = Self.scalarText(node), let v = UInt64(t), v <= Bounds.largestSeed { return v }
        report("expected a whole number in 0…\(Bounds.largestSeed), got \(Self.found(node))", at: node, path: path)
        return nil
    }
}
