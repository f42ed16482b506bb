// TEMPORARY stand-in while CurlTransport is being written.
import Foundation
struct ReboundClient: BenchmarkClient {
    init(url: URL) {}
    func fetch() async throws -> FetchResult { throw UsageError("CurlTransport is not built yet") }
}
