extension LoopbackServer {
    /// How much the server takes from its clients before it refuses them.
    ///
    /// The server runs inside a test process, so a runaway or hostile client (an endless body, an
    /// endless pipeline, thousands of sockets that never send a request) must not exhaust the process's
    /// memory or file descriptors. The defaults are far above what a test of an HTTP client needs.
    ///
    /// ```swift
    /// // A server for a process limited to 200 file descriptors.
    /// let server = try await LoopbackServer.start(limits: .init(maxConnections: 150), routes: routes)
    /// ```
    public struct Limits: Sendable, Hashable {
        /// The largest request body accepted, in bytes.
        ///
        /// A request that declares a longer `Content-Length` gets `413 Content Too Large` at once (no
        /// `100 Continue`), and a chunked body that grows past it gets `413` as soon as it does; either
        /// way the connection closes after the `413`, without reading the rest of the body (a client
        /// still sending it may see the connection reset first). The default, 8 MiB, is far above any
        /// request a test sends, while the bodies a server keeps stay small next to the process's memory.
        /// It may be at most ``maximumRequestBodySize``.
        public var maxRequestBodySize: Int

        /// The most complete requests a connection holds while it answers an earlier one.
        ///
        /// Beyond it the server stops reading from the connection until a response completes, so a
        /// client that pipelines without end waits instead of filling memory. The default, 16, is more
        /// than any HTTP client pipelines.
        public var maxQueuedRequests: Int

        /// The most connections open at once; the server closes any it accepts beyond them at once.
        ///
        /// The default, 1024, is twice what a test of 500 concurrent requests opens; under a tight
        /// `ulimit -n`, lower it so that the server keeps descriptors for answering.
        public var maxConnections: Int

        /// How long a connection may wait for a request head (from when it opens or its last response
        /// completes until the head has arrived) before the server closes it.
        ///
        /// A reply under way, even one scripted to stall, does not count as idle. The default, 60 seconds,
        /// is longer than any client keeps an idle connection in its pool, and short enough that sockets
        /// opened and abandoned (or a client sending its head a byte at a time) do not pile up. It must be
        /// at least ``minimumTimeout``.
        public var idleTimeout: Duration

        /// How long a request body may take to arrive, from the end of its head (or from the
        /// `100 Continue` the client waited for) to its last byte.
        ///
        /// A body that takes longer gets `408 Request Timeout` with `Connection: close`, after the
        /// responses to earlier pipelined requests, and the connection closes: ``idleTimeout`` bounds the
        /// head and the wait between requests, this the body, so a client trickling a byte every few
        /// seconds cannot hold a connection for hours. Time the server spends not reading (its queue of
        /// pipelined requests is full) or not yet asking for the body (`Expect: 100-continue` behind an
        /// earlier response) does not count: the wait starts again once it reads or asks. The default,
        /// 60 seconds, is thousands of times what a body of ``maxRequestBodySize`` takes on loopback, and
        /// frees a trickled connection as soon as ``idleTimeout`` frees an idle one. It must be at least
        /// ``minimumTimeout``.
        public var requestBodyTimeout: Duration

        /// The most distinct paths whose requests the server counts one by one.
        ///
        /// ``LoopbackServer/requests(to:)`` counts the requests to each of the first this many distinct
        /// paths; the requests to any further path are counted together in
        /// ``LoopbackServer/requestsToUntrackedPaths`` (and `requests(to:)` says 0 for that path), so a
        /// client that sends endless distinct paths does not grow the server's memory, and no request goes
        /// uncounted. A path longer than ``maximumTrackedPathLength`` is never counted one by one, so that
        /// the bound holds for the memory too. `MockBackend.stats` keeps its `MockBackendStats.requestsPerRoute` to as many
        /// routes, with the rest in `MockBackendStats.requestsToUntrackedRoutes`. The default, 10,000,
        /// is far more paths than a test asks about, while the counters of the server and of the mock
        /// backend stay small: 100,000 distinct paths grow a standalone mock backend by about 4 MB (by
        /// 32 MB before there was a bound).
        public var maxTrackedPaths: Int

        /// Limits with the defaults given for each property.
        public init(
            maxRequestBodySize: Int = 8 * 1024 * 1024,
            maxQueuedRequests: Int = 16,
            maxConnections: Int = 1024,
            idleTimeout: Duration = .seconds(60),
            requestBodyTimeout: Duration = .seconds(60),
            maxTrackedPaths: Int = 10_000
        ) {
            self.maxRequestBodySize = maxRequestBodySize
            self.maxQueuedRequests = maxQueuedRequests
            self.maxConnections = maxConnections
            self.idleTimeout = idleTimeout
            self.requestBodyTimeout = requestBodyTimeout
            self.maxTrackedPaths = maxTrackedPaths
        }

        /// The defaults given for each property.
        public static let `default` = Limits()

        /// The largest ``maxRequestBodySize`` accepted: 1 GiB.
        ///
        /// The server holds a body whole in one SwiftNIO `ByteBuffer`, which cannot exceed
        /// `UInt32.max` bytes (4 GiB - 1) and grows by doubling its capacity, so a body past 2 GiB
        /// asks for a buffer it cannot have and traps. A route then gets the body once more as
        /// `[UInt8]`. 1 GiB stays well clear of both, and is still far more than any test of a client
        /// sends (and the size of the largest body `MockFailure.oversizedBody(bytes:)` sends back).
        public static let maximumRequestBodySize = 1 << 30

        /// The longest path, in UTF-8 bytes, counted one by one under ``maxTrackedPaths``: 1024.
        ///
        /// ``maxTrackedPaths`` bounds how many paths are kept, this how long each may be: requests to a
        /// longer path (or, in `MockBackendStats.requestsPerRoute`, to a longer route, method and space
        /// included) are counted with the untracked ones. SwiftNIO accepts request targets up to 80 KiB,
        /// so without it 10,000 paths could hold 800 MB in each count, and `GET /v1/stats` send as much.
        /// 1024 bytes is far longer than any route a test names, and keeps each count at about 10 MB at
        /// most with the default ``maxTrackedPaths``.
        public static let maximumTrackedPathLength = 1024

        /// The shortest ``idleTimeout`` and ``requestBodyTimeout`` accepted: 1 nanosecond.
        ///
        /// SwiftNIO schedules in whole nanoseconds and drops the rest, so a shorter but positive
        /// `Duration` would become a timeout of 0 that closes every connection before its first request.
        public static let minimumTimeout = Duration.nanoseconds(1)

        /// Throws if a limit cannot be honoured.
        func validate() throws(ConfigurationError) {
            guard maxRequestBodySize >= 0 else {
                throw ConfigurationError(description: "maxRequestBodySize \(maxRequestBodySize) is negative")
            }
            guard maxRequestBodySize <= Self.maximumRequestBodySize else {
                throw ConfigurationError(
                    description:
                        "maxRequestBodySize \(maxRequestBodySize) is above \(Self.maximumRequestBodySize) (1 GiB), the most a request body may hold"
                )
            }
            guard maxQueuedRequests >= 1 else {
                throw ConfigurationError(description: "maxQueuedRequests \(maxQueuedRequests) is less than 1")
            }
            guard maxConnections >= 1 else {
                throw ConfigurationError(description: "maxConnections \(maxConnections) is less than 1")
            }
            try Self.validate(timeout: idleTimeout, named: "idleTimeout")
            try Self.validate(timeout: requestBodyTimeout, named: "requestBodyTimeout")
            guard maxTrackedPaths >= 0 else {
                throw ConfigurationError(description: "maxTrackedPaths \(maxTrackedPaths) is negative")
            }
        }

        /// Throws unless `timeout` is positive and at least ``minimumTimeout``.
        private static func validate(timeout: Duration, named name: String) throws(ConfigurationError) {
            guard timeout > .zero else {
                throw ConfigurationError(description: "\(name) \(timeout) is not positive")
            }
            guard timeout >= minimumTimeout else {
                throw ConfigurationError(
                    description:
                        "\(name) \(timeout) is shorter than 1 nanosecond, so it would close every connection at once"
                )
            }
        }
    }
}
