// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "Rebound",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Rebound", targets: ["Rebound"]),
        .library(name: "ReboundCurl", targets: ["ReboundCurl"]),
        .library(name: "ReboundTesting", targets: ["ReboundTesting"]),
        .library(name: "ReboundReportAnalysis", targets: ["ReboundReportAnalysis"]),
        .library(name: "ReboundMockBackend", targets: ["ReboundMockBackend"]),
        .library(name: "ReboundPrometheus", targets: ["ReboundPrometheus"]),
        // Empty unless the package is built with the `OTel` trait.
        .library(name: "ReboundOTel", targets: ["ReboundOTel"]),
        .executable(name: "rebound", targets: ["ReboundTool"]),
        .executable(name: "mock-backend", targets: ["MockBackendServer"]),
        .executable(name: "task-client", targets: ["TaskClient"]),
        .executable(name: "transport-demo", targets: ["TransportDemo"]),
        .executable(name: "transport-benchmark", targets: ["TransportBenchmark"]),
        .executable(name: "decoding-benchmark", targets: ["DecodingBenchmark"]),
        .executable(name: "reliability", targets: ["Reliability"]),
        .executable(name: "overload-scenario", targets: ["OverloadScenario"]),
        // libFuzzer targets of the parsers of untrusted input (make fuzz, docs/reliability.md).
        .executable(name: "rebound-fuzz", targets: ["ReboundFuzz"]),
    ],
    traits: [
        .trait(
            name: "OTel",
            description: """
                ReboundOTel: OTLP export of traces, metrics and logs through swift-otel, which takes \
                minutes to build. Off by default, so that nothing builds swift-otel unless it asks.
                """
        )
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-http-structured-headers.git", from: "1.7.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // Built only with the `OTel` trait (ReboundOTel); OTLP over HTTP only, no gRPC.
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        // Only for `swift package generate-documentation` and `preview-documentation`; nothing links
        // it, and `make docs` runs DocC on the debug build without it (scripts/docs.py).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // The core: errors, chains, the transport protocol. No C, no server.
        .target(
            name: "Rebound",
            dependencies: [
                .product(name: "HTTPTypes", package: "swift-http-types"),
                // The IETF draft's `RateLimit` and `RateLimit-Policy` fields are structured fields.
                .product(name: "RawStructuredFieldValues", package: "swift-http-structured-headers"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        // libcurl, seen from Swift: a module map and a shim for the variadic setters.
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // The libcurl transport: one curl_multi thread bridged to async/await.
        .target(
            name: "ReboundCurl",
            dependencies: ["Rebound", "CCurl", .product(name: "HTTPTypes", package: "swift-http-types")]
        ),
        // Test support shipped to users: scripted transports and the like.
        .target(
            name: "ReboundTesting",
            dependencies: ["Rebound", .product(name: "HTTPTypes", package: "swift-http-types")]
        ),
        // Offline analysis of report files, for tools (`rebound report`), not for apps.
        .target(
            name: "ReboundReportAnalysis",
            dependencies: ["Rebound"]
        ),
        // A real HTTP server on loopback with scripted replies, and the fault kit any test can use.
        .target(
            name: "ReboundMockBackend",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // The process's swift-metrics for Prometheus, served by the mock backend's loopback server.
        .target(
            name: "ReboundPrometheus",
            dependencies: ["Rebound", "ReboundMockBackend", .product(name: "Prometheus", package: "swift-prometheus")]
        ),
        // OTLP export through swift-otel; its sources compile only with the `OTel` trait.
        .target(
            name: "ReboundOTel",
            dependencies: [
                "Rebound",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "OTel", package: "swift-otel", condition: .when(traits: ["OTel"])),
                .product(
                    name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["OTel"])),
            ]
        ),
        // The example's fake domain on that server: the task-marketplace mock backend and its
        // failures. Not a product: only `mock-backend`, `task-client` and the tests use it.
        .target(
            name: "ReboundMarketplace",
            dependencies: [
                "ReboundMockBackend",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        // The `rebound` command-line tool: its commands, a library so that the fuzz targets can
        // parse its command lines (an executable's module cannot be linked into another one), and
        // the executable that runs them.
        .target(
            name: "ReboundCLI",
            dependencies: [
                "Rebound", "ReboundCurl", "ReboundReportAnalysis", "CommandLineWidth",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "ReboundTool",
            dependencies: ["ReboundCLI"]
        ),
        // The width the command-line tools wrap their help and messages to, never too narrow for
        // ArgumentParser.
        .target(name: "CommandLineWidth"),
        // The mock backend as a standalone server.
        .executableTarget(
            name: "MockBackendServer",
            dependencies: [
                "ReboundMockBackend", "ReboundMarketplace", "CommandLineWidth",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The example: a task client built the way the talk recommends.
        .executableTarget(
            name: "TaskClient",
            dependencies: [
                "Rebound", "ReboundCurl", "ReboundMarketplace", "ReboundPrometheus", "ReboundOTel", "CommandLineWidth",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Examples/TaskClient"
        ),
        .executableTarget(
            name: "TransportDemo",
            dependencies: ["Rebound", "ReboundCurl", "ReboundMockBackend"],
            path: "Examples/TransportDemo"
        ),
        .executableTarget(
            name: "TransportBenchmark",
            dependencies: [
                "Rebound", "ReboundCurl", "ReboundTesting",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Benchmarks/TransportBenchmark"
        ),
        // docs/resilience.md's measured scenarios: the mock backend misbehaving on loopback.
        .executableTarget(
            name: "OverloadScenario",
            dependencies: [
                "Rebound", "ReboundCurl", "ReboundMockBackend",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Benchmarks/OverloadScenario"
        ),
        .executableTarget(
            name: "DecodingBenchmark",
            dependencies: ["Rebound"],
            path: "Benchmarks/DecodingBenchmark"
        ),
        // docs/reliability.md's report costs, and the child process of the crash test.
        .executableTarget(
            name: "Reliability",
            dependencies: [
                "Rebound",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Benchmarks/Reliability"
        ),
        // The fuzz targets: libFuzzer's entry point when built with `-D REBOUND_FUZZING` and the
        // fuzzer sanitizer (scripts/fuzz.sh), a replay of inputs through them otherwise.
        .executableTarget(
            name: "ReboundFuzz",
            dependencies: [
                "Rebound", "ReboundCurl", "ReboundReportAnalysis", "ReboundCLI",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // What the test targets share (running blocking work off Swift's pool); not a product.
        .target(
            name: "TestSupport",
            path: "Tests/TestSupport"
        ),
        .testTarget(
            name: "ReboundTests",
            dependencies: [
                // The analysis reads back what the file sink writes.
                "Rebound", "ReboundTesting", "ReboundReportAnalysis", "TestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        .testTarget(
            name: "ReboundReportAnalysisTests",
            dependencies: ["ReboundReportAnalysis", "Rebound", "TestSupport"]
        ),
        .testTarget(
            name: "ReboundMockBackendTests",
            dependencies: [
                "ReboundMockBackend", "TestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .testTarget(
            name: "ReboundMarketplaceTests",
            dependencies: [
                "ReboundMarketplace", "ReboundMockBackend", "Rebound", "ReboundCurl", "TestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // Runs the built executables (rebound, mock-backend, task-client) and checks their output.
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "ReboundTool", "ReboundCLI", "CommandLineWidth", "MockBackendServer", "TaskClient",
                "ReboundMockBackend", "TestSupport",
                // The crash test runs `reliability record-reports` and reads the file it wrote.
                "Reliability", "Rebound", "ReboundReportAnalysis",
                // To parse the commands' options in process, as well as running the binaries.
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The exporters against real peers: Prometheus and an OTLP receiver (scripts/otlp-receiver.py),
        // each started by the tests. Compiled only with the `OTel` trait (`make test` runs it so).
        .testTarget(
            name: "ReboundExportTests",
            dependencies: [
                "Rebound", "ReboundCurl", "ReboundPrometheus", "ReboundOTel", "ReboundMockBackend", "TestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        // Every committed seed of Fuzz/Corpus through its fuzz target's checks.
        .testTarget(
            name: "ReboundFuzzTests",
            dependencies: ["ReboundFuzz"]
        ),
        .testTarget(
            name: "ReboundCurlTests",
            dependencies: [
                "Rebound", "ReboundCurl", "CCurl", "ReboundMockBackend", "TestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                // A W3C trace-context tracer over the in-memory one, for the propagation test.
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
    ]
)

for target in package.targets where target.type != .system {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("ExistentialAny"),
            .enableUpcomingFeature("MemberImportVisibility"),
            .enableUpcomingFeature("InternalImportsByDefault"),
        ]
}
