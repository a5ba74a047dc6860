import ArgumentParser
import Foundation
import WidgetSimModel
import WidgetSimReports
import WidgetSimScenario

@main
struct WidgetSim: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "widgetsim",
        abstract: "Simulate how a phone spends widget reloads and how its Smart Stack ranks widgets.",
        discussion: """
        WidgetSim replays synthetic days of home-screen views, app sessions, pushes, content \
        changes and time changes for a population of simulated people, under pluggable budget \
        policies (who may reload when) and ranking policies (which widget the Smart Stack shows \
        on top), and writes CSV reports on reloads, staleness and rotation accuracy.

        Start with:
          widgetsim run scenarios/default.yaml
          widgetsim policies
          widgetsim validate scenarios/*.yaml

        The scenario format is documented in scenarios/README.md.
        """,
        subcommands: [Run.self, Report.self, Batch.self, Merge.self, Validate.self, Policies.self])
}

func printError(_ text: String) {
    FileHandle.standardError.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
}
