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
        // Only the malloc interposer: the ARC runtime interposer (the default
        // "RuntimeInterposer" trait) is not needed for these metrics.
        .package(url: "https://github.com/ordo-one/package-benchmark", from: "1.38.0", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        .executableTarget(
            name: "EngineBenchmark",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "PopGestureCore", package: "popgestured"),
                .product(name: "PopGestureInput", package: "popgestured"),
                .product(name: "PopGestureRecording", package: "popgestured"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/EngineBenchmark",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]),
    ]
)
