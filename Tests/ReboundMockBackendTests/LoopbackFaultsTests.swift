import ReboundMockBackend
import TestSupport
import Testing

/// The fault kit: rules that pick requests by route or by anything in them, and the faults they
/// inject, seen byte for byte on a plain TCP connection.
@Suite struct LoopbackFaultsTests {
    /// `/hello` answers `hello`; `/other` answers `other`.
    static func server() async throws -> LoopbackServer {
        try await LoopbackServer.start(routes: [
            LoopbackRoute("GET", "/hello") { _ in .text("hello") },
            LoopbackRoute("GET", "/other") { _ in .text("other") },
        ])
    }

    static let helloResponse =
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello"

    @Test func rawBytesGoOnTheWireExactlyAsGivenThenTheConnectionCloses() async throws {
        let server = try await Self.server()
        let malformed = "HTTP/1.1 2x0 OK\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\nhel"
        server.faults.inject(LoopbackFaultRule("GET", "/hello", fault: .raw(malformed)))

        #expect(try await exchange("/hello", port: server.port) == malformed)
        #expect(server.faults.injected == ["raw": 1])
        try await server.shutdown()
    }

    @Test func rawBytesThatKeepTheConnectionOpenAreFollowedByTheNextResponse() async throws {
        let server = try await Self.server()
        let interim = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
        server.faults.inject(LoopbackFaultRule("GET", "/other", fault: .raw(interim, then: .keepOpen)))
        let connection = try RawConnection(port: server.port)
        try connection.send(
            "GET /other HTTP/1.1\r\nHost: loopback\r\n\r\nGET /hello HTTP/1.1\r\nHost: loopback\r\nConnection: close\r\n\r\n"
        )

        let answer = try await onOwnThread { try connection.readUntilClosed() }

        #expect(answer == interim + Self.helloResponse)
        try await server.shutdown()
    }

    @Test func aResetBeforeAnswerFailsTheClientsReadWithConnectionReset() async throws {
        let server = try await Self.server()
        server.faults.inject(LoopbackFaultRule(pathPrefix: "/", fault: .resetBeforeAnswer))

        let error = await #expect(throws: RawConnection.SocketError.self) {
            try await exchange("/hello", port: server.port)
        }
        #expect(error?.operation == "recv (errno \(104))")  // ECONNRESET
        try await server.shutdown()
    }

    @Test func aRateLimitAcceptsItsQuotaInASecondThenAnswers429WithTheStandardFields() async throws {
        let server = try await Self.server()
        let counts = RateLimitCounts()
        server.faults.inject(LoopbackFaultRule(fault: .rateLimited(perSecond: 3, retryAfter: true, counts: counts)))

        let first = try await exchange("/hello", port: server.port)
        #expect(first.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(first.contains("\r\nRateLimit-Policy: \"default\";q=3;w=1\r\nRateLimit: \"default\";r=2;t=1\r\n"))
        #expect(first.hasSuffix("hello"))
        // Four requests in one second pass the quota, however the seconds fall.
        var refused: String?
        for _ in 0..<20 where refused == nil {
            let answer = try await exchange("/hello", port: server.port)
            if answer.hasPrefix("HTTP/1.1 429 ") { refused = answer }
        }
        let answer = try #require(refused)
        #expect(
            answer.contains(
                "\r\nRateLimit-Policy: \"default\";q=3;w=1\r\nRateLimit: \"default\";r=0;t=1\r\nRetry-After: 1\r\n"))
        #expect(counts.refused == 1 && counts.accepted >= 3)
        #expect(server.faults.injected["rate-limit"] == counts.accepted + counts.refused)
        try await server.shutdown()
    }

    @Test func anOutageAnswers503ToEverythingInItsWindow() async throws {
        let server = try await Self.server()
        let counts = OutageCounts()
        server.faults.inject(
            LoopbackFaultRule(fault: .outage(lasting: .seconds(600), retryAfter: "2", counts: counts)))

        let during = try await exchange("/hello", port: server.port)
        #expect(during.hasPrefix("HTTP/1.1 503 Service Unavailable\r\n"))
        #expect(during.contains("\r\nRetry-After: 2\r\n"))
        #expect(counts.outageAnswers == 1 && counts.served == 0)
        #expect(counts.firstServedAfterOutage == nil)
        #expect(server.faults.injected["outage"] == 1)
        try await server.shutdown()
    }

    @Test func afterAnOutageTheRouteAnswersAndTheFirstAnswerIsTimed() async throws {
        let server = try await Self.server()
        let counts = OutageCounts()
        // An outage that ended as it began, at the fault's creation.
        server.faults.inject(LoopbackFaultRule(fault: .outage(lasting: .zero, counts: counts)))

        #expect(try await exchange("/hello", port: server.port) == Self.helloResponse)
        #expect(counts.outageAnswers == 0 && counts.served == 1)
        #expect(counts.firstServedAfterOutage.map { $0 >= .zero } == true)
        try await server.shutdown()
    }

    @Test func anOutageThatHasNotBegunLetsTheRouteAnswer() async throws {
        let server = try await Self.server()
        let counts = OutageCounts()
        server.faults.inject(
            LoopbackFaultRule(fault: .outage(after: .seconds(60), lasting: .seconds(1), counts: counts)))

        #expect(try await exchange("/hello", port: server.port) == Self.helloResponse)
        #expect(counts.outageAnswers == 0 && counts.served == 1)
        #expect(counts.firstServedAfterOutage == nil)
        try await server.shutdown()
    }

    @Test func aCloseBeforeAnswerSendsNothing() async throws {
        let server = try await Self.server()
        server.faults.inject(LoopbackFaultRule(fault: .closeBeforeAnswer))

        #expect(try await exchange("/hello", port: server.port) == "")
        try await server.shutdown()
    }

    @Test func aRuleWithACountHitsThatManyRequestsToItsRouteAndNoOther() async throws {
        let server = try await Self.server()
        server.faults.inject(LoopbackFaultRule("GET", "/hello", fault: .closeBeforeAnswer, trigger: .times(2)))

        #expect(try await exchange("/other", port: server.port).hasSuffix("other"))
        #expect(try await exchange("/hello", port: server.port) == "")
        #expect(try await exchange("/hello", port: server.port) == "")
        #expect(try await exchange("/hello", port: server.port) == Self.helloResponse)
        #expect(server.faults.rules.isEmpty)
        #expect(server.faults.injected == ["close-before-answer": 2])
        try await server.shutdown()
    }

    @Test func aRuleCanPickRequestsByAnythingInThem() async throws {
        let server = try await Self.server()
        server.faults.inject(
            LoopbackFaultRule(where: { $0.header("X-Fault") == "close" }, fault: .closeBeforeAnswer))
        let request = "GET /hello HTTP/1.1\r\nHost: loopback\r\nConnection: close\r\n"

        let picked = try await onOwnThread {
            let connection = try RawConnection(port: server.port)
            try connection.send(request + "X-Fault: close\r\n\r\n")
            return try connection.readUntilClosed()
        }
        #expect(picked == "")
        #expect(try await exchange("/hello", port: server.port) == Self.helloResponse)
        try await server.shutdown()
    }

    @Test func theFirstRuleThatFiresDecidesAndUsedUpCountsDropOut() async throws {
        let server = try await Self.server()
        server.faults.inject(
            LoopbackFaultRule(fault: .raw("first"), trigger: .times(1)),
            LoopbackFaultRule(fault: .raw("second")),
            LoopbackFaultRule(fault: .raw("never"), trigger: .times(0))
        )

        #expect(try await exchange("/hello", port: server.port) == "first")
        #expect(try await exchange("/hello", port: server.port) == "second")
        #expect(server.faults.rules.count == 1)
        server.faults.reset()
        #expect(try await exchange("/hello", port: server.port) == Self.helloResponse)
        #expect(server.faults.injected.isEmpty)
        try await server.shutdown()
    }

    @Test func probabilitiesDrawFromTheSeedSoTheSameSeedHitsTheSameRequests() async throws {
        let server = try await Self.server()
        func hits(seed: UInt64) async throws -> [Bool] {
            server.faults.reset(seed: seed)
            server.faults.inject(LoopbackFaultRule(fault: .closeBeforeAnswer, trigger: .probability(0.5)))
            var hits: [Bool] = []
            for _ in 0..<16 { hits.append(try await exchange("/hello", port: server.port).isEmpty) }
            return hits
        }

        let first = try await hits(seed: 7)
        #expect(try await hits(seed: 7) == first)
        #expect(first.contains(true) && first.contains(false))
        try await server.shutdown()
    }

    @Test func aCutMidBodySendsTheRoutesHeadAndHalfItsBody() async throws {
        let server = try await LoopbackServer.start(routes: [
            LoopbackRoute("GET", "/ten") { _ in
                .respond(status: 200, headers: [("X-A", "1")], body: Array("0123456789".utf8))
            }
        ])
        server.faults.inject(LoopbackFaultRule("GET", "/ten", fault: .cutMidBody()))

        #expect(
            try await exchange("/ten", port: server.port)
                == "HTTP/1.1 200 OK\r\nX-A: 1\r\nContent-Length: 10\r\n\r\n01234")
        try await server.shutdown()
    }

    @Test func aDripAndADelaySendTheRoutesWholeResponse() async throws {
        let server = try await LoopbackServer.start(routes: [
            LoopbackRoute("GET", "/hello") { _ in .respond(status: 200, body: Array("hello".utf8)) }
        ])
        server.faults.inject(
            LoopbackFaultRule(
                where: { $0.query["fault"] == "drip" }, fault: .drip(bytesPerChunk: 7, every: .milliseconds(1))),
            LoopbackFaultRule(where: { $0.query["fault"] == "delay" }, fault: .delay(.milliseconds(5)))
        )
        let whole = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"

        // The drip writes the head itself; the delay leaves it to the server, which adds `Connection: close`.
        #expect(try await exchange("/hello?fault=drip", port: server.port) == whole)
        #expect(
            try await exchange("/hello?fault=delay", port: server.port)
                == "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello")
        #expect(server.faults.injected == ["drip": 1, "delay": 1])
        try await server.shutdown()
    }

    @Test func partialBodyAndWrongEncodingSpoilTheRoutesResponseButFrameItWhole() async throws {
        let server = try await LoopbackServer.start(routes: [
            LoopbackRoute("GET", "/ten") { _ in .respond(status: 200, body: Array("0123456789".utf8)) }
        ])
        server.faults.inject(
            LoopbackFaultRule(where: { $0.query["fault"] == "partial" }, fault: .partialBody),
            LoopbackFaultRule(where: { $0.query["fault"] == "encoding" }, fault: .wrongContentEncoding)
        )

        #expect(
            try await exchange("/ten?fault=partial", port: server.port)
                == "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n01234")
        #expect(
            try await exchange("/ten?fault=encoding", port: server.port)
                == "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 10\r\n\r\n0123456789")
        try await server.shutdown()
    }

    @Test func aResetMidHeadSendsAtMostTheFirstHalfOfTheHeadThenResets() async throws {
        let server = try await Self.server()
        server.faults.inject(LoopbackFaultRule(fault: .resetMidHead))
        let head = "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 5\r\n\r\n"

        // The reset drops whatever of the half head the client has not read yet, so it reads the
        // half head, a part of it, or nothing, and then the reset.
        let answer: String
        do {
            answer = try await exchange("/hello", port: server.port)
        } catch let error as RawConnection.SocketError {
            #expect(error.operation == "recv (errno \(104))")  // ECONNRESET
            answer = ""
        }
        #expect(String(head.prefix(head.utf8.count / 2)).hasPrefix(answer))
        #expect(server.faults.injected == ["reset-mid-head": 1])
        try await server.shutdown()
    }

    // Just past libcurl's 300 KiB, and the default.
    @Test(arguments: [5000, 300 * 1024 + 1, 400 * 1024])
    func anOversizedHeadIsTheRoutesResponsePaddedPastTheSizeGiven(bytes: Int) async throws {
        let server = try await Self.server()
        server.faults.inject(LoopbackFaultRule(fault: .oversizedHead(bytes: bytes)))

        let answer = try await exchange("/hello", port: server.port)
        let end = try #require(answer.firstRange(of: "\r\n\r\n"))
        let head = answer[..<end.lowerBound]
        #expect(answer[end.upperBound...] == "hello")
        #expect(head.utf8.count >= bytes && head.utf8.count < bytes + 2000)
        #expect(head.hasPrefix("HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nX-Padding-0: ppp"))
        try await server.shutdown()
    }

    @Test(arguments: [1, 50, 150])
    func anInterimFloodSendsTheNumberOfHeadsAsked(heads: Int) async throws {
        let server = try await Self.server()
        server.faults.inject(LoopbackFaultRule(fault: .interimFlood(heads: heads)))

        let answer = try await exchange("/hello", port: server.port)
        #expect(answer == String(repeating: "HTTP/1.1 100 Continue\r\n\r\n", count: heads))
        try await server.shutdown()
    }

    @Test func anOverloadedServerAnswersTheStatusWithTheRetryAfterGivenAsItIs() async throws {
        let server = try await Self.server()
        server.faults.inject(LoopbackFaultRule(fault: .overloaded(status: 429, retryAfter: "-5")))

        #expect(
            try await exchange("/hello", port: server.port)
                == "HTTP/1.1 429 Too Many Requests\r\nRetry-After: -5\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )
        #expect(server.faults.injected == ["overloaded-429": 1])
        try await server.shutdown()
    }
}
