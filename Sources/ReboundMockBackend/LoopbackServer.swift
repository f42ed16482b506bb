import NIOCore
import NIOHTTP1
import NIOPosix

/// A real HTTP/1.1 server on loopback whose every reply a test scripts.
///
/// It exists to test an HTTP client against real sockets: keep-alive and connection reuse, chunked
/// bodies, redirects, and the failures a client must survive (a connection closed mid-body, a server
/// that never answers). Each route returns a ``LoopbackReply`` that says exactly what goes on the wire.
///
/// ```swift
/// let server = try await LoopbackServer.start(routes: LoopbackRoute.standardTestRoutes)
/// let response = try await client.get(server.url("/hello"))  // the HTTP client under test
/// #expect(server.requests(to: "/hello") == 1)
/// try await server.shutdown()
/// ```
///
/// Connections are persistent (HTTP/1.1 keep-alive) and serve their requests one at a time, in order:
/// a pipelined request waits until the response to the one before it is complete. How a request flows:
///
/// ```
/// socket ─▶ HTTPRequestDecoder ─▶ LoopbackConnectionHandler ─(Task)─▶ route handler
///                                        │                                │ LoopbackReply
/// socket ◀─ HTTPResponseEncoder ◀────────┴──◀── LoopbackReplyPerformer ◀──┘
/// ```
///
/// A request with `Expect: 100-continue` gets `100 Continue` as soon as its head arrives, so clients
/// that send large bodies do not wait out their expect timeout. A request that is not HTTP gets
/// `400 Bad Request` and the connection closes; a request whose body is larger than
/// ``Limits/maxRequestBodySize`` gets `413 Content Too Large` and the connection closes, as does one
/// whose body takes longer than ``Limits/requestBodyTimeout`` to arrive, with `408 Request Timeout`. A
/// connection with nothing to answer that sends no request head for ``Limits/idleTimeout`` is closed,
/// and at most ``Limits/maxConnections`` are open at once.
///
/// The server runs on the shared SwiftNIO event loops (`MultiThreadedEventLoopGroup.singleton`), so
/// starting one costs a listening socket and nothing else, and no thread outlives a test that forgets
/// to shut its server down.
public final class LoopbackServer: Sendable {
    /// Decides the reply to a request. It may suspend as long as it likes; it is cancelled if the
    /// connection closes meanwhile.
    public typealias Handler = @Sendable (LoopbackRequest) async -> LoopbackReply

    /// A setting passed to ``start(host:port:limits:routes:)`` that no server can honour.
    public struct ConfigurationError: Error, Hashable, CustomStringConvertible {
        /// What is wrong, such as `port 70000 is outside 0–65535`.
        public var description: String
    }

    /// The host the server listens on, as given to ``start(host:port:limits:routes:)``.
    public let host: String
    /// The port the server listens on.
    public let port: Int
    /// The faults the server injects into the replies of its routes; none at start.
    public let faults: LoopbackFaults

    private let listeningChannel: any Channel
    private let registry: LoopbackConnectionRegistry

    private init(
        host: String,
        port: Int,
        faults: LoopbackFaults,
        listeningChannel: any Channel,
        registry: LoopbackConnectionRegistry
    ) {
        self.host = host
        self.port = port
        self.faults = faults
        self.listeningChannel = listeningChannel
        self.registry = registry
    }

    deinit {
        // A test that forgot `shutdown()` should not leave a port open for the rest of the run.
        if let connections = registry.beginShutdown() {
            listeningChannel.close(promise: nil)
            for connection in connections { connection.close(promise: nil) }
        }
    }

    /// Starts a server that listens on `host` and answers with `routes`.
    ///
    /// - Parameters:
    ///   - host: The address to listen on. The default, `127.0.0.1`, keeps the server unreachable from
    ///     other machines.
    ///   - port: The port to listen on, from 0 to 65535; `0`, the default, lets the system pick a free
    ///     one, so tests can run in parallel.
    ///   - limits: How much the server takes from a client before refusing it; see ``Limits``.
    ///   - routes: The routes, asked in order; the first that matches a request handles it. A request
    ///     no route matches gets `404 Not Found` with a short plain-text body.
    /// - Returns: The running server.
    /// - Throws: ``ConfigurationError`` for a port outside 0–65535 or a limit below its minimum; an
    ///   error from SwiftNIO if the server cannot listen, for example because the port is taken.
    public static func start(
        host: String = "127.0.0.1",
        port: Int = 0,
        limits: Limits = .default,
        routes: [LoopbackRoute]
    ) async throws -> LoopbackServer {
        // The socket layer would silently keep the low 16 bits, listening somewhere nobody asked for.
        guard (0...65535).contains(port) else {
            throw ConfigurationError(description: "port \(port) is outside 0–65535")
        }
        try limits.validate()
        let registry = LoopbackConnectionRegistry(maxTrackedPaths: limits.maxTrackedPaths)
        let faults = LoopbackFaults()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            // Room for a burst of as many connections as the server takes, as a load test opens
            // them all at once: a connection the accept queue has no room for is reset once its
            // client sends. The kernel caps the backlog (net.core.somaxconn).
            .serverChannelOption(.backlog, value: Int32(clamping: max(1024, limits.maxConnections)))
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            // A client may end its side once its requests are sent (HTTP/1.1 allows it); it still
            // gets its responses. The connection handler closes the connection after the last one.
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { channel in
                guard let connectionNumber = registry.connectionOpened(channel, maxConnections: limits.maxConnections)
                else {
                    return channel.close()
                }
                channel.closeFuture.whenComplete { _ in registry.connectionClosed(channel) }
                return channel.eventLoop.makeCompletedFuture {
                    try Self.configurePipeline(
                        of: channel,
                        connectionNumber: connectionNumber,
                        routes: routes,
                        faults: faults,
                        limits: limits,
                        registry: registry
                    )
                }
            }
            .bind(host: host, port: port)
            .get()
        guard let boundPort = channel.localAddress?.port else {
            try? await channel.close()
            throw ChannelError.unknownLocalAddress
        }
        return LoopbackServer(
            host: host, port: boundPort, faults: faults, listeningChannel: channel, registry: registry)
    }

    /// Sets up the handlers of a new connection; runs on its event loop.
    private static func configurePipeline(
        of channel: any Channel,
        connectionNumber: Int,
        routes: [LoopbackRoute],
        faults: LoopbackFaults,
        limits: Limits,
        registry: LoopbackConnectionRegistry
    ) throws {
        // The encoder must send the framing headers a reply scripts, wrong ones included.
        var encoderConfiguration = HTTPResponseEncoder.Configuration()
        encoderConfiguration.automaticallySetFramingHeaders = false
        // Pipelining assistance stops reading while a response is pending, which would hide a client
        // that goes away from a stalled connection; the connection handler queues requests itself.
        // Protocol errors are answered by the connection handler too, which knows whether a response
        // has begun.
        try channel.pipeline.syncOperations.configureHTTPServerPipeline(
            withPipeliningAssistance: false,
            withErrorHandling: false,
            withEncoderConfiguration: encoderConfiguration
        )
        try channel.pipeline.syncOperations.addHandler(
            LoopbackConnectionHandler(
                connectionNumber: connectionNumber,
                routes: routes,
                faults: faults,
                limits: limits,
                registry: registry,
                eventLoop: channel.eventLoop
            )
        )
    }

    /// The host as it appears in a URL: an IPv6 address is put in brackets.
    private var hostInURL: String {
        host.contains(":") ? "[\(host)]" : host
    }

    /// The host and port, such as `"127.0.0.1:8080"`, as a `Host` header or a proxy setting has it.
    public var authority: String {
        "\(hostInURL):\(port)"
    }

    /// The URL of the server's root without a trailing slash, such as `"http://127.0.0.1:8080"`.
    public var baseURL: String {
        "http://\(authority)"
    }

    /// The URL of `pathAndQuery` on this server, such as `url("/bytes?count=10")`.
    public func url(_ pathAndQuery: String) -> String {
        baseURL + pathAndQuery
    }

    /// How many TCP connections the server has accepted so far.
    public var connectionsAccepted: Int {
        registry.connectionsAccepted
    }

    /// How many complete requests the server has received so far, answered or not.
    public var requestsServed: Int {
        registry.requestsReceived
    }

    /// How many complete requests the server has received so far for `path` (without the query).
    ///
    /// Only the first ``Limits/maxTrackedPaths`` distinct paths, of at most
    /// ``Limits/maximumTrackedPathLength`` UTF-8 bytes, are counted one by one; for any later or
    /// longer path this is 0, and its requests are in ``requestsToUntrackedPaths``.
    public func requests(to path: String) -> Int {
        registry.requestsReceived(for: path)
    }

    /// How many complete requests the server has received so far for paths it does not count one by
    /// one: those that arrived after ``Limits/maxTrackedPaths`` distinct paths were already counted,
    /// and those to paths longer than ``Limits/maximumTrackedPathLength`` bytes.
    ///
    /// With ``requests(to:)`` of every tracked path, it adds up to ``requestsServed``.
    public var requestsToUntrackedPaths: Int {
        registry.requestsToUntrackedPaths
    }

    /// Stops listening and closes every connection, stalled ones included.
    ///
    /// Route handlers still running are cancelled. Calling it again does nothing.
    ///
    /// - Throws: Nothing today; it throws so that a server owning more resources can report failing to
    ///   release them.
    public func shutdown() async throws {
        guard let connections = registry.beginShutdown() else { return }
        // Closing a channel that already closed fails; either way it is closed, which is all we want.
        try? await listeningChannel.close()
        for connection in connections {
            try? await connection.close()
        }
    }
}
