// swift-tools-version:6.1
import PackageDescription

// Layers, bottom to top (each folder under Sources/ is one target):
//   CGSL      the GNU Scientific Library, as a system library (its glue alone)
//   CSampling the C steps of Sampling's hot loops: taus2 drawn inline, a truncating conversion,
//             the arrivals' exponential with glibc's fused log1p bits and the loop of hour arrivals
//   Sampling  random streams, seed derivation and distributions over GSL; the only layer
//             that calls GSL or CSampling directly (Trace calls GSL's fitting routines too)
//   Kernel    the discrete-event kernel: simulated time and the future-event lists (knows no
//             widgets). The run loop is the model's (`PersonEngine`): it merges the events its
//             world knows in advance with the queue's, which a loop here handing each event to
//             a handler would not do; a kernel loop that only the benchmark ran was removed
//             rather than put on the engine's hot path
//   Model     widgets, timelines, reloads, budget and ranking policies, metrics as counters
//   Trace     usage logs (LSApp, CSV) read streaming, the person model fitted to them, and
//             a scenario's people written as one
//   Scenario  scenario files (YAML) turned into model configurations, with located errors
//   CCRC32C   the processor's CRC-32C instruction, for Execution's checksums
//   CWriteback  Linux's sync_file_range, for Execution's rows logs (their writing to the disk
//             started as each block ends, so the report's flush waits for little)
//   Execution running people in parallel: threads, blocks, totals, part files and their
//             checksums (what a resume reads back), the run's manifest, the folder lock;
//             knows no report file. Report writing needs execution's results (`RunResult`,
//             `PairTotals`, parts), so Reports depends on Execution and not the reverse: the
//             rows a part keeps beside its counts and the trace's run columns are formats
//             the layer above hands the runner (`PartRowFormat`, `RunTrace`)
//   Reports   CSV reports, summaries, comparisons; a run's whole job (`RunJob`: the folder's
//             checks and resume, execution, then the reports) and the merge of shards, which
//             end in report files and so live here
//   ReportPage  report.html: the CSVs drawn as gnuplot charts in one page (for people)
//   CLI       the `widgetsim` command line, as a library a host program can run with its own policies
//   Main      the `widgetsim` executable: the command line with the built-in policies
//   WidgetSim the library product: re-exports what a policy author and a host program use
//   Bench     the hold-model benchmark of the kernel's queue (`widgetsim-bench`), in release builds
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
        .target(name: "CSampling", path: "Sources/CSampling"),
        .target(name: "WidgetSimSampling", dependencies: ["CGSL", "CSampling"], path: "Sources/Sampling"),
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
            dependencies: ["WidgetSimKernel", "WidgetSimModel", "WidgetSimSampling", "WidgetSimTrace", .product(name: "Yams", package: "Yams")],
            path: "Sources/Scenario"
        ),
        .target(name: "CCRC32C", path: "Sources/CCRC32C"),
        .target(name: "CWriteback", path: "Sources/CWriteback"),
        .target(
            name: "WidgetSimExecution",
            dependencies: ["WidgetSimKernel", "WidgetSimModel", "CCRC32C", "CWriteback"],
            path: "Sources/Execution"
        ),
        .target(
            name: "WidgetSimReports",
            dependencies: ["WidgetSimExecution", "WidgetSimKernel", "WidgetSimModel", "WidgetSimSampling"],
            path: "Sources/Reports"
        ),
        .target(
            name: "WidgetSimReportPage",
            dependencies: ["WidgetSimReports", "WidgetSimExecution", .product(name: "Mustache", package: "swift-mustache")],
            path: "Sources/ReportPage"
        ),
        .target(
            name: "WidgetSimCLI",
            dependencies: [
                "WidgetSimExecution", "WidgetSimReports", "WidgetSimScenario", "WidgetSimModel", "WidgetSimReportPage",
                "WidgetSimTrace",
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
                "WidgetSimExecution", "WidgetSimReports", "WidgetSimReportPage", "WidgetSimCLI",
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
        // What the engine's tests in ModelTests and ReportsTests share (scenarios built in
        // code, recording policies).
        .target(
            name: "EngineTestSupport",
            dependencies: ["WidgetSimKernel", "WidgetSimModel", "WidgetSimSampling"],
            path: "Tests/EngineTestSupport"
        ),
        .testTarget(name: "ModelTests", dependencies: ["EngineTestSupport", "WidgetSimKernel", "WidgetSimModel", "WidgetSimSampling"]),
        .testTarget(
            name: "ScenarioTests",
            dependencies: ["WidgetSimScenario", "WidgetSimKernel", "WidgetSimModel", "WidgetSimTrace"],
            resources: [.copy("Fixtures")]
        ),
        // Runs the built `widgetsim` (help texts, the README's commands); imports its command line for
        // the help texts' source.
        .testTarget(name: "CLITests", dependencies: ["WidgetSimCLI", "WidgetSimExecution", "WidgetSimMain"]),
        .testTarget(
            name: "ReportPageTests",
            dependencies: ["WidgetSimReportPage", "WidgetSimReports", "WidgetSimExecution", "WidgetSimScenario", "WidgetSimModel"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "ReportsTests",
            dependencies: [
                "EngineTestSupport", "WidgetSimReports", "WidgetSimExecution", "WidgetSimScenario", "WidgetSimModel",
                "WidgetSimKernel", "WidgetSimSampling",
            ],
            resources: [.copy("Golden")]
        ),
        .testTarget(name: "ExecutionTests", dependencies: ["WidgetSimExecution", "WidgetSimModel"]),
        .testTarget(name: "LibraryTests", dependencies: ["WidgetSim"]),
        .testTarget(name: "TraceTests", dependencies: ["WidgetSimTrace", "WidgetSimScenario", "WidgetSimKernel", "WidgetSimModel", "WidgetSimSampling"]),
    ]
)
