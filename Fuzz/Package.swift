// swift-tools-version: 6.1
import PackageDescription

// libFuzzer targets for popgestured. A package of its own, so that building the main
// package never builds them. Build and run them with `scripts/fuzz`, which passes
// `-Xswiftc -sanitize=fuzzer -Xswiftc -parse-as-library`: each target's entry point is
// its `@_cdecl("LLVMFuzzerTestOneInput")` function, and libFuzzer supplies `main`.
let package = Package(
    name: "PopGestureFuzz",
    dependencies: [
        .package(name: "popgestured", path: ".."),
    ],
    targets: [
        // libFuzzer's driver behind the `<Target>_main` each target defines (see FuzzDriver.c).
        .target(name: "FuzzDriver"),
        .executableTarget(
            name: "FuzzRequestParser",
            dependencies: ["FuzzDriver", .product(name: "PopGestureProtocol", package: "popgestured")]),
        .executableTarget(
            name: "FuzzRecordings",
            dependencies: [
                "FuzzDriver",
                .product(name: "PopGestureRecording", package: "popgestured"),
                .product(name: "PopGestureInput", package: "popgestured"),
                .product(name: "PopGestureCore", package: "popgestured"),
            ]),
        .executableTarget(
            name: "FuzzEDID",
            dependencies: [
                "FuzzDriver",
                .product(name: "PopGestureCore", package: "popgestured"),
                .product(name: "PopGestureInput", package: "popgestured"),
            ]),
        .executableTarget(
            name: "FuzzUserSettings",
            dependencies: [
                "FuzzDriver",
                .product(name: "PopGestureDaemon", package: "popgestured"),
                .product(name: "PopGestureCore", package: "popgestured"),
                .product(name: "PopGestureProtocol", package: "popgestured"),
            ]),
        .executableTarget(
            name: "FuzzEngine",
            dependencies: [
                "FuzzDriver",
                .product(name: "PopGestureInput", package: "popgestured"),
                .product(name: "PopGestureCore", package: "popgestured"),
                .product(name: "PopGestureSynthesis", package: "popgestured"),
            ]),
    ]
)
