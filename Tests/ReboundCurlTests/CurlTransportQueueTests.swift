import Foundation
import HTTPTypes
import Rebound
import ReboundCurl
import ReboundMockBackend
import Testing

/// Calls beyond the per-host connection limit: they wait in a bounded queue and start first come,
/// first served.
@Suite("CurlTransport's queue of calls waiting for a connection")
struct CurlTransportQueueTests {
    /// The calls' indices in the order they reached the server, with the server's number of the
    /// connection each came over.
    private final class Arrivals: Sendable {
        let calls = Locked<[(index: Int, connection: Int)]>([])
    }

    /// A route that notes the order in which calls reach the server (`/ordered?i=N`), then answers
    /// `N` after a pause, so that calls pile up behind the connections.
    private static func orderedRoute(_ arrivals: Arrivals, pause: Duration) -> LoopbackRoute {
        LoopbackRoute("GET", "/ordered") { request in
            let index = Int(request.query["i"] ?? "") ?? -1
            arrivals.calls.withLock { $0.append((index, request.connectionNumber)) }
            try? await Task.sleep(for: pause)
            return .respond(status: 200, body: Array("\(index)".utf8))
        }
    }

    private static func configuration(connections: Int, queue: Int = 10_000) -> CurlTransport.Configuration {
        var configuration = CurlTransport.Configuration()
        configuration.maxConnectionsPerHost = connections
        configuration.maxQueuedRequests = queue
        return configuration
    }

    @Test func callsBeyondTheConnectionLimitStartInTheOrderTheyArrived() async throws {
        let arrivals = Arrivals()
        let route = Self.orderedRoute(arrivals, pause: Duration.milliseconds(2))
        try await withLoopback(routes: [route], configuration: Self.configuration(connections: 2)) {
            server, transport in
            let executor = try #require(transport.executor)
            // The last calls wait for 199 others: under a sanitizer, on a busy machine, longer
            // than the default connect timeout, which the wait counts against.
            let patient = TransportOptions(connectTimeout: .seconds(120), timeout: .seconds(120))
            // Tasks on the transport's executor run one after the other on its thread, each until
            // its call is handed to the loop, so the calls arrive in the order they are added.
            // The second half arrives while the first is still queued: new calls must not pass
            // the ones already waiting.
            let bodies = try await withTaskExecutorPreference(executor) {
                try await withThrowingTaskGroup(of: (Int, String).self) { group in
                    for index in 0..<200 {
                        if index == 100 { try await server.waitForRequests(to: "/ordered", count: 10) }
                        group.addTask {
                            let response = try await transport.send(
                                server.request("/ordered?i=\(index)"), body: nil, options: patient)
                            return (index, String(decoding: response.body, as: UTF8.self))
                        }
                    }
                    return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
                }
            }
            #expect(bodies.count == 200)
            #expect(bodies.allSatisfy { String($0.key) == $0.value })
            let calls = arrivals.calls.withLock { $0 }
            #expect(calls.count == 200)
            #expect(server.connectionsAccepted == 2)
            // Each connection carries one call at a time, so the order of the calls on one
            // connection is the order they started in, whatever the server's threads do: first
            // come, first served makes it the order they arrived in.
            for connection in Set(calls.map(\.connection)) {
                let indices = calls.filter { $0.connection == connection }.map(\.index)
                #expect(indices == indices.sorted(), "connection \(connection) served calls out of order: \(indices)")
            }
            // Across the two connections, the server notes two calls that started together in
            // either order, and a little later when its threads are busy; a call that waited
            // its turn is never far from its place (libcurl's own queue put some 100 places off).
            let displaced = calls.map(\.index).enumerated().filter { abs($0.offset - $0.element) > 8 }
            #expect(displaced.isEmpty, "calls out of their arrival order: \(displaced.prefix(10))")
        }
    }

    @Test func aCallThatFindsTheQueueFullFailsAtOnce() async throws {
        try await withLoopback(configuration: Self.configuration(connections: 1, queue: 2)) { server, transport in
            let executor = try #require(transport.executor)
            let failure = await withTaskExecutorPreference(executor) {
                await withTaskGroup(of: NetworkError?.self) { group in
                    // One call holds the connection, two wait, and the fourth finds no room.
                    for _ in 0..<4 {
                        group.addTask {
                            do throws(NetworkError) {
                                _ = try await transport.send(server.request("/stall"))
                                return nil
                            } catch {
                                return error
                            }
                        }
                    }
                    let first = await group.next() ?? nil
                    group.cancelAll()
                    return first
                }
            }
            let error = try #require(failure)
            #expect(error.code == .queueFull)
            #expect(error.reason?.contains("2") == true)
        }
    }

    @Test func aCancelledQueuedCallLeavesTheQueueAndFreesItsPlace() async throws {
        try await withLoopback(configuration: Self.configuration(connections: 1, queue: 1)) { server, transport in
            let holder = Task { try await transport.send(server.request("/slow?ms=600")) }
            try await server.waitForRequests(to: "/slow")
            let queued = Task { try await transport.send(server.request("/hello")) }
            // Cancelled while it waits (it cannot have started: the one connection is busy).
            queued.cancel()
            let cancellation = await #expect(throws: NetworkError.self) { try await queued.value }
            #expect(cancellation?.code == .cancelled)
            // Its place is free again for the next call, which runs once the connection is.
            let next = try await transport.send(server.request("/hello"))
            #expect(next.status == .ok)
            #expect(try await holder.value.status == .ok)
            #expect(server.requests(to: "/hello") == 1)
        }
    }

    @Test func shuttingDownFailsTheQueuedCallsAsNeverStarted() async throws {
        try await withLoopback(configuration: Self.configuration(connections: 1)) { server, transport in
            let holder = Task { try await transport.send(server.request("/stall")) }
            try await server.waitForRequests(to: "/stall")
            let queued = Task { try await transport.send(server.request("/hello")) }
            // Time for the loop to take it into its queue (the one connection is busy); were it
            // still on its way there, shutting down would refuse it the same way.
            try await Task.sleep(for: .milliseconds(100))
            transport.shutdown()
            let error = await #expect(throws: NetworkError.self) { try await queued.value }
            #expect(error?.code == .transportUnavailable)
            let running = await #expect(throws: NetworkError.self) { try await holder.value }
            #expect(running?.code == .cancelled)
            #expect(server.requests(to: "/hello") == 0)
        }
    }

    @Test func theWaitForAConnectionCountsAgainstTheConnectTimeout() async throws {
        try await withLoopback(configuration: Self.configuration(connections: 1)) { server, transport in
            let holder = Task { try await transport.send(server.request("/stall")) }
            try await server.waitForRequests(to: "/stall")
            var quick = TransportOptions()
            quick.connectTimeout = .milliseconds(200)
            let error = await #expect(throws: NetworkError.self) {
                try await transport.send(server.request("/hello"), body: nil, options: quick)
            }
            #expect(error?.code == .connectTimeout)
            #expect(server.requests(to: "/hello") == 0)
            holder.cancel()
            _ = try? await holder.value
        }
    }
}
