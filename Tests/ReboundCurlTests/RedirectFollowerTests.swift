import Foundation
import HTTPTypes
import Rebound
import Testing

@testable import ReboundCurl

@Suite struct RedirectFollowerTests {
    private static let apiKey = HTTPField.Name("X-Api-Key")!

    private static func request(
        _ method: HTTPRequest.Method = .get, _ url: (scheme: String, authority: String) = ("http", "a.test"),
        path: String = "/start"
    ) -> HTTPRequest {
        var request = HTTPRequest(method: method, scheme: url.scheme, authority: url.authority, path: path)
        var secret = HTTPField(name: apiKey, value: "key-secret")
        secret.indexingStrategy = .disallow
        request.headerFields.append(secret)
        request.headerFields[.authorization] = "Bearer token-secret"
        request.headerFields[.cookie] = "session=cookie-secret"
        request.headerFields[HTTPField.Name("X-Trace")!] = "abc"
        request.headerFields[.contentType] = "application/json"
        return request
    }

    private static func redirect(_ status: Int, to location: String?) -> TransportResponse {
        var fields = HTTPFields()
        if let location { fields[.location] = location }
        return TransportResponse(head: HTTPResponse(status: .init(code: status), headerFields: fields))
    }

    private func next(
        _ response: TransportResponse, _ request: HTTPRequest, body: Data? = nil, followed: Int = 0, max: Int = 5
    ) throws(NetworkError) -> (request: HTTPRequest, body: Data?)? {
        try RedirectFollower.next(after: response, to: request, body: body, followed: followed, max: max)
    }

    @Test func everyRequestOfAFollowedMethodIsFollowedHereOnHTTPAndHTTPSAlike() {
        // libcurl follows no redirect: whatever the scheme and whatever the fields, the limit is
        // the options' one, and each hop is checked against the one before.
        var options = TransportOptions()
        for scheme in ["http", "https", "HTTPS"] {
            var plain = HTTPRequest(method: .get, scheme: scheme, authority: "a.test", path: "/")
            #expect(RedirectFollower.limit(for: plain, options: options) == 5)
            plain.method = .head
            #expect(RedirectFollower.limit(for: plain, options: options) == 5)
            #expect(RedirectFollower.limit(for: Self.request(.post, (scheme, "a.test")), options: options) == 5)
        }
        options.redirects = .follow(max: 2)
        #expect(RedirectFollower.limit(for: Self.request(), options: options) == 2)
        options.redirects = .doNotFollow
        #expect(RedirectFollower.limit(for: Self.request(), options: options) == nil)
    }

    @Test(arguments: [HTTPRequest.Method.put, .patch, .delete])
    func aRequestThatIsNotSafeGetsTheRedirectItselfBack(method: HTTPRequest.Method) {
        #expect(RedirectFollower.limit(for: Self.request(method), options: TransportOptions()) == nil)
        #expect(
            RedirectFollower.limit(for: Self.request(method, ("https", "a.test")), options: TransportOptions()) == nil)
    }

    @Test(arguments: [
        "http://evil.example%2F%40a.test/", "http://evil.example%3F%40a.test/", "http://evil.example%23%40a.test/",
        "http://evil.example%2Fa.test/", "http://a.test%00.evil.example/", "http://ev%69l.example/",
    ])
    func aHostThatLibcurlCouldReadDifferentlyIsRefused(location: String) throws {
        // Decoded, each of these could compare as a.test here while libcurl connects elsewhere.
        do {
            let followed = try next(Self.redirect(302, to: location), Self.request())
            Issue.record("followed to \(String(describing: followed?.request.authority))")
        } catch {
            #expect(error.code == .invalidURL)
        }
    }

    @Test func userInfoStaysWithItsOriginAndARelativePathResolvesAgainstTheRequest() throws {
        var request = Self.request()
        request.authority = "user:pw@a.test"
        request.path = "v1/items"
        let near = try #require(try next(Self.redirect(302, to: "other"), request))
        #expect(near.request.authority == "user:pw@a.test")
        #expect(near.request.path == "/v1/other")
        let far = try #require(try next(Self.redirect(302, to: "http://b.test/x"), request))
        #expect(far.request.authority == "b.test")
        let ipv6 = try #require(try next(Self.redirect(302, to: "http://[::1]:8080/x"), request))
        #expect(ipv6.request.authority == "[::1]:8080")
    }

    @Test func aProxyAuthorizationStaysWithItsOrigin() throws {
        var request = HTTPRequest(method: .get, scheme: "http", authority: "a.test", path: "/")
        request.headerFields[.proxyAuthorization] = "Basic cHJveHk6c2VjcmV0"
        let far = try #require(try next(Self.redirect(302, to: "http://b.test/x"), request))
        #expect(far.request.headerFields[.proxyAuthorization] == nil)
        let near = try #require(try next(Self.redirect(302, to: "/x"), request))
        #expect(near.request.headerFields[.proxyAuthorization] == "Basic cHJveHk6c2VjcmV0")
    }

    @Test func aResponseThatIsNoRedirectIsTheAnswer() throws {
        #expect(try next(TransportResponse(head: HTTPResponse(status: .ok)), Self.request()) == nil)
        #expect(try next(Self.redirect(304, to: "/x"), Self.request()) == nil)
        #expect(try next(Self.redirect(300, to: "/x"), Self.request())?.request.path == "/x")
        #expect(try next(Self.redirect(302, to: nil), Self.request()) == nil)
    }

    @Test func aRedirectWithinTheOriginKeepsEverything() throws {
        let followed = try #require(try next(Self.redirect(302, to: "/next?page=2"), Self.request()))
        #expect(followed.request.authority == "a.test")
        #expect(followed.request.path == "/next?page=2")
        #expect(followed.request.headerFields == Self.request().headerFields)
        let explicit = try #require(try next(Self.redirect(307, to: "http://A.test:80/x"), Self.request()))
        #expect(explicit.request.headerFields[Self.apiKey] == "key-secret")
    }

    @Test(arguments: ["http://b.test/landing", "http://a.test:8080/landing", "https://a.test/landing", "//b.test/x"])
    func aRedirectToAnotherOriginDropsEverySecretAndTheHost(location: String) throws {
        var request = Self.request()
        request.headerFields[HTTPField.Name("Host")!] = "a.test"
        let followed = try #require(try next(Self.redirect(301, to: location), request))
        let names = followed.request.headerFields.map { $0.name.canonicalName }
        #expect(names == ["x-trace", "content-type"])
        let stayed = try #require(try next(Self.redirect(301, to: "/landing"), request))
        #expect(stayed.request.headerFields[HTTPField.Name("Host")!] == "a.test")
    }

    @Test func aHostNameWithAnUnderscoreIsFollowed() throws {
        // Not a hostname by RFC 952, but common in internal DNS, and libcurl connects to it as written.
        let followed = try #require(try next(Self.redirect(302, to: "http://internal_api.b.test/x"), Self.request()))
        #expect(followed.request.authority == "internal_api.b.test")
        #expect(followed.request.headerFields[Self.apiKey] == nil)
        let within = try #require(
            try next(Self.redirect(302, to: "/y"), Self.request(.get, ("http", "api_1.a.test"))))
        #expect(within.request.authority == "api_1.a.test")
        #expect(within.request.headerFields[Self.apiKey] == "key-secret")
    }

    @Test func methodsChangeAsBrowsersChangeThem() throws {
        let body = Data("{}".utf8)
        for code in [301, 302, 303] {
            let followed = try #require(try next(Self.redirect(code, to: "/x"), Self.request(.post), body: body))
            #expect(followed.request.method == .get)
            #expect(followed.body == nil)
            #expect(followed.request.headerFields[.contentType] == nil)
        }
        for code in [307, 308] {
            let followed = try #require(try next(Self.redirect(code, to: "/x"), Self.request(.post), body: body))
            #expect(followed.request.method == .post)
            #expect(followed.body == body)
            #expect(followed.request.headerFields[.contentType] == "application/json")
        }
        let head = try #require(try next(Self.redirect(303, to: "/x"), Self.request(.head)))
        #expect(head.request.method == .head)
    }

    @Test func httpsNeverGoesDownToHttpOrElsewhere() throws {
        let secure = Self.request(.get, ("https", "a.test"))
        #expect(throws: NetworkError.self) { try next(Self.redirect(302, to: "http://a.test/x"), secure) }
        #expect(throws: NetworkError.self) { try next(Self.redirect(302, to: "ftp://a.test/x"), Self.request()) }
        do {
            _ = try next(Self.redirect(302, to: "http://a.test/x"), secure)
        } catch {
            #expect(error.code == .insecureRedirect)
            #expect(!"\(error)".contains("secret"))
        }
    }

    @Test func oneRedirectMoreThanAllowedFails() throws {
        #expect(try next(Self.redirect(302, to: "/x"), Self.request(), followed: 4, max: 5) != nil)
        do {
            _ = try next(Self.redirect(302, to: "/x"), Self.request(), followed: 5, max: 5)
            Issue.record("a sixth redirect was followed")
        } catch {
            #expect(error.code == .tooManyRedirects)
        }
    }
}
