// swift-tools-version: 6.1
// The gesture engine's benchmarks, in their own package so that the main package
// (and its CI build) never depends on package-benchmark.
//
//   cd Benchmarks && swift package --disable-sandbox benchmark
//
// See ../BENCHMARKS.md for what is measured and the results.
import PackageDescription

let package = Package(
    name: "popgestured-benchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "popgestured", path: ".."),
        // ordo-one/package-benchmark, now named ordo-one/benchmark (the plugin warns about
        // the old identity). Only the malloc interposer: the default "RuntimeInterposer"
        // trait (ARC counts) needs swift-runtime-interposer, which is not mirrored here.
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.0", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
    ],
    targets: [
        .executableTarget(
            name: "EngineBenchmark",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "PopGestureCore", package: "popgestured"),
                .product(name: "PopGestureInput", package: "popgestured"),
                .product(name: "PopGestureRecording", package: "popgestured"),
                .product(name: "PopGestureSynthesis", package: "popgestured"),
                .product(name: "PopGestureServer", package: "popgestured"),
                .product(name: "PopGestureProtocol", package: "popgestured"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/EngineBenchmark",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
    ]
)
