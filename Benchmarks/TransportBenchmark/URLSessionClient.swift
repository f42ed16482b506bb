import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// URLSession (FoundationNetworking on Linux), configured as a fair opponent: no cache, no cookies,
/// as many connections per host as requests in flight.
struct URLSessionClient: BenchmarkClient {
    private let session: URLSession
    private let request: URLRequest

    init(url: URL, concurrency: Int) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpMaximumConnectionsPerHost = concurrency
        session = URLSession(configuration: configuration)
        request = URLRequest(url: url)
    }

    func fetch() async throws -> FetchResult {
        let (body, response) = try await session.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        return FetchResult(status: status, bodyBytes: body.count)
    }

    func shutdown() async throws {
        session.invalidateAndCancel()
    }
}
