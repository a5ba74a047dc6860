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

        On a folder written by `widgetsim batch` (its comparison.csv and no
        summary.csv), it redraws the batch's page from the scenarios' folders
        instead; each scenario's own page is redrawn by `widgetsim report
        <out>/<scenario>`.

        Examples:
          widgetsim report reports/default
          widgetsim report reports/sweep          # a batch's page
        """)

    @Argument(help: "A run's output folder, reports/<scenario name> for its latest run without --out, or a batch's folder.")
    var folder: String

    func run() throws {
        let url = OutputFolder.resolvingLatest(URL(fileURLWithPath: folder))
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue else {
            printError("widgetsim report: \(folder): no such folder")
            throw ExitCode(2)
        }
        if let written = try writeReportPage(in: url, command: "widgetsim report", batch: BatchPage.isBatchFolder(url)) {
            print("report written to \(written.page.path)")
        }
    }
}

/// Builds the page (a batch folder's page with `batch`), or prints why not (naming the file at fault) and exits: 2 for bad
/// input, 1 when gnuplot is missing or fails. After a run (`optional`), a missing gnuplot
/// only warns: the CSVs are complete, and `widgetsim report` can draw them later.
/// `gnuplot`, started earlier (`Gnuplot.start`), draws a run's page.
@discardableResult
func writeReportPage(in folder: URL, command: String, optional: Bool = false, batch: Bool = false,
                     gnuplot: Gnuplot? = nil) throws -> ReportPage.Written? {
    do {
        if batch { return try BatchPage.build(in: folder) }
        return try ReportPage.build(in: folder, started: gnuplot)
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
