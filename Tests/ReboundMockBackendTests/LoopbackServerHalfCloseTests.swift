import ReboundMockBackend
import TestSupport
import Testing

/// Clients that end their side of the connection once their requests are sent.
@Suite struct LoopbackServerHalfCloseTests {
    @Test func aClientThatHalfClosesAfterItsRequestsGetsEveryResponse() async throws {
        let server = try await LoopbackServer.start(routes: [
            LoopbackRoute("/hello") { _ in .text("hello") },
            LoopbackRoute("/later") { _ in .delayed(.milliseconds(50), .text("later")) },
        ])
        let connection = try RawConnection(port: server.port)
        try connection.send(
            "GET /later HTTP/1.1\r\nHost: loopback\r\n\r\nGET /hello HTTP/1.1\r\nHost: loopback\r\n\r\n")
        connection.closeOutput()

        let answer = try await onOwnThread { try connection.readUntilClosed() }

        #expect(answer.hasPrefix("HTTP/1.1 200 "))
        #expect(answer.contains("laterHTTP/1.1 200 "))
        #expect(answer.hasSuffix("hello"))
        try await server.shutdown()
    }

    @Test func aHalfClosedConnectionWithNothingToAnswerCloses() async throws {
        let server = try await LoopbackServer.start(routes: [LoopbackRoute("/hello") { _ in .text("hello") }])
        let connection = try RawConnection(port: server.port)
        connection.closeOutput()

        #expect(try await onOwnThread { try connection.readUntilClosed() } == "")
        try await server.shutdown()
    }
}

extension LoopbackServerHalfCloseTests {
    @Test func aStalledReplyToAClientWhoseSideEndedIsCutOffAfterTheIdleTimeout() async throws {
        let server = try await LoopbackServer.start(
            limits: .init(idleTimeout: .milliseconds(100)),
            routes: [LoopbackRoute("/stall") { _ in .stall }]
        )
        let connection = try RawConnection(port: server.port)
        try connection.send("GET /stall HTTP/1.1\r\nHost: loopback\r\n\r\n")
        connection.closeOutput()

        // Closed by the server, long before the client's receive timeout would end the read.
        #expect(try await onOwnThread { try connection.readUntilClosed() } == "")
        try await server.shutdown()
    }
}
