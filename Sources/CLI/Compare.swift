import ArgumentParser
import Foundation
import WidgetSimModel
import WidgetSimReports

struct Compare: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The paired difference between any two policy pairs of a report.",
        discussion: """
        Reads the report folder of a finished run and prints, for every metric of
        summary.csv, the values of pairs A and B and their paired difference A − B
        with its 95% interval: over replications, or with one replication over the
        blocks of people (batches.csv). comparison.csv gives the same against the
        baseline; this compares any two pairs. A pair is BUDGET/RANKING, by label.

        Example:
          widgetsim compare reports/default daily_quota/static unlimited/static
        """)

    @Argument(help: "A report folder written by `widgetsim run` or `widgetsim merge`, or reports/<scenario name> for its latest run without --out.")
    var folder: String

    @Argument(help: ArgumentHelp("The first pair.", valueName: "BUDGET/RANKING"))
    var a: String

    @Argument(help: ArgumentHelp("The pair subtracted from it.", valueName: "BUDGET/RANKING"))
    var b: String

    @Flag(help: "Print CSV instead of a table.")
    var csv = false


    func pair(_ text: String) -> PolicyPair? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        return PolicyPair(budget: String(parts[0]), ranking: String(parts[1]))
    }

    func run() throws {
        for text in [a, b] where pair(text) == nil {
            printError("widgetsim compare: a pair is BUDGET/RANKING, e.g. daily_quota/static; got `\(text)`")
            throw ExitCode(2)
        }
        do {
            let result = try PairCompare.compare(folder: OutputFolder.resolvingLatest(URL(fileURLWithPath: folder)), pair(a)!, pair(b)!)
            print(csv ? PairCompare.csv(result) : PairCompare.render(result), terminator: csv ? "" : "\n")
        } catch {
            printError("widgetsim compare: \(error)")
            throw ExitCode(2)
        }
    }
}
