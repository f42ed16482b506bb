import Foundation
import ReboundMockBackend
import TestSupport
import Testing

/// The loopback server against callers and clients that ask too much of it: out-of-range settings,
/// oversized or endless requests, replies with impossible statuses.
@Suite struct LoopbackServerLimitsTests {
    @Test(arguments: [-1, 65536, 70000])
    func aPortOutsideTheRangeOfTCPPortsIsRefused(port: Int) async throws {
        await expectTheServerRefuses(port: port)
    }

    @Test(arguments: [
        LoopbackServer.Limits(maxRequestBodySize: -1),
        LoopbackServer.Limits(maxRequestBodySize: LoopbackServer.Limits.maximumRequestBodySize + 1),
        LoopbackServer.Limits(maxRequestBodySize: 6_000_000_000),
        LoopbackServer.Limits(maxRequestBodySize: Int.max),
        LoopbackServer.Limits(idleTimeout: .zero),
        LoopbackServer.Limits(idleTimeout: .nanoseconds(1) / 10),
        LoopbackServer.Limits(idleTimeout: .seconds(1e-10)),
        LoopbackServer.Limits(requestBodyTimeout: .nanoseconds(1) / 2),
    ])
    func limitsTheServerCannotHonourAreRefused(limits: LoopbackServer.Limits) async throws {
        await expectTheServerRefuses(limits: limits)
    }

    @Test func theLargestBodySizeAndTheShortestTimeoutsAreAccepted() async throws {
        let limits = LoopbackServer.Limits(
            maxRequestBodySize: LoopbackServer.Limits.maximumRequestBodySize,
            idleTimeout: LoopbackServer.Limits.minimumTimeout,
            requestBodyTimeout: LoopbackServer.Limits.minimumTimeout
        )
        let server = try await LoopbackServer.start(limits: limits, routes: [])
        try await server.shutdown()
    }
}

/// Expects the loopback server to refuse starting with `port` and `limits`.
func expectTheServerRefuses(
    port: Int = 0, limits: LoopbackServer.Limits = .default, sourceLocation: SourceLocation = #_sourceLocation
) async {
    await #expect(throws: LoopbackServer.ConfigurationError.self, sourceLocation: sourceLocation) {
        let server = try await LoopbackServer.start(port: port, limits: limits, routes: [])
        try await server.shutdown()
    }
}

extension LoopbackServerLimitsTests {
    @Test(arguments: [-3, 0, 99, 1000, Int.max])
    func aRouteReplyingWithAStatusThatIsNotThreeDigitsGets500(status: Int) async throws {
        let server = try await LoopbackServer.start(routes: [
            LoopbackRoute("/odd") { _ in .respond(status: status) },
            LoopbackRoute("/odd-later") { _ in
                .delayed(.milliseconds(1), .stream(status: status, chunks: [[65]], pause: .zero))
            },
        ])

        for path in ["/odd", "/odd-later"] {
            let answer = try await exchange(path, port: server.port)
            #expect(answer.hasPrefix("HTTP/1.1 500 "))
            #expect(answer.contains("Invalid status \(status)"))
        }
        // The server lives on.
        #expect(try await exchange("/odd", port: server.port).hasPrefix("HTTP/1.1 500 "))
        try await server.shutdown()
    }

    @Test(arguments: [("X-Note", "one\r\nX-Injected: 1"), ("X-Note", "nul\u{0}"), ("Bad Name", "ok"), ("", "ok")])
    func aRouteReplyingWithAHeaderNoResponseMayCarryGets500SayingWhich(name: String, value: String) async throws {
        let server = try await LoopbackServer.start(routes: [
            LoopbackRoute("/odd") { _ in .respond(status: 200, headers: [(name, value)], body: Array("hi".utf8)) },
            LoopbackRoute("/odd-later") { _ in
                .delayed(
                    .milliseconds(1),
                    .closeMidBody(status: 200, headers: [(name, value)], declaredLength: 9, partialBody: [65]))
            },
        ])

        for path in ["/odd", "/odd-later"] {
            let answer = try await exchange(path, port: server.port)
            #expect(answer.hasPrefix("HTTP/1.1 500 "))
            #expect(answer.contains("Invalid header field \(name.debugDescription)"))
            #expect(!answer.contains("X-Injected"))
        }
        try await server.shutdown()
    }
}

extension LoopbackServerLimitsTests {
    @Test func aDeclaredBodyLargerThanTheLimitGets413WithoutContinueAndTheConnectionCloses() async throws {
        let server = try await LoopbackServer.start(
            limits: .init(maxRequestBodySize: 1000),
            routes: [LoopbackRoute("/upload") { _ in .text("stored") }]
        )
        let connection = try RawConnection(port: server.port)

        try connection.send(
            "POST /upload HTTP/1.1\r\nHost: loopback\r\nContent-Length: 1000000000000000000\r\n"
                + "Expect: 100-continue\r\n\r\n"
        )

        let answer = try await onOwnThread { try connection.readUntilClosed() }
        #expect(answer.hasPrefix("HTTP/1.1 413 "))
        #expect(!answer.contains("100 Continue"))
        #expect(server.requestsServed == 0)
        try await server.shutdown()
    }

    @Test func aBodyAtTheLimitIsAccepted() async throws {
        let server = try await LoopbackServer.start(
            limits: .init(maxRequestBodySize: 1000),
            routes: [LoopbackRoute("/upload") { request in .text("stored \(request.body.count)") }]
        )
        let connection = try RawConnection(port: server.port)

        try connection.send(
            "POST /upload HTTP/1.1\r\nHost: loopback\r\nConnection: close\r\nContent-Length: 1000\r\n\r\n"
                + String(repeating: "x", count: 1000)
        )

        let answer = try await onOwnThread { try connection.readUntilClosed() }
        #expect(answer.hasPrefix("HTTP/1.1 200 "))
        #expect(answer.hasSuffix("stored 1000"))
        try await server.shutdown()
    }

    @Test func aChunkedBodyGrowingPastTheLimitGets413AfterTheResponsesBeforeIt() async throws {
        let server = try await LoopbackServer.start(
            limits: .init(maxRequestBodySize: 1000),
            routes: [LoopbackRoute("/upload") { request in .text("stored \(request.body.count)") }]
        )
        let connection = try RawConnection(port: server.port)
        let chunk = "258\r\n" + String(repeating: "x", count: 600) + "\r\n"  // 0x258 = 600 bytes

        // A first request within the limit, pipelined before one that crosses it.
        try connection.send("POST /upload HTTP/1.1\r\nHost: loopback\r\nContent-Length: 3\r\n\r\nabc")
        try connection.send("POST /upload HTTP/1.1\r\nHost: loopback\r\nTransfer-Encoding: chunked\r\n\r\n")
        try connection.send(chunk + chunk)

        let answer = try await onOwnThread { try connection.readUntilClosed() }
        #expect(answer.hasPrefix("HTTP/1.1 200 "))
        #expect(answer.contains("stored 3HTTP/1.1 413 "))
        #expect(server.requestsServed == 1)
        try await server.shutdown()
    }
}

extension LoopbackServerLimitsTests {
    @Test func whileAReplyStallsTheServerStopsReadingPipelinedRequestsOnceItsQueueIsFull() async throws {
        let (release, releaseNow) = AsyncStream<Void>.makeStream()
        let server = try await LoopbackServer.start(
            limits: .init(maxQueuedRequests: 2),
            routes: [
                LoopbackRoute("/wait") { _ in
                    for await _ in release {}
                    return .text("released")
                },
                LoopbackRoute("/upload") { _ in .text("stored") },
            ]
        )
        let connection = try RawConnection(port: server.port)
        try connection.send("GET /wait HTTP/1.1\r\nHost: loopback\r\n\r\n")
        // Far more than the socket buffers between client and server hold (the kernel grows them to tens of MiB).
        let body = String(repeating: "x", count: 1024 * 1024)
        let upload = "POST /upload HTTP/1.1\r\nHost: loopback\r\nContent-Length: \(body.count)\r\n\r\n" + body
        let uploads = 80
        let pipeline = Array(String(repeating: upload, count: uploads).utf8)

        let sent = await onOwnThread { connection.sendUntilBlocked(pipeline, patience: .seconds(2)) }

        #expect(sent < pipeline.count)
        // The stalled request, the full queue, and at most one more whose start came in the last read.
        #expect(server.requestsServed <= 1 + 2 + 1)

        // Once the stalled reply completes, the queue drains and the server reads the rest.
        releaseNow.finish()
        let answer = try await onOwnThread {
            try connection.send(Array(pipeline[sent...]))
            try connection.send("GET /last HTTP/1.1\r\nHost: loopback\r\nConnection: close\r\n\r\n")
            return try connection.readUntilClosed()
        }
        #expect(answer.components(separatedBy: "HTTP/1.1 200 ").count - 1 == 1 + uploads)
        #expect(answer.hasSuffix("No route for GET /last\n"))
        try await server.shutdown()
    }
}

extension LoopbackServerLimitsTests {
    @Test func aConnectionThatSendsNoRequestHeadIsClosedAfterTheIdleTimeout() async throws {
        let server = try await LoopbackServer.start(
            limits: .init(idleTimeout: .milliseconds(100)),
            routes: [LoopbackRoute("/hello") { _ in .text("hello") }]
        )
        let silent = try RawConnection(port: server.port)
        let halfAHead = try RawConnection(port: server.port)
        try halfAHead.send("GET /hello HTTP/1.1\r\nHost: loop")

        // The server closes both, long before the client's receive timeout would end the reads.
        #expect(try await onOwnThread { try silent.readUntilClosed() } == "")
        #expect(try await onOwnThread { try halfAHead.readUntilClosed() } == "")
        try await server.shutdown()
    }

    @Test func aConnectionIdleAfterAResponseIsClosedAfterTheIdleTimeout() async throws {
        // Long enough for the request head to arrive in time on a loaded machine.
        let server = try await LoopbackServer.start(
            limits: .init(idleTimeout: .seconds(1)),
            routes: [LoopbackRoute("/hello") { _ in .text("hello") }]
        )
        let connection = try RawConnection(port: server.port)
        try connection.send("GET /hello HTTP/1.1\r\nHost: loopback\r\n\r\n")

        let answer = try await onOwnThread { try connection.readUntilClosed() }

        #expect(answer.hasPrefix("HTTP/1.1 200 "))
        #expect(answer.hasSuffix("hello"))
        try await server.shutdown()
    }

    @Test func aReplyThatTakesLongerThanTheIdleTimeoutIsNotCutShort() async throws {
        let server = try await LoopbackServer.start(
            // Long enough for the request head to arrive in time on a loaded machine; the reply takes longer.
            limits: .init(idleTimeout: .seconds(1)),
            routes: [LoopbackRoute("/slow") { _ in .delayed(.seconds(2), .text("done")) }]
        )
        let connection = try RawConnection(port: server.port)
        try connection.send("GET /slow HTTP/1.1\r\nHost: loopback\r\nConnection: close\r\n\r\n")

        let answer = try await onOwnThread { try connection.readUntilClosed() }

        #expect(answer.hasPrefix("HTTP/1.1 200 "))
        #expect(answer.hasSuffix("done"))
        try await server.shutdown()
    }

    @Test func connectionsBeyondTheLimitAreClosedAtOnce() async throws {
        let server = try await LoopbackServer.start(
            limits: .init(maxConnections: 2),
            routes: [LoopbackRoute("/hello") { _ in .respond(status: 204) }]
        )
        // Two connections the server has certainly accepted: each got a response and stays open.
        let open = try (0..<2).map { _ in try RawConnection(port: server.port) }
        for connection in open {
            try connection.send("GET /hello HTTP/1.1\r\nHost: loopback\r\n\r\n")
            #expect(try await onOwnThread { try connection.read(until: "\r\n\r\n") }.hasPrefix("HTTP/1.1 204 "))
        }

        // The kernel completes the handshake; the server then closes the connection without reading.
        let third = try RawConnection(port: server.port)

        #expect(try await onOwnThread { try third.readUntilClosed() } == "")
        #expect(server.connectionsAccepted == 2)
        try await server.shutdown()
    }
}

extension LoopbackServerLimitsTests {
    @Test func aBodyTricklingInLongerThanTheBodyTimeoutGets408AndTheConnectionCloses() async throws {
        let server = try await LoopbackServer.start(
            // The idle timeout is as short, to show that it does not cover a body.
            limits: .init(idleTimeout: .seconds(1), requestBodyTimeout: .seconds(1)),
            routes: [LoopbackRoute("/upload") { request in .text("stored \(request.body.count)") }]
        )
        let connection = try RawConnection(port: server.port)
        try connection.send("POST /upload HTTP/1.1\r\nHost: loopback\r\nContent-Length: 1000\r\n\r\n")

        // A byte every 200 ms: never a whole second without one. Without a bound on the body, the
        // server would wait for all 1000 bytes, far longer than the trickle lasts (at most 150 bytes).
        let answer = try await onOwnThread {
            try connection.trickle(UInt8(ascii: "x"), every: .milliseconds(200), maximumBytes: 150)
        }

        #expect(answer.hasPrefix("HTTP/1.1 408 "))
        #expect(answer.contains("Connection: close\r\n"))
        #expect(server.requestsServed == 0)
        try await server.shutdown()
    }

    @Test func aBodyThatWaitsFor100ContinueBehindASlowReplyIsNotTimedOut() async throws {
        let server = try await LoopbackServer.start(
            limits: .init(requestBodyTimeout: .seconds(1)),
            routes: [
                // Longer than the body timeout: the client may send its body only after this reply.
                LoopbackRoute("/slow") { _ in .delayed(.seconds(3), .text("slow done")) },
                LoopbackRoute("/upload") { request in .text("stored \(request.body.count)") },
            ]
        )
        let connection = try RawConnection(port: server.port)
        try connection.send("GET /slow HTTP/1.1\r\nHost: loopback\r\n\r\n")
        try connection.send(
            "POST /upload HTTP/1.1\r\nHost: loopback\r\nConnection: close\r\nContent-Length: 3\r\n"
                + "Expect: 100-continue\r\n\r\n"
        )

        let answer = try await onOwnThread {
            let first = try connection.read(until: "HTTP/1.1 100 Continue\r\n\r\n")
            try connection.send("abc")
            return try first + connection.readUntilClosed()
        }

        #expect(answer.hasPrefix("HTTP/1.1 200 "))
        #expect(answer.contains("slow done"))
        #expect(answer.hasSuffix("stored 3"))
        #expect(!answer.contains("408"))
        try await server.shutdown()
    }
}

extension LoopbackServerLimitsTests {
    @Test func pathsBeyondTheTrackedOnesAreCountedTogether() async throws {
        let server = try await LoopbackServer.start(
            limits: .init(maxTrackedPaths: 3),
            routes: [LoopbackRoute(pathPrefix: "/") { _ in .respond(status: 204) }]
        )

        for path in ["/a", "/b", "/a", "/c", "/d", "/e", "/d", "/a?x=1"] {
            #expect(try await exchange(path, port: server.port).hasPrefix("HTTP/1.1 204 "))
        }

        #expect(server.requests(to: "/a") == 3)
        #expect(server.requests(to: "/b") == 1)
        #expect(server.requests(to: "/c") == 1)
        #expect(server.requests(to: "/d") == 0)
        #expect(server.requestsToUntrackedPaths == 3)
        #expect(server.requestsServed == 8)
        try await server.shutdown()
    }

    @Test func pathsLongerThanTheTrackedLengthAreCountedTogether() async throws {
        let server = try await LoopbackServer.start(
            routes: [LoopbackRoute(pathPrefix: "/") { _ in .respond(status: 204) }]
        )
        let longest = "/" + String(repeating: "a", count: LoopbackServer.Limits.maximumTrackedPathLength - 1)
        let tooLong = longest + "b"

        for path in [longest, tooLong, tooLong, "/short"] {
            #expect(try await exchange(path, port: server.port).hasPrefix("HTTP/1.1 204 "))
        }

        #expect(server.requests(to: longest) == 1)
        #expect(server.requests(to: tooLong) == 0)
        #expect(server.requests(to: "/short") == 1)
        #expect(server.requestsToUntrackedPaths == 2)
        #expect(server.requestsServed == 4)
        try await server.shutdown()
    }
}
