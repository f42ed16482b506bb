import Foundation
import HTTPTypes
import Rebound
import Testing

@Suite struct HTTPErrorResponseTests {
    private static let secret = "s3cr3t-VALUE-4a9f"

    private func response(
        _ status: HTTPResponse.Status,
        _ fields: [(HTTPField.Name, String)] = []
    ) -> HTTPResponse {
        var headerFields = HTTPFields()
        for (name, value) in fields { headerFields.append(HTTPField(name: name, value: value)) }
        return HTTPResponse(status: status, headerFields: headerFields)
    }

    @Test func theReasonIsThePhraseTheServerSent() {
        let error = HTTPError(response: response(HTTPResponse.Status(code: 503, reasonPhrase: "Back Soon")))
        #expect(error.code == .no503ServiceUnavailable)
        #expect(error.reason == "Back Soon")
    }

    @Test func withoutAPhraseTheReasonIsTheRegisteredOne() {
        let error = HTTPError(response: response(HTTPResponse.Status(code: 429)))
        #expect(error.reason == "Too Many Requests")
        #expect(HTTPError(response: response(HTTPResponse.Status(code: 499))).reason == nil)
    }

    @Test func onlyContentTypeAndLengthAreKeptOfTheHeaderFields() throws {
        let error = HTTPError(
            response: response(
                .unauthorized,
                [
                    (.contentType, "application/json"),
                    (.contentLength, "42"),
                    (.setCookie, "session=\(Self.secret)"),
                    (.authorization, "Bearer \(Self.secret)"),
                    (.wwwAuthenticate, "Bearer realm=\(Self.secret)"),
                    (HTTPField.Name("X-Api-Key")!, Self.secret),
                ]
            )
        )
        #expect(error.context.redacted.map(\.key) == ["contentType", "contentLength"])
        #expect(error.context["contentType"]?.revealed == "application/json")
        #expect(error.context["contentLength"]?.revealed == "42")
        let json = String(decoding: try JSONEncoder().encode(ErrorChain(error)), as: UTF8.self)
        #expect(!json.contains(Self.secret))
        #expect(!error.description.contains(Self.secret))
    }

    @Test func aContentLengthThatIsNotANumberIsDropped() {
        let error = HTTPError(response: response(.badRequest, [(.contentLength, "12; \(Self.secret)")]))
        #expect(error.context.isEmpty)
    }

    @Test func aPhraseThatLooksLikeATokenIsRedacted() {
        let token = "AbCdEf0123456789AbCdEf0123456789"
        let error = HTTPError(response: response(HTTPResponse.Status(code: 401, reasonPhrase: "Bad token \(token)")))
        #expect(error.reason == "Bad token <redacted>")
    }

    /// A server's own phrase and content type are screened as its messages are: a short credential
    /// the heuristics cannot see goes by its name in a URL.
    @Test func aURLInThePhraseOrTheContentTypeLosesItsCredentials() {
        let error = HTTPError(
            response: response(
                HTTPResponse.Status(code: 403, reasonPhrase: "see https://x.test/cb?token=k7Qp2x"),
                [(.contentType, "text/html; see=https://x.test/?sig=9f8e7d")]))
        #expect(error.reason == "see https://x.test/cb?token=<redacted>")
        #expect(error.context["contentType"]?.revealed == "text/html; see=https://x.test/?sig=<redacted>")
    }

    @Test func theCauseIsKeptBelowTheStatus() {
        let error = HTTPError(response: response(.badGateway), cause: NetworkError(.incompleteResponse))
        #expect(error.chain.short == "HT502-NE8")
        #expect(error.chain.full == "HTTPError.no502BadGateway - NetworkError.incompleteResponse")
    }
}
