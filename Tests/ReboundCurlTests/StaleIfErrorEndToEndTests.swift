import Foundation
import HTTPTypes
import Rebound
import ReboundCurl
import ReboundMockBackend
import TestSupport
import Testing

/// Stale-if-error over the real libcurl transport against a loopback server that goes down:
/// the endpoint that opted in gets its last good answer, marked stale with its age; every other
/// call fails with its chain.
@Suite struct StaleIfErrorEndToEndTests {
    typealias SampleCode = PipelineEndToEndTests.SampleCode
    typealias Item = PipelineEndToEndTests.Item

    static let tasks = [Item(id: 1), Item(id: 2)]
    static let list = Endpoint<[Item], SampleCode>(.get, "/tasks", errorCode: .listTasksFailed)
    static let stale = list.staleIfError(upTo: .seconds(600))

    @Test func whileTheBackendIsDownTheOptedInGETGetsItsLastGoodAnswerAndOthersFail() async throws {
        let route = LoopbackRoute("GET", "/tasks") { _ in .json(#"[{"id":1},{"id":2}]"#) }
        let post = LoopbackRoute("POST", "/tasks") { _ in .json(#"[{"id":1},{"id":2}]"#) }
        // The port is held by a socket that is bound and never listens, for the whole test: once
        // the server is gone, connections to it are refused, and no other test's server can be
        // given it (the kernel hands a socket that binds port 0 no port that is bound).
        let reservation = try boundLoopbackSocket()
        defer { close(reservation) }
        let server = try await LoopbackServer.start(port: try boundPort(of: reservation), routes: [route, post])
        let transport = CurlTransport()
        defer { transport.shutdown() }
        let api = try APIDataManager(
            baseURL: server.baseURL, transport: transport,
            handlers: [StaleIfErrorHandler(), PipelineEndToEndTests.handler()],
            limits: RequestLimits(maxAttempts: 2))
        func chain<Response>(_ endpoint: Endpoint<Response, SampleCode>) async -> String {
            do {
                let answer = try await api.response(for: endpoint)
                return answer.staleness == nil ? "fresh" : "stale"
            } catch {
                return error.chain.short
            }
        }
        do {
            let fresh = try await api.response(for: Self.stale)
            #expect(fresh.value == Self.tasks && fresh.staleness == nil)
            let postStale = Endpoint<[Item], SampleCode>(
                .post, "/tasks", body: Data("{}".utf8), errorCode: .listTasksFailed
            ).staleIfError(upTo: .seconds(600))
            #expect(await chain(postStale) == "fresh")

            // The backend goes down: every request is answered 503.
            let outage = OutageCounts()
            server.faults.inject(
                LoopbackFaultRule(pathPrefix: "/tasks", fault: .outage(lasting: .seconds(600), counts: outage)))
            try await Task.sleep(for: .milliseconds(20))
            let answer = try await api.response(for: Self.stale)
            #expect(answer.value == Self.tasks)
            let staleness = try #require(answer.staleness)
            #expect(staleness.age >= .milliseconds(20) && staleness.age < .seconds(600))
            #expect(staleness.failure.shortChain == "RE1-HT503")
            #expect(answer.history.attempts.map(\.error) == ["HT503", "HT503"])
            #expect(outage.outageAnswers == 2)

            // The same URL without opting in, a POST, and an answer older than allowed: their chains.
            // (Which recovery error wraps the 503 depends on what the retry budget has left.)
            #expect(await chain(Self.list).hasSuffix("-HT503"))
            #expect(await chain(postStale).hasSuffix("-HT503"))
            let tooOld = await chain(Self.list.staleIfError(upTo: .milliseconds(10)))
            #expect(tooOld.hasPrefix("AP8-") && tooOld.hasSuffix("-HT503"), "\(tooOld)")
        } catch {
            try await server.shutdown()
            throw error
        }
        // The backend is gone: connections are refused, and the answer still stands in.
        try await server.shutdown()
        let answer = try await api.response(for: Self.stale)
        #expect(answer.value == Self.tasks)
        #expect(answer.staleness?.failure.firstError(in: NetworkErrorCode.self)?.code == .cannotConnect)
        #expect(await chain(Self.list).hasPrefix("AP8-"))
        #expect(await chain(Self.list) != "stale")
    }
}
