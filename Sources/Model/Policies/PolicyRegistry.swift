/// The policies a scenario may name: every budget and every ranking policy, each
/// registered once under its name.
///
/// There is one way in: ``register(_:)-(BudgetPolicyDescriptor)`` and
/// ``register(_:)-(RankingPolicyDescriptor)``. The built-in policies are registered
/// through it too (``builtIn``); a program that adds its own policies starts from
/// ``builtIn`` and registers them on top. Budget and ranking policies have separate
/// names: a budget policy and a ranking policy may share one (`ios_like` does).
///
/// Registration checks each descriptor before accepting it: the name is a word of
/// lower-case letters, digits and `_` starting with a letter; it is not taken (a
/// built-in name never can be); parameter names are words too, distinct, and not
/// `policy` or `label` (the keys a scenario entry already uses); every
/// parameter's default satisfies its own kind, so that a scenario that omits it is
/// valid; and the refusal codes it declares are policies' codes, not the system's
/// (`RefusalReason.isSystemRule`), each a code in form (`RefusalReason.isCode`) and
/// declared once.
public struct PolicyRegistry: Sendable {
    /// Budget policies in registration order: the order `widgetsim policies` lists them.
    public private(set) var budgets: [BudgetPolicyDescriptor] = []
    /// Ranking policies in registration order.
    public private(set) var rankings: [RankingPolicyDescriptor] = []
    /// Names registered by ``builtIn``, which later registrations may not take.
    private var builtInBudgets: Set<String> = []
    private var builtInRankings: Set<String> = []

    /// An empty registry. Most programs want ``builtIn`` instead.
    public init() {}

    /// Every built-in policy (``BudgetPolicies/all`` and ``RankingPolicies/all``),
    /// registered in listing order.
    public static let builtIn: PolicyRegistry = {
        var r = PolicyRegistry()
        do {
            for d in BudgetPolicies.all { try r.register(d) }
            for d in RankingPolicies.all { try r.register(d) }
        } catch {
            preconditionFailure("a built-in policy fails registration: \(error)")
        }
        r.builtInBudgets = Set(r.budgets.map(\.name))
        r.builtInRankings = Set(r.rankings.map(\.name))
        return r
    }()

    /// This registry with `budgets` and `rankings` registered after its own policies.
    public func adding(
        budgets: [BudgetPolicyDescriptor] = [], rankings: [RankingPolicyDescriptor] = []
    ) throws(PolicyRegistrationError) -> PolicyRegistry {
        var r = self
        for d in budgets { try r.register(d) }
        for d in rankings { try r.register(d) }
        return r
    }

    /// Adds a budget policy, or throws why it cannot be added (the registry is then
    /// unchanged).
    public mutating func register(_ descriptor: BudgetPolicyDescriptor) throws(PolicyRegistrationError) {
        try Self.check(descriptor, role: .budget, taken: budgets.map(\.name), builtIn: builtInBudgets)
        budgets.append(descriptor)
    }

    /// Adds a ranking policy, or throws why it cannot be added (the registry is then
    /// unchanged).
    public mutating func register(_ descriptor: RankingPolicyDescriptor) throws(PolicyRegistrationError) {
        try Self.check(descriptor, role: .ranking, taken: rankings.map(\.name), builtIn: builtInRankings)
        rankings.append(descriptor)
    }

    /// The budget policy registered under `name`, or nil.
    public func budget(named name: String) -> BudgetPolicyDescriptor? {
        budgets.first { $0.name == name }
    }

    /// The ranking policy registered under `name`, or nil.
    public func ranking(named name: String) -> RankingPolicyDescriptor? {
        rankings.first { $0.name == name }
    }

    /// Whether `name` is a built-in policy of `role` (rather than one a program added).
    public func isBuiltIn(_ name: String, role: PolicyRole) -> Bool {
        switch role {
        case .budget: builtInBudgets.contains(name)
        case .ranking: builtInRankings.contains(name)
        }
    }

    /// Keys a scenario's policy entry uses itself, so no parameter may have them.
    static let reservedKeys: Set<String> = ["policy", "label"]

    static func check<P>(
        _ d: PolicyDescriptor<P>, role: PolicyRole, taken: [String], builtIn: Set<String>
    ) throws(PolicyRegistrationError) {
        func refuse(_ problem: String) -> PolicyRegistrationError {
            PolicyRegistrationError(role: role, name: d.name, problem: problem)
        }
        guard isWord(d.name) else {
            throw refuse("a policy name is a lower-case word of letters, digits and `_`, starting with a letter")
        }
        if builtIn.contains(d.name) {
            throw refuse("a built-in \(role) policy has this name; choose another name")
        }
        if taken.contains(d.name) {
            throw refuse("a \(role) policy of this name is already registered")
        }
        if d.summary.isEmpty { throw refuse("the summary is empty: say the rule in a sentence") }
        for (i, code) in d.refusals.enumerated() {
            guard RefusalReason.isCode(code.label) else {
                throw refuse("refusal `\(code.label)`: a refusal code is a lower-case word of letters, digits, `_` and `:`, starting with a letter")
            }
            if code.isSystemRule {
                throw refuse("refusal `\(code.label)` is a system rule's code, counted by the system, not by a policy")
            }
            if d.refusals[..<i].contains(code) { throw refuse("refusal `\(code.label)` is declared twice") }
        }
        var seen: Set<String> = []
        for spec in d.parameters {
            guard isWord(spec.name) else {
                throw refuse("parameter `\(spec.name)`: a parameter name is a lower-case word of letters, digits and `_`, starting with a letter")
            }
            if reservedKeys.contains(spec.name) {
                throw refuse("parameter `\(spec.name)`: `policy` and `label` are keys of every scenario entry, not parameters")
            }
            guard seen.insert(spec.name).inserted else { throw refuse("parameter `\(spec.name)` is declared twice") }
            if spec.summary.isEmpty { throw refuse("parameter `\(spec.name)` has no summary") }
            if let problem = spec.problem(with: spec.defaultValue) {
                throw refuse("parameter `\(spec.name)`: its default \(spec.defaultValue) does not fit its kind: \(problem)")
            }
        }
    }

    /// `[a-z][a-z0-9_]*`: the words scenario files and report columns use for policies.
    static func isWord(_ s: String) -> Bool {
        guard let first = s.unicodeScalars.first, ("a" ... "z").contains(first) else { return false }
        return s.unicodeScalars.allSatisfy { ("a" ... "z").contains($0) || ("0" ... "9").contains($0) || $0 == "_" }
    }
}

/// Which kind of policy a name refers to.
public enum PolicyRole: String, Sendable, CustomStringConvertible {
    /// A budget policy (scenario key `budgets:`).
    case budget
    /// A ranking policy (scenario key `rankings:`).
    case ranking
    /// `budget` or `ranking`, as messages say it.
    public var description: String { rawValue }
}

/// Why a policy could not be registered.
public struct PolicyRegistrationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Whether the refused descriptor is a budget or a ranking policy.
    public var role: PolicyRole
    /// The refused descriptor's name.
    public var name: String
    /// What is wrong with it, and what to do about it.
    public var problem: String
    /// The whole message, as in "cannot register budget policy `daily_quota`: a built-in …".
    public var description: String { "cannot register \(role) policy `\(name)`: \(problem)" }
}
