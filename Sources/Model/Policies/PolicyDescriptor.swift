/// A policy as it is registered: what `widgetsim policies` lists, what a scenario
/// names, and how to make the policy object.
///
/// Register a descriptor with `PolicyRegistry.register(_:)`; the registry checks it
/// (see `PolicyRegistry`). A descriptor is plain data and a closure, so it is usually
/// a `static let` of the policy's class.
public struct PolicyDescriptor<Policy>: Sendable {
    /// The word scenario files use (`daily_quota`), unique among policies of its kind.
    public var name: String
    /// The rule, in one or two sentences.
    public var summary: String
    /// Where the rule comes from.
    public var source: String
    /// Built on reverse-engineered behaviour: calibration only.
    public var unofficial: Bool
    /// The reason codes a budget policy's refusals carry (empty for rankings and for a
    /// policy that never refuses). `policies` lists them; a refusal's reason should be
    /// one of them.
    public var refusals: [RefusalReason]
    /// The parameters a scenario entry may set, each with its kind (type and bounds),
    /// default and one-line description. Keys not listed here are refused, with a
    /// located error, before anything runs.
    public var parameters: [ParameterSpec]
    /// A fresh policy object for these parameters. Every value given has already been
    /// checked against its spec (missing ones read as their default through the
    /// typed accessors of `PolicyParameters`). Called once per worker thread and policy
    /// pair when a run starts, not per person or event: it may allocate.
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
