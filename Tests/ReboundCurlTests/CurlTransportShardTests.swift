import HTTPTypes
import Rebound
import ReboundMockBackend
import Testing

@testable import ReboundCurl

/// A transport configured for many connections spreads its transfers over several libcurl multi
/// handles, all driven by its one loop thread.
@Suite("CurlTransport over several multi handles")
struct CurlTransportShardTests {
    /// 600 connections: three multi handles.
    private static func manyConnections() -> CurlTransport.Configuration {
        var configuration = CurlTransport.Configuration()
        configuration.maxConnectionsPerHost = 600
        configuration.maxCachedConnections = 600
        return configuration
    }

    @Test func theDefaultsUseOneMultiHandleAndEach256ConnectionsMoreAnother() {
        let defaults = CurlTransport.Configuration()
        #expect(
            CurlMultiLoop.shardCount(
                maxConnections: defaults.maxCachedConnections, maxConnectionsPerHost: defaults.maxConnectionsPerHost)
                == 1)
        #expect(CurlMultiLoop.shardCount(maxConnections: 256, maxConnectionsPerHost: 256) == 1)
        #expect(CurlMultiLoop.shardCount(maxConnections: 64, maxConnectionsPerHost: 257) == 2)
        #expect(CurlMultiLoop.shardCount(maxConnections: 600, maxConnectionsPerHost: 600) == 3)
        #expect(CurlMultiLoop.shardCount(maxConnections: 5_000, maxConnectionsPerHost: 5_000) == 20)
        #expect(CurlMultiLoop.shardCount(maxConnections: 0, maxConnectionsPerHost: 0) == 1)
    }

    @Test func concurrentCallsSpreadOverTheMultiHandlesAllGetTheirAnswers() async throws {
        try await withLoopback(configuration: Self.manyConnections()) { server, transport in
            let bodies = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<300 {
                    group.addTask {
                        String(decoding: try await transport.send(server.request("/slow?ms=20")).body, as: UTF8.self)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(bodies.count == 300)
            #expect(bodies.allSatisfy { $0 == "slow" })
            #expect(server.connectionsAccepted <= 300)
        }
    }

    @Test func aHostsConnectionsStayWithinItsLimitAcrossTheMultiHandles() async throws {
        // Two multi handles, two connections per host. Each handle keeps its own connections and
        // applies the limit to its own: a host's calls spread over both could hold one idle
        // connection in one handle and two running in the other, three in all (the server, whose
        // connections are all kept alive, would accept a third).
        var configuration = CurlTransport.Configuration()
        configuration.maxCachedConnections = 512
        configuration.maxConnectionsPerHost = 2
        // Two more hosts, whose calls load one handle more than the other.
        let busy = try await LoopbackServer.start(routes: LoopbackRoute.standardTestRoutes)
        let brief = try await LoopbackServer.start(routes: LoopbackRoute.standardTestRoutes)
        defer {
            Task {
                try? await busy.shutdown()
                try? await brief.shutdown()
            }
        }
        try await withLoopback(configuration: configuration) { server, transport in
            for round in 0..<3 {
                // Two at once, then other calls that keep one handle busier than the other in
                // every way round, then two at once again.
                async let first = transport.send(server.request("/slow?ms=50"))
                async let second = transport.send(server.request("/slow?ms=50"))
                _ = try await (first, second)
                let stalled = Task { try await transport.send(busy.request("/stall")) }
                try await busy.waitForRequests(to: "/stall", count: round * 2 + 1)
                let short = Task { try await transport.send(brief.request("/slow?ms=200")) }
                try await brief.waitForRequests(to: "/slow", count: round + 1)
                let stalledToo = Task { try await transport.send(busy.request("/stall")) }
                try await busy.waitForRequests(to: "/stall", count: round * 2 + 2)
                _ = try await short.value
                async let third = transport.send(server.request("/slow?ms=50"))
                async let fourth = transport.send(server.request("/slow?ms=50"))
                _ = try await (third, fourth)
                stalled.cancel()
                stalledToo.cancel()
                _ = await (stalled.result, stalledToo.result)
            }
            #expect(server.connectionsAccepted <= 2)
        }
    }

    @Test func sequentialCallsKeepToOneMultiHandleAndReuseOneConnection() async throws {
        try await withLoopback(configuration: Self.manyConnections()) { server, transport in
            for _ in 0..<20 {
                let response = try await transport.send(server.request("/hello"))
                #expect(response.status == .ok)
            }
            #expect(server.connectionsAccepted == 1)
        }
    }

    @Test func everyMultiHandlesTimerEndsItsTransfersOnTime() async throws {
        try await withLoopback(configuration: Self.manyConnections()) { server, transport in
            let options = TransportOptions(timeout: .milliseconds(300))
            // A transfer on a multi handle whose timer nobody ran would end only at the stall
            // limit, 30 s later, as `stalled`.
            let codes = await withTaskGroup(of: NetworkErrorCode?.self) { group in
                for _ in 0..<3 {
                    group.addTask {
                        do {
                            _ = try await transport.send(server.request("/stall"), body: nil, options: options)
                            return nil
                        } catch {
                            return (error as? NetworkError)?.code
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            // On a loaded machine (the thread sanitizer beside the suite) the 300 ms may pass
            // before a connection is made: then the timer ends the transfer as a connect timeout.
            #expect(codes.count == 3)
            #expect(codes.allSatisfy { $0 == .timeout || $0 == .connectTimeout }, "\(codes)")
        }
    }
}
