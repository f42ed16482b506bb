/// An HTTP client under benchmark: it fetches one fixed URL, again and again.
///
/// The harness owns the loop, the clock and the verdict; a client only performs one GET and says
/// what came back. It is `Sendable` because the concurrent workloads call it from many tasks at once.
protocol BenchmarkClient: Sendable {
    /// Performs one GET of the benchmark URL and waits for the whole body.
    ///
    /// - Returns: The status code and the length of the body received.
    /// - Throws: Whatever the client throws when no complete response arrived; the harness counts it
    ///   as a failure.
    func fetch() async throws -> FetchResult

    /// Releases the client's connections and threads after the last request.
    func shutdown() async throws
}

extension BenchmarkClient {
    func shutdown() async throws {}
}

/// What one GET returned, reduced to what the harness checks.
struct FetchResult: Sendable {
    /// The HTTP status code.
    var status: Int
    /// How many body bytes arrived.
    var bodyBytes: Int
}
