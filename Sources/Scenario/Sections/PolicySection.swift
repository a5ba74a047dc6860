import WidgetSimModel
import Yams

/// The policies a scenario may name, as the scenario layer sees a registry: their names
/// in listing order and each one's parameters.
struct PolicyCatalog {
    /// "budget" or "ranking", for messages.
    var role: String
    var names: [String]
    var parameters: (String) -> [ParameterSpec]?

    static func budgets(_ registry: PolicyRegistry) -> PolicyCatalog {
        PolicyCatalog(role: "budget", names: registry.budgets.map(\.name),
                      parameters: { registry.budget(named: $0)?.parameters })
    }

    static func rankings(_ registry: PolicyRegistry) -> PolicyCatalog {
        PolicyCatalog(role: "ranking", names: registry.rankings.map(\.name),
                      parameters: { registry.ranking(named: $0)?.parameters })
    }
}

/// One item of `budgets:` or `rankings:`.
struct PolicyEntry {
    /// Known even when the parameters are wrong, so that `baseline:` can be checked.
    var label: String?
    var choice: PolicyChoice?
}

/// `budgets:` and `rankings:` — the policies to compare (MODEL §4, §5). Each item is a
/// policy name, or `{policy, label, PARAMETER: value, …}`.
extension ScenarioReader {
    func policies(_ node: Node, _ path: String, catalog: PolicyCatalog) -> [PolicyEntry] {
        guard let items = list(node, path, what: "a list of \(catalog.role) policies") else { return [] }
        if items.isEmpty { report("must list at least one \(catalog.role) policy", at: node, path: path) }
        if items.count > Bounds.policies {
            report("must list at most \(Bounds.policies) \(catalog.role) policies, got \(items.count)", at: node, path: path)
            return []
        }
        var entries: [PolicyEntry] = []
        var firstUse: [String: Node] = [:]
        for (i, item) in items.enumerated() {
            let itemPath = path.appending(index: i)
            var (entry, labelNode, labelPath) = policy(item, itemPath, catalog: catalog)
            if let label = entry.label {
                if let first = firstUse[label] {
                    report("""
                        duplicate \(catalog.role) label `\(label)` (first at line \(first.mark?.line ?? 0)); \
                        give each entry its own `label:`
                        """, at: labelNode, path: labelPath)
                    entry.choice = nil
                } else {
                    firstUse[label] = labelNode
                }
            }
            entries.append(entry)
        }
        return entries
    }

    /// One policy item, with the node and path its label comes from (for duplicates).
    func policy(_ node: Node, _ path: String, catalog: PolicyCatalog) -> (PolicyEntry, Node, String) {
        nodes[path] = node
        // The short form: just a name.
        if case .scalar = node {
            guard let name = policyName(node, path, catalog: catalog) else { return (PolicyEntry(), node, path) }
            return (PolicyEntry(label: name, choice: PolicyChoice(name: name)), node, path)
        }
        guard case .mapping(let mapping) = node else {
            report("expected a \(catalog.role) policy name or {policy: NAME, …}, got \(Self.found(node))",
                   at: node, path: path)
            return (PolicyEntry(), node, path)
        }
        // The policy decides which keys are valid, so look it up before checking keys.
        let given = pairs(of: mapping, path, reporting: false)
        let policyNode = given.first { Self.scalarText($0.key) == "policy" }?.value
        let name = policyNode.flatMap { policyName($0, path.appending(key: "policy"), catalog: catalog) }
        let specs = name.flatMap(catalog.parameters)
        let keys = specs.map { ["policy", "label"] + $0.map(\.name) }
            ?? given.compactMap { Self.scalarText($0.key) }  // unknown policy: its parameters are unknown too
        let f = fields(node, path, keys: keys, unknown: { key in
            let guess = Suggestions.didYouMean(key, in: keys)
            let key = Excerpt.of(key)
            if !guess.isEmpty { return "unknown parameter `\(key)` of \(catalog.role) policy `\(name ?? "")`\(guess)" }
            if specs?.isEmpty ?? true {
                return "unknown parameter `\(key)`: \(catalog.role) policy `\(name ?? "")` takes none"
            }
            return "unknown parameter `\(key)` of \(catalog.role) policy `\(name ?? "")`; valid: \(keys.joined(separator: ", "))"
        })
        guard let f else { return (PolicyEntry(), node, path) }
        if policyNode == nil { _ = required("policy", in: f) }
        let labelNode = f["label"]
        let label = labelNode.map { word($0, f.path("label"), role: " (it names the policy in reports)") } ?? name
        // A duplicate label is reported where the label comes from.
        let labelSource = labelNode ?? policyNode ?? node
        let labelPath = f.path(labelNode != nil ? "label" : "policy")
        guard let name, let specs else { return (PolicyEntry(label: label), labelSource, labelPath) }

        let before = issues.count
        var parameters = PolicyParameters()
        for spec in specs {
            if let value = f.read(spec.name, { parameterValue($0, $1, spec: spec) }) { parameters[spec.name] = value }
        }
        let choice = issues.count == before && label != nil
            ? PolicyChoice(label: label, name: name, parameters: parameters) : nil
        return (PolicyEntry(label: label, choice: choice), labelSource, labelPath)
    }

    /// A registered policy name; an unknown one is reported with the nearest and every
    /// valid name.
    func policyName(_ node: Node, _ path: String, catalog: PolicyCatalog) -> String? {
        guard let t = Self.scalarText(node), !Self.isNull(node) else {
            report("expected a \(catalog.role) policy name, got \(Self.found(node))", at: node, path: path)
            return nil
        }
        if catalog.names.contains(t) { return t }
        report(Suggestions.unknown("\(catalog.role) policy", t, valid: catalog.names), at: node, path: path)
        return nil
    }

    /// The largest whole number a count parameter may be given (larger ones cannot be
    /// checked against a range of `Int` without overflowing).
    static let maximumCount = 1e15

    /// A parameter's value, typed by its spec's kind and checked with `spec.problem(with:)`.
    func parameterValue(_ node: Node, _ path: String, spec: ParameterSpec) -> ParameterValue? {
        let expected = "expected \(spec.kind.expectation), got \(Self.found(node))"
        guard let t = Self.scalarText(node), !Self.isNull(node) else {
            report(expected, at: node, path: path)
            return nil
        }
        var value: ParameterValue? = nil
        switch spec.kind {
        case .number:
            if let v = Double(t), v.isFinite { value = .number(v) }
        case .count(let range):
            if let v = Double(t), v.isFinite {
                if abs(v) > Self.maximumCount {
                    report("\(Excerpt.of(t)) is outside \(range.lowerBound)…\(range.upperBound)", at: node, path: path)
                    return nil
                }
                value = .number(v)
            }
        case .duration:
            value = Self.durationMs(t).map { .duration($0) }
        case .durationOrDrop:
            value = t == "drop" ? .text("drop") : Self.durationMs(t).map { .duration($0) }
        case .choice:
            value = .text(t)
        case .flag:
            switch t.lowercased() {
            case "true": value = .flag(true)
            case "false": value = .flag(false)
            default: break
            }
        }
        guard let value else {
            report(expected, at: node, path: path)
            return nil
        }
        if let problem = spec.problem(with: value) {
            report(problem, at: node, path: path)
            return nil
        }
        nodes[path] = node
        return value
    }

    /// `baseline: {budget, ranking}`: labels of the lists above; each defaults to the
    /// first of its list.
    func baseline(_ node: Node, _ path: String, budgets: [PolicyEntry], rankings: [PolicyEntry]) -> PolicyPair? {
        guard let f = fields(node, path, keys: ["budget", "ranking"], what: "{budget, ranking}") else { return nil }
        func label(_ key: String, _ entries: [PolicyEntry]) -> String? {
            guard let node = f[key], let t = text(node, f.path(key), what: "a \(key) label") else {
                return entries.first?.label
            }
            let labels = entries.compactMap(\.label)
            // Only when every entry's label could be read is an unknown label surely undefined.
            if labels.contains(t) || labels.count < entries.count { return t }
            var message = "\(key) label `\(Excerpt.of(t))` is not defined"
            if let guess = Suggestions.nearest(to: t, in: labels) {
                message += "; did you mean `\(guess)`? Labels: "
            } else {
                message += "; labels: "
            }
            report(message + labels.joined(separator: ", "), at: node, path: f.path(key))
            return nil
        }
        let budget = label("budget", budgets), ranking = label("ranking", rankings)
        guard let budget, let ranking else { return nil }
        return PolicyPair(budget: budget, ranking: ranking)
    }
}
