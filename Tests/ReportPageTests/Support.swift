import Foundation
import WidgetSimExecution
import WidgetSimModel
import WidgetSimReports
import WidgetSimScenario

/// The repository's root folder (tests run from anywhere).
let repositoryRoot: URL = {
    var url = URL(fileURLWithPath: #filePath)
    while url.path != "/" {
        url.deleteLastPathComponent()
        if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
    }
    fatalError("Package.swift not found above \(#filePath)")
}()

/// A fresh temporary folder.
func temporaryFolder() -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("widgetsim-page-\(UUID().uuidString)")
    try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// The tiny scenario run with three replications into a fresh folder, its CSVs and
/// run.json written as `widgetsim run` writes them (no page yet).
func tinyRunFolder() throws -> URL {
    var s = try ScenarioLoader.load(path: repositoryRoot.appendingPathComponent("scenarios/tiny.yaml").path)
    var overrides = RunOverrides()
    overrides.replications = 3
    try overrides.apply(to: &s)
    let folder = temporaryFolder().appendingPathComponent("tiny")
    var options = RunOptions(outputFolder: folder, threads: 1)
    options.widgetDays = false
    options.provenance.scenarioPath = "scenarios/tiny.yaml"
    options.provenance.commandLine = ["widgetsim", "run", "scenarios/tiny.yaml", "--replications", "3"]
    guard case .finished = try RunJob.execute(s, options) else { throw TestFailure("the tiny run did not finish") }
    return folder
}

/// A file of this test target's Fixtures folder.
func fixture(_ name: String) -> URL {
    Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil)!
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// A CSV file's rows as dictionaries by column name (no quoted commas in the files read here).
func csvRows(_ url: URL) throws -> [[String: String]] {
    let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init)
    let header = lines[0].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    return lines.dropFirst().map { line in
        let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        return Dictionary(uniqueKeysWithValues: zip(header, fields))
    }
}

/// Runs a program to its end; returns its exit status, standard output and standard error.
@discardableResult
func runProgram(_ executable: String, _ arguments: [String], in folder: URL? = nil) throws -> (status: Int32, out: String, err: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let folder { process.currentDirectoryURL = folder }
    process.standardInput = FileHandle.nullDevice
    let outFile = temporaryFolder().appendingPathComponent("out"), errFile = outFile.appendingPathExtension("err")
    FileManager.default.createFile(atPath: outFile.path, contents: nil)
    FileManager.default.createFile(atPath: errFile.path, contents: nil)
    let out = try FileHandle(forWritingTo: outFile), err = try FileHandle(forWritingTo: errFile)
    process.standardOutput = out
    process.standardError = err
    try process.run()
    process.waitUntilExit()
    try out.close()
    try err.close()
    return (process.terminationStatus, try String(contentsOf: outFile, encoding: .utf8), try String(contentsOf: errFile, encoding: .utf8))
}

/// The `widgetsim` built beside these tests.
func widgetsimBinary() throws -> String {
    var folders: [URL] = []
    let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    if exe.path != "/proc/self/exe" { folders.append(exe.deletingLastPathComponent()) }
    for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
        folders.append(bundle.bundleURL.resolvingSymlinksInPath().deletingLastPathComponent())
    }
    folders.append(Bundle.main.bundleURL.resolvingSymlinksInPath())
    for f in folders {
        let candidate = f.appendingPathComponent("widgetsim").path
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    throw TestFailure("widgetsim is not built beside the tests (swift build --build-tests builds it)")
}
