import ArgumentParser
import Dispatch
import Foundation
import WidgetSimExecution
import WidgetSimModel
import WidgetSimReportPage
import WidgetSimReports
import WidgetSimScenario

struct Merge: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Combine the shard folders of one run into its reports.",
        usage: "widgetsim merge <shard-folders> ... --out <out> [<options>]",
        discussion: """
        Each folder must come from `widgetsim run SCENARIO --shard K/N --out FOLDER`
        of the same run: the same scenario file, options, N and WidgetSim version,
        with every shard 0…N−1 given exactly once and every block of each present
        and complete. The CSV reports are then byte for byte those of the unsharded
        run; run.json records how they were made. A part of another run (its header
        records the run's seed, scenario, options, version and block) and a
        parts/manifest.json changed after its run wrote it are refused by name; an
        --out folder holding another run's finished report is replaced only with
        --force.

        Example:
          widgetsim merge work/shard-0 work/shard-1 --out reports/big
        """)

    @Argument(help: "Shard folders (each holding parts/ from a --shard run).")
    var shardFolders: [String]

    @Option(help: "Where to write the reports.")
    var out: String

    @Flag(help: "Print only the final lines: no progress, no summary table.")
    var quiet = false

    @Flag(help: "Skip report.html and report/.")
    var noReport = false

    @Flag(help: "Replace the finished report of another run in the --out folder.")
    var force = false

    func run() throws {
        let started = Date()
        let start = DispatchTime.now().uptimeNanoseconds
        try checkOutputPath(out)
        do {
            let (study, first, folders) = try ShardMerge.check(shardFolders, rebuildStudy: rebuildStudy)
            let scenario = study.first
            var assembled = try Assembly.load(study, from: folders, widgetDays: first.widgetDays,
                                              identity: PartIdentity(first))
            let lock = try OutputFolder.lock(URL(fileURLWithPath: out))
            defer { withExtendedLifetime(lock) {} }
            if !force, let report = OutputFolder.finishedReport(
                in: URL(fileURLWithPath: out), scenarioText: first.scenarioText, overrides: first.overrides), !report.sameRun {
                throw RunRefusal("""
                    \(out) holds the finished report of another run (scenario `\(report.scenarioName)`, finished \
                    \(report.finished)); add --force to replace it, or give another --out folder to keep both
                    """)
            }
            OutputFolder.removeStaleFiles(in: URL(fileURLWithPath: out))
            // The run's time: the compute its parts recorded, and this merge's.
            let wall = assembled.result.recordedSeconds + Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            for k in assembled.results.indices { assembled.results[k].wallSeconds = wall }
            var provenance = Provenance()
            provenance.scenarioPath = first.scenarioPath
            provenance.scenarioText = first.scenarioText
            provenance.overrides = first.overrides
            provenance.commandLine = CommandLine.arguments
            provenance.build = BuildInfo.stamp
            let record = RunRecord(
                scenario: scenario, manifest: first, provenance: provenance, threads: nil,
                shards: folders.count, started: started, finished: Date(), results: assembled.results, study: study)
            try assembled.write(to: URL(fileURLWithPath: out), record: record)
            if !quiet {
                print(study.isStudy ? StudyTable.render(assembled.results, study: study) : SummaryTable.render(assembled.result))
            }
            print("merged \(folders.count) shards of \(scenario.name) into \(out)/")
            if !noReport { try writeReportPage(in: URL(fileURLWithPath: out), command: "widgetsim merge", optional: true) }
        } catch let error as RunRefusal {
            printError("widgetsim merge: \(error.description)")
            throw ExitCode(2)
        } catch let error as MergeRefusal {
            printError("widgetsim merge: \(error.description)")
            throw ExitCode(2)
        } catch let error as ExitCode {
            throw error
        } catch {
            printError("widgetsim merge: \(error)")
            throw ExitCode(2)
        }
    }
}
