import ArgumentParser
import Foundation
import WidgetSimExecution
import WidgetSimModel
import WidgetSimReports
import WidgetSimScenario

/// `--set`, `--sweep`, `--points` and `--point`: values changed and studies made on the
/// command line (scenarios/README.md, "Parameter studies").
struct StudyOptions: ParsableArguments {
    @Option(name: .customLong("set"), help: ArgumentHelp(
        "Set one value of the scenario, as if written in the file (repeatable): budgets.quota12.per_day=30. (default: the file's values)",
        valueName: "PATH=VALUE"))
    var sets: [String] = []

    @Option(name: .customLong("sweep"), help: ArgumentHelp(
        "Vary one value over a study (repeatable): PATH=20,40,70 or PATH=20..70:10; added to the file's study. (default: the file's study, if any)",
        valueName: "PATH=VALUES"))
    var sweeps: [String] = []

    @Flag(name: .customLong("points"), help: "List the study's points and exit.")
    var listPoints = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Run only point K of the study. (default: every point)", valueName: "K"))
    var point: Int?

    var request: StudyRequest { StudyRequest(sets: sets, sweeps: sweeps, point: point, listOnly: listPoints) }

    func record(in overrides: inout RunOverrides) {
        overrides.sets = sets.isEmpty ? nil : sets
        overrides.sweeps = sweeps.isEmpty ? nil : sweeps
        overrides.point = point
    }
}

/// Loads a scenario file as a study, applies the command line's overrides to every point
/// and records where it came from; prints the file's warnings; exits with status 2 on
/// any problem.
func prepareStudy(_ path: String, _ options: OverrideOptions, _ study: StudyOptions) throws -> (Study, Provenance) {
    var s: Study
    do {
        s = try ScenarioLoader.loadStudy(path: path, study.request, policies: WidgetSimCLI.policies)
        for w in ScenarioWarnings.check(path: path, scenario: s.first) { printError(w.description) }
    } catch {
        printError(error.description)
        throw ExitCode(2)
    }
    var overrides = options.asOverrides
    do {
        try s.forEachScenario { (x: inout Scenario) throws(OverrideError) in try overrides.apply(to: &x) }
    } catch {
        printError("widgetsim: \(error)")
        throw ExitCode(2)
    }
    for (option, value, limit) in [("--people", overrides.people, 10_000_000), ("--days", overrides.days, 100_000),
                                   ("--replications", overrides.replications, 10_000)] {
        if let value, value > limit {
            printError("widgetsim: \(option) must be at most \(limit), got \(value)")
            throw ExitCode(2)
        }
    }
    if let seed = overrides.seed, seed > UInt64(Int64.max) {
        printError("widgetsim: --seed must be a whole number in 0…\(Int64.max), got \(seed)")
        throw ExitCode(2)
    }
    if overrides != RunOverrides() {
        // Every point passed the guard; the options may change what it estimates.
        for point in s.points {
            let findings = RunGuard.check(point.scenario)
            if !findings.isEmpty {
                let at = s.isStudy ? " at point \(point.number)" : ""
                for f in findings { printError("widgetsim: with the command line's options\(at), \(f.message)") }
                throw ExitCode(2)
            }
        }
    }
    study.record(in: &overrides)
    var provenance = Provenance()
    provenance.scenarioPath = path
    provenance.scenarioText = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    provenance.overrides = overrides
    provenance.commandLine = CommandLine.arguments
    provenance.build = BuildInfo.stamp
    return (s, provenance)
}

/// The study a manifest records (for `widgetsim merge`).
func rebuildStudy(_ m: RunManifest) throws -> Study {
    let o = m.overrides
    var s = try ScenarioLoader.study(
        yaml: m.scenarioText, file: m.scenarioPath,
        StudyRequest(sets: o.sets ?? [], sweeps: o.sweeps ?? [], point: o.point), policies: WidgetSimCLI.policies)
    try s.forEachScenario { (x: inout Scenario) throws(OverrideError) in try o.apply(to: &x) }
    return s
}

/// `--points`: the study's points, one per line, as a table, on standard output, written as it is made (in pieces of 64 KiB).
func writePointsTable(_ study: Study) {
    var buffer = ""
    pointsTable(study) { text in
        buffer += text
        if buffer.utf8.count >= 1 << 16 {
            FileHandle.standardOutput.write(Data(buffer.utf8))
            buffer = ""
        }
    }
    FileHandle.standardOutput.write(Data(buffer.utf8))
}

/// The `--points` table, line by line, to `emit`.
func pointsTable(_ study: Study, emit: (String) -> Void) {
    guard study.isStudy else { return emit("no study: the scenario runs as one point (0)\n") }
    let header = ["point"] + study.parameters
    let rows = study.points.map { [String($0.number) + ($0.number == study.baselinePoint ? " *" : "")] + $0.values }
    let widths = header.indices.map { i in ([header[i]] + rows.map { $0[i] }).map(\.count).max() ?? 0 }
    func line(_ fields: [String]) -> String {
        zip(fields, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
            .trimmingCharacters(in: .whitespaces) + "\n"
    }
    if let cost = ExploreCost.line(study) { emit(cost + "\n") }
    emit("\(study.totalPoints) point\(study.totalPoints == 1 ? "" : "s"); * baseline point\n")
    emit(line(header))
    for row in rows { emit(line(row)) }
    if study.totalPoints > Study.maximumPoints {
        emit("more than \(Study.maximumPoints) points: run them one at a time with --point K\n")
    }
}
