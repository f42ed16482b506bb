// swift-tools-version: 6.1
import PackageDescription

// AsyncHTTPClient in Rebound's transport benchmark.
//
// A package of its own, so that building Rebound never builds SwiftNIO's HTTP client stack: only
// `WITH_AHC=1 scripts/benchmark-transport.sh` does. Its executable reads the same flags and prints
// the same JSON line as `transport-benchmark`, with whose harness it shares its sources
// (`Sources/AHCBenchmark/Harness` is a link to `Benchmarks/TransportBenchmark/Harness`).
let package = Package(
    name: "AsyncHTTPClientBenchmark",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "ahc-benchmark", targets: ["AHCBenchmark"])
    ],
    dependencies: [
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.100.0"),
    ],
    targets: [
        .executableTarget(
            name: "AHCBenchmark",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("MemberImportVisibility"),
                .enableUpcomingFeature("InternalImportsByDefault"),
            ]
        )
    ]
)
