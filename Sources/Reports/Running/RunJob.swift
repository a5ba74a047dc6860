import Foundation
import WidgetSimModel

/// What `widgetsim run` asks for beyond the scenario.
public struct RunOptions: Sendable {
    public var outputFolder: URL
    public var threads: Int
    public var shard: Shard?
    /// Where to write the event trace, if anywhere (forces one thread).
    public var traceFile: URL?
    public var widgetDays: Bool = true
    public var progress: (@Sendable (RunProgress) -> Void)?

    public init(outputFolder: URL, threads: Int = 1, shard: Shard? = nil, traceFile: URL? = nil) {
        self.outputFolder = outputFolder
        self.threads = threads
        self.shard = shard
        self.traceFile = traceFile
    }
}

/// Runs a scenario and writes its reports. Nothing lands under its final name until
/// the run has succeeded.
public enum RunJob {
    public static func execute(_ scenario: Scenario, _ options: RunOptions) throws -> RunResult {
        let folder = options.outputFolder
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw ReportError.cannotWrite(folder.path, error.localizedDescription)
        }
        var open: [AtomicFile] = []
        defer { open.forEach { $0.abandon() } }

        let runner = Runner(scenario: scenario, threads: options.threads, shard: options.shard)
        runner.onProgress = options.progress
        var rows: OrderedRows?
        if options.widgetDays {
            let file = try AtomicFile(folder.appendingPathComponent("widget_days.csv"))
            open.append(file)
            rows = try OrderedRows(file: file, header: ReportWriter.widgetDaysHeader())
            runner.rowSink = rows
            runner.rowFormatter = ReportWriter.widgetDayRows(scenario, pairs: scenario.policyPairs)
        }
        var trace: TraceWriter?
        if let url = options.traceFile {
            let file = try AtomicFile(url)
            open.append(file)
            trace = try TraceWriter(file: file)
            runner.trace = trace
        }

        let result = try runner.run()

        let summary = try AtomicFile(folder.appendingPathComponent("summary.csv"))
        open.append(summary)
        try summary.write(ReportWriter.summary(result))
        let daily = try AtomicFile(folder.appendingPathComponent("daily.csv"))
        open.append(daily)
        try daily.write(ReportWriter.daily(result))

        try rows?.commit()
        try trace?.commit()
        try summary.commit()
        try daily.commit()
        return result
    }
}
