// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "popgestured",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "popgestured", targets: ["popgestured"]),
        .library(name: "PopGestureCore", targets: ["PopGestureCore"]),
        .library(name: "PopGestureInput", targets: ["PopGestureInput"]),
        .library(name: "PopGestureRecording", targets: ["PopGestureRecording"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-numerics", from: "1.0.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "5.0.0"),
    ],
    targets: [
        // System libraries: a module map and a one-line header each, nothing else.
        .systemLibrary(
            name: "CEvdev", pkgConfig: "libevdev",
            providers: [.apt(["libevdev-dev"])]),
        .systemLibrary(
            name: "CMtdev", pkgConfig: "mtdev",
            providers: [.apt(["libmtdev-dev"])]),

        // Pure gesture logic: imports no C, reads no clock.
        .target(
            name: "PopGestureCore",
            dependencies: [
                .product(name: "Logging", package: "swift-log"),
                .product(name: "RealModule", package: "swift-numerics"),
            ]),

        // The only module that talks to the C input stack.
        .target(
            name: "PopGestureInput",
            dependencies: ["PopGestureCore", "CEvdev", "CMtdev"]),

        // Pure-Swift readers for evemu and `libinput record` recordings.
        .target(
            name: "PopGestureRecording",
            dependencies: ["PopGestureCore", .product(name: "Yams", package: "Yams")]),

        .executableTarget(
            name: "popgestured",
            dependencies: [
                "PopGestureCore", "PopGestureInput", "PopGestureRecording",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]),

        .testTarget(name: "PopGestureCoreTests", dependencies: ["PopGestureCore"]),
        .testTarget(name: "PopGestureInputTests", dependencies: ["PopGestureInput", "PopGestureCore"]),
        .testTarget(
            name: "ReplayTests",
            dependencies: ["PopGestureCore", "PopGestureInput", "PopGestureRecording", "popgestured"]),
        .testTarget(
            name: "PopGestureRecordingTests",
            dependencies: ["PopGestureRecording", "PopGestureCore"]),
    ]
)
