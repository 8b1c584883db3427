// swift-tools-version: 6.1
import PackageDescription

/// Release builds of the daemon's modules a frame runs through skip the run-time
/// exclusivity checks (each access to a class's stored property): 13 % of a swipe's
/// instructions (issue 30). The compiler still checks what it can see; debug builds,
/// which swift test, the hostile suite and the VM tier run, keep the run-time checks.
/// Not on PopGestureProtocol, which PopGestureClient shares with apps: SwiftPM refuses
/// unsafe flags in a package's dependencies.
let hotPath: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

let package = Package(
    name: "popgestured",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "popgestured", targets: ["popgestured"]),
        .executable(name: "popgesturectl", targets: ["popgesturectl"]),
        .executable(name: "popgestured-replay", targets: ["popgestured-replay"]),
        .executable(name: "popgestured-demo", targets: ["popgestured-demo"]),
        .library(name: "PopGestureCore", targets: ["PopGestureCore"]),
        .library(name: "PopGestureSynthesis", targets: ["PopGestureSynthesis"]),
        .library(name: "PopGestureProtocol", targets: ["PopGestureProtocol"]),
        .library(name: "PopGestureInput", targets: ["PopGestureInput"]),
        .library(name: "PopGestureRecording", targets: ["PopGestureRecording"]),
        .library(name: "PopGestureServer", targets: ["PopGestureServer"]),
        .library(name: "PopGestureDaemon", targets: ["PopGestureDaemon"]),
        .library(name: "PopGestureClient", targets: ["PopGestureClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-numerics", from: "1.0.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "5.0.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
    ],
    targets: [
        // System libraries: a module map and a one-line header each, nothing else.
        .systemLibrary(
            name: "CEvdev", pkgConfig: "libevdev",
            providers: [.apt(["libevdev-dev"])]),
        .systemLibrary(
            name: "CMtdev", pkgConfig: "mtdev",
            providers: [.apt(["libmtdev-dev"])]),
        .systemLibrary(
            name: "CUdev", pkgConfig: "libudev",
            providers: [.apt(["libudev-dev"])]),
        // signalfd and timerfd, which Glibc's Swift module leaves out.
        .systemLibrary(name: "CLinux"),
        .systemLibrary(
            name: "CSystemd", pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]),
        // The X11 bridge's window-manager view and RandR outputs (popgesturectl bridge x11).
        .systemLibrary(
            name: "CXcb", pkgConfig: "xcb-randr",
            providers: [.apt(["libxcb1-dev", "libxcb-randr0-dev"])]),
        // The bridges' Wayland client (popgesturectl bridge wlroots, and bridge kde's outputs):
        // libwayland-client and the glue wayland-scanner made from the protocols in protocols/, which
        // Sources/CWayland/generate remakes (committed, so the build needs no wayland-scanner).
        .target(
            name: "CWayland", exclude: ["protocols", "generate"],
            linkerSettings: [.linkedLibrary("wayland-client")]),

        // D-Bus messages read with bounds (sd-bus): the daemon's sensor and popgesturectl's
        // bridges share the one reader.
        .target(name: "PopGestureBus", dependencies: ["CSystemd"]),

        // The loop the daemon runs on: sd-event, its sources as Swift objects, the C types inside.
        .target(name: "PopGestureEventLoop", dependencies: ["CLinux", "CSystemd", "PopGestureCore"], swiftSettings: hotPath),

        // The thin layer over POSIX that the rest shares: Unix socket addresses, on swift-system's
        // FileDescriptor and Errno.
        .target(
            name: "PopGestureSystem",
            dependencies: [.product(name: "SystemPackage", package: "swift-system")]),

        // Pure gesture logic: imports no C, reads no clock.
        .target(
            name: "PopGestureCore",
            dependencies: [
                "PopGestureProtocol",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "RealModule", package: "swift-numerics"),
            ],
            swiftSettings: hotPath),

        // Evdev events written from a scripted gesture or decoded from fuzz bytes, and the
        // gesture corpus: for tests, Fuzz/, Benchmarks/, popgestured-demo and `popgestured-replay
        // corpus`, not part of the core's API (nor of the daemon's binary).
        .target(
            name: "PopGestureSynthesis",
            dependencies: ["PopGestureCore", .product(name: "RealModule", package: "swift-numerics")]),

        // The protocol: typed requests, replies and events, their one encoder and decoder
        // each, version negotiation, on a bounded JSON codec with the protocol's limits.
        // Depends on nothing (no Foundation, no engine), so the daemon, popgesturectl and
        // client libraries share it.
        .target(name: "PopGestureProtocol"),

        // The only module that talks to the C input stack: libevdev, mtdev, libudev.
        .target(
            name: "PopGestureInput",
            dependencies: [
                "PopGestureCore", "PopGestureProtocol", "CEvdev", "CMtdev", "CUdev",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: hotPath),

        // The client socket: protocol parsing, sessions, ownership, bounded output, served
        // on the daemon's own sd-event loop beside the engine (SwiftNIO's ByteBuffer, no NIO event loop).
        .target(
            name: "PopGestureServer",
            dependencies: [
                "PopGestureCore", "PopGestureEventLoop", "PopGestureInput", "PopGestureProtocol", "PopGestureSystem",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: hotPath),

        // A SocketServer on a thread of its own, for a process with no device loop: the demo
        // without a touchscreen, and the server's tests. Not linked into the daemon.
        .target(
            name: "PopGestureServerThread",
            dependencies: [
                "PopGestureCore", "PopGestureEventLoop", "PopGestureInput", "PopGestureServer", "PopGestureSystem",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]),

        // The daemon: configuration, device hotplug, systemd, lifecycle.
        .target(
            name: "PopGestureDaemon",
            dependencies: [
                "PopGestureBus", "PopGestureCore", "PopGestureEventLoop", "PopGestureInput", "PopGestureProtocol",
                "PopGestureServer",
                "PopGestureSystem", "CSystemd", "CLinux",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: hotPath),

        // The client library for apps in Swift, and popgesturectl's socket plumbing: a state
        // machine without I/O (ClientConnectionState) and a thin non-blocking driver for any
        // poll loop (PopGestureClient). No Foundation, no threads of its own.
        .target(
            name: "PopGestureClient",
            dependencies: [
                "PopGestureProtocol", "PopGestureSystem", .product(name: "SystemPackage", package: "swift-system"),
            ]),

        // Pure-Swift readers for evemu and `libinput record` recordings.
        .target(
            name: "PopGestureRecording",
            dependencies: ["PopGestureCore", .product(name: "Yams", package: "Yams")]),

        // The gesture settings' flags for popgestured-replay, on ArgumentParser (the daemon parses
        // its own: DaemonCommand).
        .target(
            name: "PopGestureCommandLine",
            dependencies: ["PopGestureDaemon", .product(name: "ArgumentParser", package: "swift-argument-parser")]),

        // The binary systemd runs: the daemon and a hidden test tool, linking only what the
        // daemon runs (issue 30): no Foundation, no command-line library (DaemonCommand
        // parses its flags from the keys' table), no recording readers, no gesture scripts.
        .executableTarget(
            name: "popgestured",
            dependencies: ["PopGestureCore", "PopGestureInput", "PopGestureDaemon"]),

        // The daemon for a first look (`swift run popgestured-demo`): the real socket and
        // engine, a client of its own, and generated swipes when no touchscreen is present.
        .executableTarget(
            name: "popgestured-demo",
            dependencies: [
                "PopGestureCore", "PopGestureInput", "PopGestureProtocol", "PopGestureDaemon", "PopGestureSystem",
                "PopGestureSynthesis", "PopGestureServer", "PopGestureServerThread",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]),

        // Recordings through the engine: a tool for developers, with the readers (Foundation, Yams).
        .executableTarget(
            name: "popgestured-replay",
            dependencies: [
                "PopGestureCore", "PopGestureInput", "PopGestureProtocol", "PopGestureRecording", "PopGestureDaemon",
                "PopGestureCommandLine", "PopGestureSynthesis",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]),

        // The command-line client: plain POSIX socket I/O, no engine; libxcb for the X11 bridge,
        // libwayland-client for the wlroots bridge.
        .executableTarget(
            name: "popgesturectl",
            dependencies: [
                "PopGestureBus", "PopGestureClient", "PopGestureProtocol", "PopGestureSystem", "CXcb", "CWayland", "CSystemd",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]),

        .testTarget(name: "PopGestureCoreTests", dependencies: ["PopGestureCore", "PopGestureProtocol", "PopGestureSynthesis"]),
        .testTarget(name: "PopGestureProtocolTests", dependencies: ["PopGestureProtocol"]),
        .testTarget(name: "PopGestureEventLoopTests", dependencies: ["PopGestureEventLoop", "PopGestureCore", "PopGestureInput"]),
        .testTarget(
            name: "PopGestureInputTests",
            dependencies: ["PopGestureInput", "PopGestureCore", "PopGestureProtocol", "PopGestureSynthesis", "CEvdev"]),
        .testTarget(
            name: "ReplayTests",
            dependencies: ["PopGestureCore", "PopGestureInput", "PopGestureRecording", "PopGestureSynthesis", "popgestured",
                           "popgestured-replay"]),
        .testTarget(
            name: "PopGestureRecordingTests",
            dependencies: ["PopGestureRecording", "PopGestureCore"]),
        .testTarget(
            name: "PopGestureServerTests",
            dependencies: [
                "PopGestureServer", "PopGestureServerThread", "PopGestureCore", "PopGestureEventLoop", "PopGestureProtocol",
                "PopGestureSystem",
                "PopGestureSynthesis",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]),
        .testTarget(
            name: "PopGestureDaemonTests",
            dependencies: [
                "PopGestureBus", "PopGestureDaemon", "PopGestureCore", "PopGestureSystem", "PopGestureSynthesis", "popgestured",
                "popgestured-demo",
                "popgesturectl",
                "popgestured-replay",
                .product(name: "SystemPackage", package: "swift-system"),
            ]),
        .testTarget(
            name: "PopGestureClientTests",
            dependencies: [
                "PopGestureClient", "PopGestureProtocol", "PopGestureSystem", "popgestured", "popgestured-demo",
                .product(name: "SystemPackage", package: "swift-system"),
            ]),
        .testTarget(
            name: "PopGestureSystemTests",
            dependencies: ["PopGestureSystem", .product(name: "SystemPackage", package: "swift-system")]),
    ]
)
