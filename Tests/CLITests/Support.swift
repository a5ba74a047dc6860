import Foundation

/// The repository's root folder (tests run from anywhere).
let repositoryRoot: URL = {
    var url = URL(fileURLWithPath: #filePath)
    while url.path != "/" {
        url.deleteLastPathComponent()
        if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
    }
    fatalError("Package.swift not found above \(#filePath)")
}()

/// The folder of the built products (the test bundle sits beside `widgetsim`).
let productsFolder: URL = {
    var url = Bundle.main.bundleURL
    if !FileManager.default.fileExists(atPath: url.appendingPathComponent("widgetsim").path) {
        url = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }
    return url
}()

struct Outcome {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs `executable` with `arguments` in `folder`, with `environment` added to this
/// process's own.
func execute(_ executable: String, _ arguments: [String], in folder: URL? = nil,
             environment: [String: String] = [:]) throws -> Outcome {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let folder { process.currentDirectoryURL = folder }
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    // Read both pipes while the process runs, so a full pipe never blocks it.
    final class Box: @unchecked Sendable { var data = Data() }
    let errBox = Box()
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async {
        errBox.data = err.fileHandleForReading.readDataToEndOfFile()
        group.leave()
    }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    let errData = errBox.data
    process.waitUntilExit()
    return Outcome(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                   stderr: String(decoding: errData, as: UTF8.self))
}

/// Runs the built `widgetsim`.
func widgetsim(_ arguments: [String], columns: Int = 80, in folder: URL? = nil) throws -> Outcome {
    try execute(productsFolder.appendingPathComponent("widgetsim").path, arguments, in: folder,
                environment: ["COLUMNS": String(columns)])
}
