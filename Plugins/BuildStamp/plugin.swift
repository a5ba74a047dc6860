import Foundation
import PackagePlugin

/// Writes `BuildStamp.swift` into the target before every build: the commit the
/// sources were built from and whether the checkout had uncommitted changes
/// (`scripts/lib/build-stamp.sh` does the work and leaves the file untouched when
/// nothing changed, so an unchanged checkout recompiles nothing).
@main
struct BuildStampPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("stamp")
        let script = context.package.directoryURL.appendingPathComponent("scripts/lib/build-stamp.sh")
        return [
            .prebuildCommand(
                displayName: "Stamping the build with its git commit",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [script.path, context.package.directoryURL.path, output.path],
                outputFilesDirectory: output),
        ]
    }
}
