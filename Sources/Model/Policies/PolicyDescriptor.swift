/// A registered policy: what `widgetsim policies` lists and what a scenario names.
public struct PolicyDescriptor<Policy>: Sendable {
    public var name: String
    /// The rule, in one or two sentences.
    public var summary: String
    /// Where the rule comes from.
    public var source: String
    /// Built on reverse-engineered behaviour: calibration only.
    public var unofficial: Bool
    /// The reason codes a budget policy's refusals carry (empty for rankings and for a
    /// policy that never refuses).
    public var refusals: [RefusalReason]
    public var parameters: [ParameterSpec]
    /// A fresh policy object for these (already validated) parameters.
    public var make: @Sendable (PolicyParameters) -> Policy

    public init(
        name: String, summary: String, source: String, unofficial: Bool = false,
        refusals: [RefusalReason] = [], parameters: [ParameterSpec], make: @escaping @Sendable (PolicyParameters) -> Policy
    ) {
        self.name = name
        self.summary = summary
        self.source = source
        self.unofficial = unofficial
        self.refusals = refusals
        self.parameters = parameters
        self.make = make
    }

    public func parameter(named name: String) -> ParameterSpec? {
        parameters.first { $0.name == name }
    }
}

public typealias BudgetPolicyDescriptor = PolicyDescriptor<any BudgetPolicy>
public typealias RankingPolicyDescriptor = PolicyDescriptor<any RankingPolicy>
