public import Prometheus
import ReboundMockBackend

/// A small HTTP server that answers `GET /metrics` with a registry in Prometheus's text format.
///
/// ```swift
/// let endpoint = try await PrometheusEndpoint.start(registry: registry, port: 9464)
/// // Prometheus scrapes http://127.0.0.1:9464/metrics
/// try await endpoint.shutdown()
/// ```
///
/// It runs on SwiftNIO's shared event loops, apart from the code that records metrics: a scrape
/// takes the registry's lock only while it writes the text, so a slow, absent or hostile scraper
/// never slows a call. Any other path gets `404`, a request body is refused beyond 64 KiB, at most
/// 64 connections are open at once, and a connection idle for 30 seconds is closed.
public final class PrometheusEndpoint: Sendable {
    /// The path that serves the metrics.
    public static let path = "/metrics"
    /// The media type of the answer: Prometheus's text format, version 0.0.4.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    private let server: LoopbackServer

    private init(server: LoopbackServer) {
        self.server = server
    }

    /// Starts serving `registry`.
    ///
    /// - Parameters:
    ///   - registry: The metrics to serve.
    ///   - host: The address to listen on; `127.0.0.1` by default, reachable from this machine
    ///     only. Give `0.0.0.0` for a Prometheus on another machine.
    ///   - port: The port, from 0 to 65535; `0` lets the system pick a free one (see ``port``).
    /// - Returns: The running endpoint.
    /// - Throws: An error naming the port when it is outside 0–65535; SwiftNIO's error when the
    ///   address cannot be bound (the port is taken, say).
    public static func start(
        registry: PrometheusCollectorRegistry,
        host: String = "127.0.0.1",
        port: Int
    ) async throws -> PrometheusEndpoint {
        let limits = LoopbackServer.Limits(
            maxRequestBodySize: 64 * 1024,
            maxQueuedRequests: 4,
            maxConnections: 64,
            idleTimeout: .seconds(30),
            requestBodyTimeout: .seconds(30),
            maxTrackedPaths: 16
        )
        let route = LoopbackRoute("GET", path) { _ in
            .respond(status: 200, headers: [("Content-Type", contentType)], body: registry.emitToBuffer())
        }
        return PrometheusEndpoint(
            server: try await LoopbackServer.start(host: host, port: port, limits: limits, routes: [route]))
    }

    /// The port it listens on.
    public var port: Int { server.port }

    /// The URL of the metrics, such as `http://127.0.0.1:9464/metrics`.
    public var url: String { server.url(Self.path) }

    /// Stops listening and closes every connection.
    public func shutdown() async throws {
        try await server.shutdown()
    }
}
