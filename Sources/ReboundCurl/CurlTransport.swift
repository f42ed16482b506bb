import Glibc
public import HTTPTypes
public import Rebound

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// An `HTTPTransport` over libcurl: one thread and one multi handle serve every request.
///
/// Requests from any number of tasks share one `curl_multi` handle driven by a dedicated thread,
/// so a thousand requests in flight need one thread, not a thousand. Connections are kept alive
/// and reused per host, HTTP/2 is used when a server offers it over TLS, and gzip, br and zstd
/// responses are decoded transparently.
///
/// ```swift
/// let transport = CurlTransport()
/// let request = HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/v1/tasks")
/// let response = try await transport.send(request)
/// print(response.status, response.body.count)
/// ```
///
/// Cancelling the calling task removes its transfer at once and ends it with
/// `NetworkErrorCode.cancelled`. Keep one transport for the life of the program (its connection
/// cache is what makes requests fast); it shuts down when released or on ``shutdown()``.
public final class CurlTransport: HTTPTransport {
    /// Settings that apply to the whole transport rather than one request.
    public struct Configuration: Hashable, Sendable {
        /// How many idle connections the cache keeps open for reuse, across hosts.
        ///
        /// Default 64: enough for a client that talks to a handful of hosts with up to a few dozen
        /// requests in flight each, small enough that idle sockets stay cheap.
        public var maxCachedConnections: Int
        /// How many connections one host may have open at once; further requests wait for one.
        ///
        /// Default 32: more than any browser opens per host (6), so concurrent requests rarely wait,
        /// yet a burst of a thousand requests does not open a thousand sockets to one server.
        /// With HTTP/2 the requests share connections and this limit hardly matters. `0` means no
        /// limit.
        ///
        /// Requests beyond the limit wait for a turn in a queue of the transport's, first come,
        /// first served, and start as the host's earlier requests finish (see
        /// ``maxQueuedRequests``). Over HTTP/2, once a request to the host came back over it, the
        /// limit is on streams: 100 per connection, as many as libcurl opens on one.
        public var maxConnectionsPerHost: Int
        /// How many requests may wait for a connection at once, across hosts; one more fails at
        /// once with `NetworkErrorCode.queueFull` rather than wait without bound.
        ///
        /// Default 10,000: a burst of thousands of calls to one host waits its turn, yet a caller
        /// that sends faster than the server answers, without end, meets a clear error instead of
        /// memory that grows (a waiting request holds its easy handle, a few KiB). The time a
        /// request waits counts against its connect timeout and its total timeout; running out of
        /// either while it waits fails it with `NetworkErrorCode.connectTimeout`.
        public var maxQueuedRequests: Int
        /// The file descriptors the transport may hold open at once: as many connections as the
        /// larger of ``maxConnectionsPerHost`` (all busy, to one host) and
        /// ``maxCachedConnections`` (idle, to any), and ``reservedDescriptors`` more.
        ///
        /// A transport whose process may open fewer (the soft `RLIMIT_NOFILE`, `ulimit -n`, often
        /// 1,024) refuses to start: its requests fail with `NetworkErrorCode.transportUnavailable`
        /// and a reason that names both numbers. Raise the limit (`ulimit -n`, or `setrlimit`
        /// early in `main`) or lower the two settings. Connections to several hosts at once can
        /// need more than this; each is one descriptor.
        public var descriptorsNeeded: Int {
            max(maxConnectionsPerHost, maxCachedConnections, 0) + Self.reservedDescriptors
        }

        /// Descriptors counted for everything but connections: the loop's epoll set and wake-up
        /// event, libcurl's DNS resolver threads (a socket pair each while they run), and room
        /// for the standard streams and the program's own files.
        public static let reservedDescriptors = 64

        /// Why a process that may open `limit` descriptors cannot run this configuration, or
        /// `nil` if it can (or `limit` is `nil`: no limit).
        func descriptorShortfall(limit: Int?) -> String? {
            guard let limit, descriptorsNeeded > limit else { return nil }
            return "The transport may hold \(descriptorsNeeded) file descriptors open "
                + "(maxConnectionsPerHost \(maxConnectionsPerHost), maxCachedConnections \(maxCachedConnections), "
                + "and \(Self.reservedDescriptors) more), but the process may open only \(limit) (RLIMIT_NOFILE). "
                + "Raise the limit (ulimit -n) or lower those settings."
        }

        /// The options of a request sent without options of its own.
        public var defaultOptions: TransportOptions
        /// A PEM file of certificate authorities to trust instead of the system's, for servers with
        /// a private CA (an internal service, a test server). `nil`, the default, trusts the system's.
        public var certificateAuthorityFile: String?

        public init(
            maxCachedConnections: Int = 64,
            maxConnectionsPerHost: Int = 32,
            defaultOptions: TransportOptions = TransportOptions(),
            certificateAuthorityFile: String? = nil,
            maxQueuedRequests: Int = 10_000
        ) {
            self.maxCachedConnections = maxCachedConnections
            self.maxConnectionsPerHost = maxConnectionsPerHost
            self.maxQueuedRequests = maxQueuedRequests
            self.defaultOptions = defaultOptions
            self.certificateAuthorityFile = certificateAuthorityFile
        }
    }

    /// The settings this transport was created with.
    public let configuration: Configuration
    private let loop: CurlMultiLoop?
    /// Why the transport cannot run, when it cannot.
    private let unavailableReason: String?

    /// Creates a transport and starts its thread.
    ///
    /// If libcurl cannot be initialised, or the process may open fewer file descriptors than the
    /// configuration needs (``Configuration/descriptorsNeeded``, against the soft `RLIMIT_NOFILE`),
    /// every request fails with `NetworkErrorCode.transportUnavailable` and a reason that says
    /// so, rather than the program stopping, or requests failing in the middle of a load once
    /// the descriptors run out.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        if let shortfall = configuration.descriptorShortfall(limit: Self.descriptorLimit()) {
            loop = nil
            unavailableReason = shortfall
            return
        }
        loop = CurlMultiLoop(
            maxConnections: max(1, configuration.maxCachedConnections),
            maxConnectionsPerHost: max(0, configuration.maxConnectionsPerHost),
            maxQueuedRequests: max(0, configuration.maxQueuedRequests),
            certificateAuthorityFile: configuration.certificateAuthorityFile
        )
        unavailableReason = loop == nil ? "libcurl could not be initialised." : nil
    }

    /// The soft limit on the process's open file descriptors (`RLIMIT_NOFILE`), `nil` if unlimited
    /// or unknown.
    static func descriptorLimit() -> Int? {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max
        else { return nil }
        return Int(clamping: limit.rlim_cur)
    }

    deinit {
        loop?.shutdown()
    }

    /// An executor that runs tasks on the transport's own thread, for the lowest latency.
    ///
    /// Tasks that prefer it (`withTaskExecutorPreference(transport.executor) { … }`) run between
    /// turns of the transport's loop: their requests start without waking another thread, and
    /// their results resume them without a hop back. Keep such code short and non-blocking, since
    /// it holds up every transfer while it runs. `nil` when libcurl could not be initialised.
    public var executor: (any TaskExecutor)? { loop }

    /// Requests sent and not answered yet, for tests and the soak test: once every call has ended
    /// (or after ``shutdown()``), any left is a transfer that nobody waits for.
    package var activeTransfers: Int {
        loop?.unfinishedTransferCount ?? 0
    }

    /// Ends every request in flight with `NetworkErrorCode.cancelled`, closes the connections the
    /// transport keeps for later requests, and stops the thread.
    /// Requests sent afterwards fail with `NetworkErrorCode.transportUnavailable`.
    public func shutdown() {
        loop?.shutdown()
    }

    /// Has libcurl keep the receive buffers of finished transfers for the next ones, in the
    /// whole process. Off unless the app calls this, before any transport exists.
    ///
    /// libcurl 7.88 allocates a 16 KiB receive buffer for every transfer and frees it when the
    /// transfer ends. With many transfers in flight, glibc often gives the freed memory back to
    /// the system and the next transfers fault it in again; keeping up to 64 buffers (1 MiB)
    /// spares those page faults and system calls. docs/performance.md gives the measured effect.
    /// libcurl 8 keeps one receive buffer per multi handle instead, and the cache stays empty.
    ///
    /// It works by replacing libcurl's memory functions (`curl_global_init_mem`), which libcurl
    /// allows once per process and which then serve every user of libcurl in the process, the
    /// app's own included: that is why a library must not do it unasked.
    ///
    /// ```swift
    /// @main struct App {
    ///     static func main() async throws {
    ///         CurlTransport.reuseReceiveBuffers()   // first, before any CurlTransport exists
    ///         let transport = CurlTransport()
    ///         // …
    ///     }
    /// }
    /// ```
    ///
    /// - Returns: Whether libcurl uses the buffer cache: `false` when a transport was created
    ///   before, which initialised libcurl with the C library's functions. (When other code in
    ///   the process initialised libcurl first, libcurl keeps that code's functions, which this
    ///   cannot see: it returns `true` and nothing is cached.)
    @discardableResult
    public static func reuseReceiveBuffers() -> Bool {
        CurlGlobal.reuseReceiveBuffers()
    }

    /// The configuration's default options, used by `send(_:body:)`.
    public var defaultOptions: TransportOptions { configuration.defaultOptions }

    public func send(
        _ request: HTTPRequest,
        body: Data?,
        options: TransportOptions
    ) async throws(NetworkError) -> TransportResponse {
        guard let max = RedirectFollower.limit(for: request, options: options) else {
            return try await perform(request, body: body, options: options)
        }
        return try await sendFollowingRedirects(request, body: body, options: options, max: max)
    }

    /// Sends a request and follows its redirects, one transfer per hop, within the request's one
    /// total timeout: libcurl follows none itself, so that each hop is checked against the one
    /// before (``RedirectFollower``).
    private func sendFollowingRedirects(
        _ request: HTTPRequest,
        body: Data?,
        options: TransportOptions,
        max: Int
    ) async throws(NetworkError) -> TransportResponse {
        // Most requests are not redirected: the first hop has the whole timeout, and only the
        // following ones read the clock again.
        let start = ContinuousClock.now
        var hop = options
        var current = (request: request, body: body)
        var followed = 0
        var newConnections = 0
        while true {
            if followed > 0 {
                let left = options.timeout - start.duration(to: .now)
                guard left > .zero else {
                    throw NetworkError(.timeout, reason: "The request took longer than \(options.timeout).")
                }
                hop.timeout = left
            }
            var response: TransportResponse
            do {
                response = try await perform(current.request, body: current.body, options: hop)
            } catch {
                // A hop has what is left of the request's time; the limit the caller set is the
                // one to name.
                guard error.code == .timeout else { throw error }
                throw NetworkError(
                    .timeout, reason: "The request took longer than \(options.timeout).", context: error.context)
            }
            newConnections += response.info.newConnections
            guard
                let next = try RedirectFollower.next(
                    after: response, to: current.request, body: current.body, followed: followed, max: max)
            else {
                response.info.redirectCount = followed
                response.info.newConnections = newConnections
                return response
            }
            current = next
            followed += 1
        }
    }

    /// Sends one request as one libcurl transfer.
    private func perform(
        _ request: HTTPRequest,
        body: Data?,
        options: TransportOptions
    ) async throws(NetworkError) -> TransportResponse {
        guard let loop else {
            throw NetworkError(.transportUnavailable, reason: unavailableReason ?? "libcurl could not be initialised.")
        }
        guard let easy = loop.acquireHandle() else {
            throw NetworkError(.transportUnavailable, reason: "libcurl could not make a handle.")
        }
        let transfer = try CurlTransfer(request: request, body: body, options: options, easy: easy)
        transfer.resumesOnLoop = withUnsafeCurrentTask { $0?.unownedTaskExecutor == loop.asUnownedTaskExecutor() }
        let outcome = await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in
                transfer.continuation = continuation
                if !loop.submit(.start(transfer)) {
                    transfer.continuation = nil
                    continuation.resume(returning: .unavailable("The transport was shut down."))
                }
            }
        } onCancel: {
            transfer.markCancelled()
            loop.submit(.cancel(transfer))
        }
        return try transfer.result(of: outcome).get()
    }
}
