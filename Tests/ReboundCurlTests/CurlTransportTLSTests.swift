import Foundation
import HTTPTypes
import Rebound
import ReboundCurl
import Testing

/// What only TLS shows: HTTP/2 by ALPN, certificate checks, and redirects down to http.
@Suite(.serialized, .enabled(if: TLSServerFixture.isAvailable, "needs nginx and openssl (scripts/setup.sh)"))
final class CurlTransportTLSTests {
    let server: TLSServerFixture
    let transport: CurlTransport

    init() async throws {
        server = try await TLSServerFixture.start()
        transport = CurlTransport(configuration: .init(certificateAuthorityFile: server.certificateFile))
    }

    deinit {
        transport.shutdown()
        server.stop()
    }

    func request(_ path: String) -> HTTPRequest {
        HTTPRequest(method: .get, scheme: "https", authority: "127.0.0.1:\(server.tlsPort)", path: path)
    }

    @Test func http2IsUsedWhenTheServerOffersIt() async throws {
        let response = try await transport.send(request("/hello"))
        #expect(response.status == .ok)
        #expect(response.info.httpVersion == "2")
        #expect(String(decoding: response.body, as: UTF8.self) == "hello over TLS")
    }

    @Test func aNewTLSConnectionsTimingsIncludeItsHandshake() async throws {
        let fresh = CurlTransport(configuration: .init(certificateAuthorityFile: server.certificateFile))
        defer { fresh.shutdown() }
        let timings = try #require(try await fresh.send(request("/hello")).info.timings)
        #expect(timings.tlsHandshake > timings.connect)
        #expect(timings.tlsHandshake <= timings.firstByte)
        #expect(timings.firstByte <= timings.total)
    }

    @Test func http1CanBeForced() async throws {
        var options = TransportOptions()
        options.httpVersion = .http1
        let response = try await transport.send(request("/hello"), body: nil, options: options)
        #expect(response.info.httpVersion == "1.1")
    }

    @Test func anHTTP2HeadPastLibcurlsLimitIsResponseTooLargeWhileHTTP1TakesIt() async throws {
        // About 160 KiB of fields: past the 128 KiB libcurl 7.88 keeps of an HTTP/2 head, within
        // the 300 KiB of an HTTP/1.1 one. Over HTTP/2 it must not come out as a reset, which a
        // retry policy would send again for the same answer. libcurl 8 takes it over HTTP/2 too.
        if CurlTransport.libcurlVersionNumber < 0x08_00_00 {
            let error = await #expect(throws: NetworkError.self) { try await transport.send(request("/large-head")) }
            #expect(error?.code == .responseTooLarge)
            #expect(error?.reason == "The HTTP/2 response head is larger than libcurl accepts (128 KiB).")
        } else {
            let response = try await transport.send(request("/large-head"))
            #expect(response.info.httpVersion == "2")
            #expect(response.head.headerFields.contains { $0.name.canonicalName.hasPrefix("x-large-") })
        }

        var options = TransportOptions()
        options.httpVersion = .http1
        let response = try await transport.send(request("/large-head"), body: nil, options: options)
        #expect(response.status == .ok)
        #expect(response.info.httpVersion == "1.1")
        let large = response.head.headerFields.filter { $0.name.rawName.hasPrefix("X-Large-") }
        #expect(large.count == TLSServerFixture.largeHeadFieldCount)
        #expect(large.allSatisfy { $0.value.utf8.count == TLSServerFixture.largeHeadFieldSize })

        // The connection that failed is not reused in a broken state.
        let next = try await transport.send(request("/hello"))
        #expect(next.status == .ok)
    }

    @Test func aRedirectFromHTTPSDownToHTTPIsNeverFollowed() async throws {
        let error = await #expect(throws: NetworkError.self) { try await transport.send(request("/to-plain")) }
        #expect(error?.code == .insecureRedirect)
    }

    @Test func aRedirectBackDownToHTTPIsRefusedAfterAnUpgradeToHTTPS() async throws {
        // http → https is followed; once on https, a hop back to http is the downgrade refused
        // above, even though the request started on http.
        let plain = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(server.plainPort)", path: "/up")
        let upgraded = try await transport.send(plain)
        #expect(String(decoding: upgraded.body, as: UTF8.self) == "hello over TLS")
        #expect(upgraded.info.redirectCount == 1)

        var back = plain
        back.path = "/up-and-back"
        let error = await #expect(throws: NetworkError.self) { try await transport.send(back) }
        #expect(error?.code == .insecureRedirect)
    }

    @Test func aRedirectThatStaysOnHTTPSIsFollowed() async throws {
        let response = try await transport.send(request("/to-tls"))
        #expect(response.status == .ok)
        #expect(response.info.redirectCount == 1)
        // The head kept is the answer's, not the redirect's that libcurl followed.
        #expect(response.head.headerFields[.location] == nil)
    }

    @Test func anHTTPSRedirectToAHostLibcurlCouldReadDifferentlyIsRefused() async throws {
        // Each hop of an https request is checked by the transport too: libcurl, following it
        // itself, decoded the host and went looking for "evil.test".
        let error = await #expect(throws: NetworkError.self) { try await transport.send(request("/to-encoded-host")) }
        #expect(error?.code == .invalidURL)
    }

    @Test func aCookieStaysBehindWhenAnHTTPSRedirectLeavesTheOriginForAnotherPort() async throws {
        // libcurl, following an https redirect itself, dropped a caller's Cookie only when the
        // host changed: another port on the same host got it.
        var request = HTTPRequest(
            method: .get, scheme: "https", authority: "127.0.0.1:\(server.goawayPort)", path: "/to-other-port")
        request.headerFields[.cookie] = "session=cookie-secret"
        let response = try await transport.send(request)
        #expect(response.info.redirectCount == 1)
        #expect(String(decoding: response.body, as: UTF8.self) == "[]")
    }

    @Test func streamsCutOffByAGoawayAreSentAgainByLibcurl() async throws {
        // nginx ends each HTTP/2 connection with a GOAWAY after 10 requests; streams the server
        // never processed must go out again on a new connection, not fail. libcurl sends a request
        // again at most five times. A stream is cut off only behind 10 others that its connection
        // served, so in a wave of 50 requests on a fresh transport none is cut off more than four
        // times, however the streams are spread. Twelve such waves make 600 requests.
        let request = HTTPRequest(
            method: .get, scheme: "https", authority: "127.0.0.1:\(server.goawayPort)", path: "/hello")
        var results: [Result<TransportResponse, NetworkError>] = []
        for _ in 0..<12 {
            let wave = CurlTransport(configuration: .init(certificateAuthorityFile: server.certificateFile))
            results += await withTaskGroup(of: Result<TransportResponse, NetworkError>.self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        do throws(NetworkError) {
                            return .success(try await wave.send(request, body: nil, options: TransportOptions()))
                        } catch {
                            return .failure(error)
                        }
                    }
                }
                var all: [Result<TransportResponse, NetworkError>] = []
                for await result in group { all.append(result) }
                return all
            }
            wave.shutdown()
        }
        let failures = results.compactMap { result -> String? in
            if case .failure(let error) = result { return "\(error.chain.short) \(error.context)" }
            return nil
        }
        #expect(failures.isEmpty, "\(failures.count) failed: \(Set(failures))")
        let responses = results.compactMap { try? $0.get() }
        #expect(responses.count == 600)
        #expect(responses.allSatisfy { $0.info.httpVersion == "2" && $0.status == .ok })
        // At most 10 requests per connection: the GOAWAYs really happened.
        #expect(responses.reduce(0) { $0 + $1.info.newConnections } >= 60)
    }

    @Test func newConnectionsResumeTheTLSSessionOfEarlierOnes() async throws {
        // The server closes every connection after one request, so every request connects anew.
        let request = HTTPRequest(
            method: .get, scheme: "https", authority: "127.0.0.1:\(server.sessionPort)", path: "/hello")
        _ = try await transport.send(request)
        // Eight at once: all but one go out on easy handles that never connected before, and
        // still resume the session the first request's handshake made.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { [transport] in
                    let response = try await transport.send(request)
                    #expect(response.status == .ok)
                }
            }
            try await group.waitForAll()
        }
        let log = try await server.sessionLog(count: 9)
        #expect(log == ["."] + Array(repeating: "r", count: 8))
    }

    @Test func anUntrustedCertificateIsATLSFailure() async throws {
        let untrusting = CurlTransport()
        defer { untrusting.shutdown() }
        let error = await #expect(throws: NetworkError.self) { try await untrusting.send(request("/hello")) }
        #expect(error?.code == .tlsFailure)
    }
}
