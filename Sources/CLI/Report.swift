import ArgumentParser
import Foundation
import WidgetSimExecution
import WidgetSimReportPage
import WidgetSimReports

struct Report: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Rebuild a run's report.html from the CSVs in its folder.",
        discussion: """
        Reads summary.csv, daily.csv and comparison.csv (and run.json, reasons.csv
        and study.csv when present) from the folder and writes report.html: the
        run's trade-offs, learning curves, paired differences and reasons as charts
        drawn by gnuplot, in one page that needs no network. Each chart's data and
        gnuplot script are written to report/ beside the page, to restyle a figure.
        A missing or damaged CSV stops it before anything is written (exit status 2).

        Example:
          widgetsim report reports/default
        """)

    @Argument(help: "A run's output folder, or reports/<scenario name> for its latest run without --out.")
    var folder: String

    func run() throws {
        let url = OutputFolder.resolvingLatest(URL(fileURLWithPath: folder))
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue else {
            printError("widgetsim report: \(folder): no such folder")
            throw ExitCode(2)
        }
        if let written = try writeReportPage(in: url, command: "widgetsim report") {
            print("report written to \(written.page.path)")
        }
    }
}

/// Builds the page, or prints why not (naming the file at fault) and exits: 2 for bad
/// input, 1 when gnuplot is missing or fails. After a run (`optional`), a missing gnuplot
/// only warns: the CSVs are complete, and `widgetsim report` can draw them later.
@discardableResult
func writeReportPage(in folder: URL, command: String, optional: Bool = false) throws -> ReportPage.Written? {
    do {
        return try ReportPage.build(in: folder)
    } catch {
        if optional, case .gnuplotMissing = error {
            printError("\(command): report.html not written: \(error.description); the CSVs are complete")
            return nil
        }
        let place = error.exitCode == 2 ? folder.path + "/" : ""
        printError("\(command): \(place)\(error.description)")
        throw ExitCode(error.exitCode)
    }
}
