import ArgumentParser
import Foundation
import WidgetSimExecution
import WidgetSimModel
import WidgetSimReports

struct Compare: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The paired difference between any two policy pairs of a report.",
        usage: "widgetsim compare <folder> <BUDGET/RANKING> <BUDGET/RANKING> [<options>]",
        discussion: """
        Reads the report folder of a finished run and prints, for every metric of
        summary.csv, the values of pairs A and B and their paired difference A − B
        with its 95% interval: over replications, or with one replication over the
        blocks of people (batches.csv). comparison.csv gives the same against the
        baseline; this compares any two pairs. A pair is BUDGET/RANKING, by label.

        A study's folder holds several points: --point K compares the pairs at
        point K, and a comparison that would pool different points is refused.
        --days A..B compares days A to B of daily.csv (days from 0, warm-up days
        included), each metric as its mean over those days: paired over
        replications, or with one replication over the days. Numbers are shown
        with the digits their interval allows.

        Examples:
          widgetsim compare reports/default daily_quota/static unlimited/static
          widgetsim compare reports/tiny daily_quota/static unlimited/static --days 1
          widgetsim compare reports/study quota/static unlimited/static --point 3
        """)

    @Argument(help: "A report folder written by `widgetsim run` or `widgetsim merge`, or reports/<scenario name> for its latest run without --out.")
    var folder: String

    @Argument(help: ArgumentHelp("The first pair.", valueName: "BUDGET/RANKING"))
    var a: String

    @Argument(help: ArgumentHelp("The pair subtracted from it.", valueName: "BUDGET/RANKING"))
    var b: String

    @Option(help: ArgumentHelp("Compare the pairs at this point of a study (study.csv lists them). (default: the folder's only point)", valueName: "K"))
    var point: Int?

    @Option(help: ArgumentHelp("Compare days A to B of daily.csv, from 0 (`0..6`: week one), or one day. (default: the measured days of summary.csv)", valueName: "A..B"))
    var days: String?

    @Flag(help: "Print CSV instead of a table.")
    var csv = false

    /// `A..B` (A ≤ B) or `A`, days from 0.
    static func dayRange(_ text: String) -> ClosedRange<Int>? {
        let parts = text.components(separatedBy: "..")
        guard parts.count <= 2, let a = Int(parts[0]), let b = Int(parts.last!), a >= 0, a <= b else { return nil }
        return a ... b
    }


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
        if let point, point < 0 {
            printError("widgetsim compare: --point takes a point's number, 0 or more; got \(point)")
            throw ExitCode(2)
        }
        if let days, Self.dayRange(days) == nil {
            printError("widgetsim compare: --days takes A..B with 0 ≤ A ≤ B (days from 0, e.g. 0..6 for week one), or one day; got `\(days)`")
            throw ExitCode(2)
        }
        do {
            let result = try PairCompare.compare(folder: OutputFolder.resolvingLatest(URL(fileURLWithPath: folder)), pair(a)!, pair(b)!,
                                                 point: point, days: days.flatMap(Self.dayRange))
            print(csv ? PairCompare.csv(result) : PairCompare.render(result), terminator: csv ? "" : "\n")
        } catch {
            printError("widgetsim compare: \(error)")
            throw ExitCode(2)
        }
    }
}
