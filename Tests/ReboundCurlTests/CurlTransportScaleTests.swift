import Foundation
import Glibc
import HTTPTypes
import Rebound
import ReboundCurl
import ReboundMockBackend
import Testing

/// The transport with thousands of connections at once, and the descriptor limit that allows them.
///
/// `make test` runs this suite alone in its process, as it does the fault matrix: 5,000
/// connections take both cores for seconds, and beside other tests (more so under a sanitizer)
/// the loopback server falls behind accepting them and the kernel resets some.
@Suite("CurlTransport at scale")
struct CurlTransportScaleTests {
    /// Calls in flight, each on its own connection, in the large test.
    static let calls = 5_000
    /// Descriptors the large test needs: a connection's two ends (the transport's and the loopback
    /// server's, both in this process) per call, and room for the rest.
    static let descriptorsForCalls = 2 * calls + 1_000

    /// The soft and hard limits on open descriptors (`RLIMIT_NOFILE`).
    static func descriptorLimits() -> rlimit {
        var limits = rlimit()
        _ = getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limits)
        return limits
    }

    /// Whether this process may raise its own descriptor limit far enough for the large test.
    static var mayOpenEnoughDescriptors: Bool {
        descriptorLimits().rlim_max >= rlim_t(descriptorsForCalls)
    }

    @Test func aTransportConfiguredForMoreConnectionsThanTheProcessMayOpenRefusesToStart() async throws {
        let soft = Self.descriptorLimits().rlim_cur
        try #require(soft < rlim_t(Int.max / 2), "no descriptor limit to exceed")
        var configuration = CurlTransport.Configuration()
        configuration.maxConnectionsPerHost = Int(soft)
        #expect(configuration.descriptorsNeeded > Int(soft))
        let server = try await LoopbackServer.start(routes: LoopbackRoute.standardTestRoutes)
        let transport = CurlTransport(configuration: configuration)
        let error = await #expect(throws: NetworkError.self) {
            try await transport.send(server.request("/hello"))
        }
        #expect(error?.code == .transportUnavailable)
        #expect(error?.reason?.contains("RLIMIT_NOFILE") == true)
        #expect(error?.reason?.contains("\(soft)") == true)
        #expect(transport.executor == nil)
        #expect(server.requestsServed == 0)
        try await server.shutdown()
    }

    @Test(
        .enabled(
            if: mayOpenEnoughDescriptors,
            "needs a hard RLIMIT_NOFILE of at least \(descriptorsForCalls) to raise the soft limit to (ulimit -Hn)")
    )
    func fiveThousandConcurrentCallsEachOnItsOwnConnectionAllSucceed() async throws {
        var limits = Self.descriptorLimits()
        if limits.rlim_cur < rlim_t(Self.descriptorsForCalls) {
            limits.rlim_cur = rlim_t(Self.descriptorsForCalls)
            try #require(setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limits) == 0)
        }
        let route = LoopbackRoute("GET", "/numbered") { request in
            .respond(status: 200, body: Array("number \(request.query["i"] ?? "")".utf8))
        }
        var configuration = CurlTransport.Configuration()
        configuration.maxConnectionsPerHost = Self.calls
        let server = try await LoopbackServer.start(limits: .init(maxConnections: Self.calls + 100), routes: [route])
        let transport = CurlTransport(configuration: configuration)
        defer { transport.shutdown() }
        let bodies = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for index in 0..<Self.calls {
                group.addTask {
                    let response = try await transport.send(server.request("/numbered?i=\(index)"))
                    return (index, String(decoding: response.body, as: UTF8.self))
                }
            }
            return try await group.reduce(into: [Int: String]()) { $0[$1.0] = $1.1 }
        }
        #expect(bodies.count == Self.calls)
        let wrong = bodies.filter { $0.value != "number \($0.key)" }
        #expect(wrong.isEmpty, "wrong bodies: \(wrong.prefix(5))")
        // The calls did not wait for each other's connections.
        #expect(server.connectionsAccepted > Self.calls / 2)
        try await server.shutdown()
    }
}
