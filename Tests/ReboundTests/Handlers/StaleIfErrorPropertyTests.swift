import Foundation
import HTTPTypes
import PropertyBased
import ReboundTesting
import Testing

@testable import Rebound

/// Property tests of the stale-if-error handler's laws, under any interleaving of attempts that
/// start and end, identities that change and time that passes, through its public hooks as the
/// pipeline calls them: it stays within its entries and bytes; it gives only the last good answer
/// kept for the URL in the current identity's scope, never older than allowed; without a scope it
/// never keeps an answer to a request with a credential; and, with room enough, it gives every
/// answer it may.
@Suite struct StaleIfErrorPropertyTests {
    static let configurations = zip(Gen.int(in: 1...6), Gen.int(in: 100...1_500), Gen.int(in: 0...600))
        .map { entries, bytes, answerBytes in
            StaleIfErrorHandler.Configuration(
                maximumEntries: entries, maximumBytes: bytes, maximumAnswerBytes: answerBytes)
        }

    /// Each event: `event % 6` says what happens (start, success, failure, identity, time, a
    /// failed call), `event / 6` which URL, attempt, identity or how much time.
    static let events = Gen.int(in: 0...600).array(of: 0...300)

    static let urls = ["/a", "/b", "/c?page=2"]
    static let identities: [String?] = ["alice", "bob", nil]
    static let maximumStaleness = Duration.seconds(30)

    /// The world around one handler, and a model of what it may give: the last good answer per
    /// scope and URL, unbounded.
    final class World: @unchecked Sendable {
        struct Started {
            let context: AttemptContext
            let request: HTTPRequest
            /// The identity when it was prepared: its answer is that identity's.
            let scope: String?
            let body: Data
        }

        struct Kept {
            let body: Data
            let at: Duration
        }

        let clock = TestClock()
        let identity = Locked<String?>("alice")
        let handler: StaleIfErrorHandler
        let configuration: StaleIfErrorHandler.Configuration
        var inFlight: [Started] = []
        var model: [String: Kept] = [:]
        var calls: UInt64 = 0
        var answered = 0

        init(_ configuration: StaleIfErrorHandler.Configuration) {
            self.configuration = configuration
            let identity = identity
            handler = StaleIfErrorHandler(configuration: configuration, scope: { identity.withLock { $0 } })
        }

        static func key(_ scope: String?, _ url: String) -> String { "\(scope ?? "-") \(url)" }

        var options: EndpointOptions {
            var options = EndpointOptions()
            options.staleIfError = StaleIfErrorPropertyTests.maximumStaleness
            return options
        }

        func request(_ which: Int) -> HTTPRequest {
            var request = HTTPRequest(
                method: .get, scheme: "https", authority: "api.example.com",
                path: StaleIfErrorPropertyTests.urls[which % StaleIfErrorPropertyTests.urls.count])
            if which % 2 == 1 { request.headerFields[.authorization] = "Bearer token" }
            return request
        }

        func start(_ which: Int) {
            calls += 1
            let context = AttemptContext(
                id: AttemptID(call: calls, attempt: 1), maxAttempts: 1, deadline: .seconds(1_000_000),
                options: options, method: .get, path: "/", time: clock.timeSource)
            var request = request(which)
            let scope = identity.withLock { $0 }
            #expect((try? handler.prepareSynchronously(&request, context: context)) == .done)
            let body = Data("answer \(calls) ".utf8 + Array(repeating: UInt8(ascii: "x"), count: which * 3))
            inFlight.append(Started(context: context, request: request, scope: scope, body: body))
        }

        func end(_ which: Int, succeeded: Bool) {
            guard !inFlight.isEmpty else { return }
            let started = inFlight.remove(at: which % inFlight.count)
            let key = Self.key(started.scope, StaleIfErrorPropertyTests.url(of: started.request))
            if succeeded {
                let response = TransportResponse(head: HTTPResponse(status: .ok), body: started.body)
                handler.attemptDidEndSynchronously(
                    .succeeded(request: started.request, response: response), context: started.context)
                let credentialed = started.request.headerFields[.authorization] != nil
                model[key] =
                    started.scope == nil && credentialed ? nil : Kept(body: started.body, at: clock.timeSource.now())
            } else {
                handler.attemptDidEndSynchronously(.cancelled, context: started.context)
            }
            #expect(handler.count <= configuration.maximumEntries)
            #expect(handler.bytes <= configuration.maximumBytes)
        }

        /// A failed call for URL `which`: what the handler gives, checked against the model.
        @discardableResult
        func failedCall(_ which: Int) -> (given: StaleAnswer?, kept: Kept?) {
            let request = request(which)
            let call = FailedCall(
                request: request, options: options,
                error: HTTPError(response: HTTPResponse(status: .serviceUnavailable)), history: [],
                time: clock.timeSource)
            let given = handler.staleAnswer(for: call)
            let scope = identity.withLock { $0 }
            let kept = model[Self.key(scope, StaleIfErrorPropertyTests.url(of: request))]
            if let given {
                answered += 1
                #expect(given.response.body == kept?.body)
                #expect(given.age == clock.timeSource.now() - (kept?.at ?? .zero))
                #expect(given.age <= StaleIfErrorPropertyTests.maximumStaleness)
            }
            return (given, kept)
        }

        func run(_ events: [Int], everyAnswerGiven: Bool) {
            for event in events {
                let which = event / 6
                switch event % 6 {
                case 0: start(which)
                case 1: end(which, succeeded: true)
                case 2: end(which, succeeded: false)
                case 3: identity.withLock { $0 = StaleIfErrorPropertyTests.identities[which % 3] }
                case 4: clock.advance(by: .seconds(which % 20))
                default:
                    let (given, kept) = failedCall(which)
                    if everyAnswerGiven, let kept,
                        clock.timeSource.now() - kept.at <= StaleIfErrorPropertyTests.maximumStaleness
                    {
                        #expect(given != nil)
                    }
                }
            }
        }
    }

    static func url(of request: HTTPRequest) -> String { request.path ?? "" }

    @Test func theHandlerKeepsItsLawsUnderAnyInterleaving() async {
        await propertyCheck(count: 300, input: Self.configurations, Self.events) { configuration, events in
            World(configuration).run(events, everyAnswerGiven: false)
        }
    }

    @Test func withRoomEnoughEveryAnswerThatMayBeGivenIsGiven() async {
        await propertyCheck(count: 300, input: Self.events) { events in
            World(.init(maximumEntries: 100, maximumBytes: 1_000_000)).run(events, everyAnswerGiven: true)
        }
    }
}
