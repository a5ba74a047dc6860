import WidgetSim

// WidgetSim's whole command line (run, batch, merge, validate, policies), with two
// more policies that scenario files may name.
WidgetSimCLI.main(budgets: [IdleSaverBudget.descriptor], rankings: [LastTappedRanking.descriptor])
