
// The library product: what a policy author and a host program use, re-exported
// declaration by declaration from the modules that define them. Everything else in
// those modules (the person engine, world generation, counters, report files'
// internals) stays out of `import WidgetSim`.

// Time.
@_exported import typealias WidgetSimKernel.SimTime
@_exported import enum WidgetSimKernel.Milliseconds
@_exported import enum WidgetSimModel.DurationText

// Randomness a ranking policy may use.
@_exported import class WidgetSimSampling.RandomStream
@_exported import enum WidgetSimSampling.GeneratorKind

// Budget policies.
@_exported import protocol WidgetSimModel.BudgetPolicy
@_exported import enum WidgetSimModel.BudgetDecision
@_exported import enum WidgetSimModel.ReloadReason
@_exported import struct WidgetSimModel.RefusalReason
@_exported import struct WidgetSimModel.RefusalRule
@_exported import struct WidgetSimModel.BudgetObservations
@_exported import enum WidgetSimModel.BudgetPolicies

// Ranking policies.
@_exported import protocol WidgetSimModel.RankingPolicy
@_exported import struct WidgetSimModel.ViewContext
@_exported import struct WidgetSimModel.ViewOutcome
@_exported import struct WidgetSimModel.RankingObservations
@_exported import class WidgetSimModel.StackHistory
@_exported import enum WidgetSimModel.RankingPolicies

// Describing and registering policies.
@_exported import struct WidgetSimModel.PolicyDescriptor
@_exported import typealias WidgetSimModel.BudgetPolicyDescriptor
@_exported import typealias WidgetSimModel.RankingPolicyDescriptor
@_exported import struct WidgetSimModel.ParameterSpec
@_exported import enum WidgetSimModel.ParameterKind
@_exported import enum WidgetSimModel.ParameterValue
@_exported import struct WidgetSimModel.PolicyParameters
@_exported import struct WidgetSimModel.PolicyRegistry
@_exported import enum WidgetSimModel.PolicyRole
@_exported import struct WidgetSimModel.PolicyRegistrationError

// Scenarios.
@_exported import struct WidgetSimModel.Scenario
@_exported import struct WidgetSimModel.PolicyChoice
@_exported import struct WidgetSimModel.PolicyPair
@_exported import enum WidgetSimScenario.ScenarioLoader
@_exported import struct WidgetSimScenario.ScenarioErrors
@_exported import struct WidgetSimScenario.ScenarioIssue

// Running and reports.
@_exported import class WidgetSimExecution.Runner
@_exported import struct WidgetSimExecution.RunResult
@_exported import enum WidgetSimReports.RunJob
@_exported import struct WidgetSimReports.RunOptions
@_exported import enum WidgetSimReports.RunOutcome
@_exported import struct WidgetSimReports.Provenance
@_exported import enum WidgetSimReports.SummaryTable
@_exported import struct WidgetSimExecution.UnregisteredPolicy
@_exported import enum WidgetSimReportPage.ReportPage
@_exported import enum WidgetSimReportPage.ReportInputError

// The command line, for host programs.
@_exported import enum WidgetSimCLI.WidgetSimCLI
