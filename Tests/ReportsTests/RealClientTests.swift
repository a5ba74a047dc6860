import Foundation
import Testing
import WidgetSimModel
import WidgetSimReports

/// Every CSV of a run, loaded by pandas and DuckDB with their defaults, has the column
/// types its schema.json says (scripts/lib/check-reports.py). `scripts/test` installs
/// both into a virtual environment under .build/ and names its Python in
/// WIDGETSIM_PYTHON; a bare `swift test` without it skips this test.
@Suite struct RealClientTests {
    static let python = ProcessInfo.processInfo.environment["WIDGETSIM_PYTHON"]

    @Test(.enabled(if: python != nil, "WIDGETSIM_PYTHON is not set (scripts/test sets it)"))
    func pandasAndDuckDBReadTheSchemaTypes() throws {
        let root = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        var folders: [String] = []
        // One replication (intervals over blocks, batches.csv), and several with a warm-up
        // and a trace (written into a folder of its own, with its part of the schema).
        let traced = root.appendingPathComponent("trace")
        try FileManager.default.createDirectory(at: traced, withIntermediateDirectories: true)
        for (name, replications, warmup) in [("one", 1, 0), ("several", 3, 1)] {
            var s = try loadScenario("tiny.yaml")
            s.replications = replications
            s.days = 3
            s.warmupDays = warmup
            let folder = root.appendingPathComponent(name)
            var options = RunOptions(outputFolder: folder, threads: 2)
            if replications > 1 {
                s.people = 1
                options.traceFile = traced.appendingPathComponent("trace.csv")
            }
            _ = try RunJob.execute(s, options)
            folders.append(folder.path)
        }
        // A plain run's trace: the generic schema's columns less the study's `point`.
        var traceSchema = ReportSchema(files: Schema.all.files.filter { $0.file == "trace.csv" })
        #expect(traceSchema.files.count == 1)
        traceSchema.files[0].columns.removeAll { $0.name == "point" }
        #expect(traceSchema.files[0].columns.map(\.name) == [Schema.runID.name] + Schema.traceColumns(study: false).map(\.name))
        try traceSchema.json().write(to: traced.appendingPathComponent("schema.json"), atomically: true, encoding: .utf8)
        folders.append(traced.path)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.python!)
        process.arguments = [repositoryRoot.appendingPathComponent("scripts/lib/check-reports.py").path] + folders
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        print(text)
        #expect(process.terminationStatus == 0, "\(text)")
        // Every CSV of both folders was loaded.
        for folder in folders {
            let csvs = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".csv") }
            for name in csvs { #expect(text.contains("\(folder)/\(name): "), "\(name) was not checked") }
        }
    }
}
