// swift-tools-version:6.1
import PackageDescription

// Layers, bottom to top (each folder under Sources/ is one target):
//   CGSL      the GNU Scientific Library, as a system library
//   Sampling  random streams, seed derivation and distributions over GSL
//   Kernel    the discrete-event kernel: clock, future-event list, run loop (knows no widgets)
//   Model     widgets, timelines, reloads, budget and ranking policies, metrics as counters
//   Trace     usage logs (LSApp, CSV) read streaming, the person model fitted to them, and
//             a scenario's people written as one
//   Scenario  scenario files (YAML) turned into model configurations, with located errors
//   Reports   running people in parallel, shards, CSV reports, comparisons, merge
//   ReportPage  report.html: the CSVs drawn as gnuplot charts in one page (for people)
//   CLI       the `widgetsim` command line, as a library a host program can run with its own policies
//   Main      the `widgetsim` executable: the command line with the built-in policies
//   WidgetSim the library product: re-exports what a policy author and a host program use
//   Bench     the kernel benchmark (`widgetsim-bench`), run in release builds
// No unsafe compiler flags, so other packages can depend on WidgetSim by version. The
// simulation's hot path mutates arrays held by classes (the engine, its queue, the
// world, the stack's history, the governor, the relevance timelines); Swift's dynamic
// exclusivity checks on those accesses cost more than the work itself (1,556 against
// 460 instructions per event on the reference workload). Those classes mark their
// stored properties `@exclusivity(unchecked)`: each object belongs to one worker thread
// and none of their accesses overlap. Everything else keeps the checks.

let package = Package(
    name: "WidgetSim",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "widgetsim", targets: ["WidgetSimMain"]),
        .library(name: "WidgetSim", targets: ["WidgetSim"]),
        .executable(name: "widgetsim-bench", targets: ["widgetsim-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CGSL",
            path: "Sources/CGSL",
            pkgConfig: "gsl",
            providers: [.apt(["libgsl-dev"])]
        ),
        .target(name: "WidgetSimSampling", dependencies: ["CGSL"], path: "Sources/Sampling"),
        .target(name: "WidgetSimKernel", path: "Sources/Kernel"),
        .target(
            name: "WidgetSimModel",
            dependencies: ["WidgetSimSampling", "WidgetSimKernel"],
            path: "Sources/Model"
        ),
        .target(
            name: "WidgetSimTrace",
            dependencies: ["WidgetSimModel", "CGSL"],
            path: "Sources/Trace"
        ),
        .target(
            name: "WidgetSimScenario",
            dependencies: ["WidgetSimModel", "WidgetSimSampling", "WidgetSimTrace", .product(name: "Yams", package: "Yams")],
            path: "Sources/Scenario"
        ),
        .target(
            name: "WidgetSimReports",
            dependencies: ["WidgetSimModel", "WidgetSimSampling", "CGSL"],
            path: "Sources/Reports"
        ),
        .target(
            name: "WidgetSimReportPage",
            dependencies: ["WidgetSimReports", .product(name: "Mustache", package: "swift-mustache")],
            path: "Sources/ReportPage"
        ),
        .target(
            name: "WidgetSimCLI",
            dependencies: [
                "WidgetSimReports", "WidgetSimScenario", "WidgetSimModel", "WidgetSimReportPage", "WidgetSimTrace",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/CLI",
            plugins: ["BuildStamp"]
        ),
        .executableTarget(name: "WidgetSimMain", dependencies: ["WidgetSimCLI"], path: "Sources/Main"),
        .target(
            name: "WidgetSim",
            dependencies: [
                "WidgetSimKernel", "WidgetSimSampling", "WidgetSimModel", "WidgetSimScenario",
                "WidgetSimReports", "WidgetSimReportPage", "WidgetSimCLI",
            ],
            path: "Sources/WidgetSim"
        ),
        .executableTarget(
            name: "widgetsim-bench",
            dependencies: ["WidgetSimKernel", "WidgetSimSampling"],
            path: "Sources/Bench"
        ),
        .plugin(name: "BuildStamp", capability: .buildTool(), path: "Plugins/BuildStamp"),
        .testTarget(name: "SamplingTests", dependencies: ["WidgetSimSampling"]),
        .testTarget(name: "KernelTests", dependencies: ["WidgetSimKernel"]),
        .testTarget(name: "ModelTests", dependencies: ["WidgetSimModel", "WidgetSimSampling"]),
        .testTarget(
            name: "ScenarioTests",
            dependencies: ["WidgetSimScenario", "WidgetSimModel", "WidgetSimTrace"],
            resources: [.copy("Fixtures")]
        ),
        // Runs the built `widgetsim` (help texts, the README's commands); imports its command line for
        // the help texts' source.
        .testTarget(name: "CLITests", dependencies: ["WidgetSimCLI", "WidgetSimMain"]),
        .testTarget(
            name: "ReportPageTests",
            dependencies: ["WidgetSimReportPage", "WidgetSimReports", "WidgetSimScenario", "WidgetSimModel"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "ReportsTests",
            dependencies: ["WidgetSimReports", "WidgetSimScenario", "WidgetSimModel", "WidgetSimKernel", "WidgetSimSampling"],
            resources: [.copy("Golden")]
        ),
        .testTarget(name: "LibraryTests", dependencies: ["WidgetSim"]),
        .testTarget(name: "TraceTests", dependencies: ["WidgetSimTrace", "WidgetSimScenario", "WidgetSimModel", "WidgetSimSampling"]),
    ]
)
