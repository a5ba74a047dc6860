// swift-tools-version:6.1
import PackageDescription

// A program that adds its own policies to WidgetSim without changing WidgetSim:
// it depends on the `WidgetSim` library and runs WidgetSim's command line with two
// more policies registered.
let package = Package(
    name: "custom-policy",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "WidgetSim", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "custom-widgetsim",
            dependencies: [.product(name: "WidgetSim", package: "WidgetSim")]
        ),
    ]
)
