import ReboundMockBackend
import Testing

/// The loopback server against callers and clients that ask too much of it: out-of-range settings,
/// oversized or endless requests, replies with impossible statuses.
@Suite struct LoopbackServerLimitsTests {
    @Test(arguments: [-1, 65536, 70000])
    func aPortOutsideTheRangeOfTCPPortsIsRefused(port: Int) async throws {
        await #expect(throws: LoopbackServer.ConfigurationError.self) {
            let server = try await LoopbackServer.start(port: port, routes: [])
            try await server.shutdown()
        }
        await #expect(throws: LoopbackServer.ConfigurationError.self) {
            let backend = try await MockBackend.start(port: port)
            try await backend.shutdown()
        }
    }
}

/// Sends one `GET` that asks the server to close after answering, and returns the whole answer.
func exchange(_ path: String, port: Int) async throws -> String {
    try await blocking {
        let connection = try RawConnection(port: port)
        try connection.send("GET \(path) HTTP/1.1\r\nHost: loopback\r\nConnection: close\r\n\r\n")
        return try connection.readUntilClosed()
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

    @Test func aFailureRuleWithANegativeStatusGets500InsteadOfCrashingTheServer() async throws {
        let backend = try await MockBackend.start()
        backend.script(MockFailureRule("**", failure: .temporary(status: -3), trigger: .always))

        let answer = try await exchange("/v1/tasks", port: backend.port)

        #expect(answer.hasPrefix("HTTP/1.1 500 "))
        try await backend.shutdown()
    }

    @Test func aRetryAfterDateFurtherThanAnyHTTPDateIsTheLastDateOfYear9999() async throws {
        let backend = try await MockBackend.start()
        backend.script(
            MockFailureRule(
                "**", failure: .temporary(status: 503, retryAfter: .date(secondsFromNow: Int.max)), trigger: .always)
        )

        let answer = try await exchange("/v1/tasks", port: backend.port)

        #expect(answer.hasPrefix("HTTP/1.1 503 "))
        #expect(answer.contains("Retry-After: Fri, 31 Dec 9999 23:59:59 GMT\r\n"))
        try await backend.shutdown()
    }
}
