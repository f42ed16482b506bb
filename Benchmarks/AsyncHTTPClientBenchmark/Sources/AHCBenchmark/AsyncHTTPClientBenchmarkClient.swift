import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// swift-server's AsyncHTTPClient on SwiftNIO's shared event loops, with a connection pool as wide
/// as the requests in flight (its default is 8 connections per host).
struct AsyncHTTPClientBenchmarkClient: BenchmarkClient {
    private let client: HTTPClient
    private let request: HTTPClientRequest

    /// The largest body collected, as `TransportOptions.maxResponseBodySize` bounds Rebound's.
    private static let maxBodyBytes = 32 * 1024 * 1024

    init(url: URL, concurrency: Int) {
        var configuration = HTTPClient.Configuration()
        configuration.httpVersion = .http1Only
        configuration.connectionPool = .init(
            idleTimeout: .seconds(60),
            concurrentHTTP1ConnectionsPerHostSoftLimit: concurrency
        )
        client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        request = HTTPClientRequest(url: url.absoluteString)
    }

    func fetch() async throws -> FetchResult {
        let response = try await client.execute(request, timeout: .seconds(60))
        let body = try await response.body.collect(upTo: Self.maxBodyBytes)
        return FetchResult(status: Int(response.status.code), bodyBytes: body.readableBytes)
    }

    func shutdown() async throws {
        try await client.shutdown()
    }
}
