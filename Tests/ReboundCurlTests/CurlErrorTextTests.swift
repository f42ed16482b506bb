import CCurl
import Rebound
import TestSupport
import Testing

@testable import ReboundCurl

@Suite struct CurlErrorTextTests {
    /// libcurl 7.88 copies a proxy it cannot use into its error text whole, and a proxy comes from
    /// the environment (`http_proxy`): its password went into every failed request's reason,
    /// context and description, and from there into logs and reports.
    @Test(arguments: [
        "http://user:s3cret@127.0.0.1:99999", "ftp://user:s3cret@127.0.0.1:21", "user:s3cret@[::1",
        // U+0600 joins the `@` after it into one character.
        "http://user:s3cret\u{600}@127.0.0.1:99999",
    ])
    func aProxysCredentialsNeverReachTheErrorText(proxy: String) async throws {
        let text = try #require(await Self.errorMessage(ofRequestThrough: proxy))
        #expect(text.hasPrefix("Unsupported proxy"), "\(text)")
        #expect(!text.contains("s3cret"), "\(text)")
        #expect(text.contains("@127.0.0.1") || text.contains("@[::1"), "\(text)")
    }

    /// A proxy URL's query is quoted whole too; a credential in it goes by its name.
    @Test(arguments: ["http://127.0.0.1:99999/?apikey=s3cret", "http://proxy.test:99999/x?sig=s3cret&keep=1"])
    func aCredentialInAProxysQueryNeverReachesTheErrorText(proxy: String) async throws {
        let text = try #require(await Self.errorMessage(ofRequestThrough: proxy))
        #expect(text.hasPrefix("Unsupported proxy"), "\(text)")
        #expect(!text.contains("s3cret"), "\(text)")
        #expect(text.contains("=<redacted>"), "\(text)")
    }

    @Test func aPasswordLongerThanLibcurlsTextNeverReachesIt() async throws {
        // libcurl cuts its text at 255 bytes: the proxy's closing quote and the `@` after a long
        // password (a token) were cut off, and what was left of the password was kept as it was.
        let password = String(repeating: "s3cret", count: 50)
        let text = try #require(await Self.errorMessage(ofRequestThrough: "http://user:\(password)@127.0.0.1:99999"))
        #expect(text.hasPrefix("Unsupported proxy syntax in 'http://"), "\(text)")
        #expect(!text.contains("s3cret") && !text.contains("user"), "\(text)")
    }

    @Test(arguments: [
        (
            "Unsupported proxy syntax in 'http://user:s3cret@proxy.test:99999': Port number was not a decimal number",
            "Unsupported proxy syntax in 'http://<redacted>@proxy.test:99999': Port number was not a decimal number"
        ),
        // Between libcurl's quotes, one value: a space, a quote or an @ in the password included.
        (
            "Unsupported proxy scheme for 'ftp://user:s3 c'r@et@proxy.test:21'",
            "Unsupported proxy scheme for 'ftp://<redacted>@proxy.test:21'"
        ),
        ("Unsupported proxy syntax in 'user:s3cret@[::1'", "Unsupported proxy syntax in '<redacted>@[::1'"),
        ("Could not reach http://user:s3cret@proxy.test/ today", "Could not reach http://<redacted>@proxy.test/ today"),
        // Cut at libcurl's 255 bytes, inside the password: no closing quote, no `@`.
        (
            String(("Unsupported proxy syntax in 'http://user:" + String(repeating: "s3cret", count: 50)).prefix(255)),
            "Unsupported proxy syntax in 'http://<redacted>"
        ),
        // A URL among words, cut as long: the fuzzer found the rest of the password kept.
        (
            String(("Could not reach http://user:" + String(repeating: "s3cret", count: 50)).prefix(255)),
            "Could not reach http://<redacted>"
        ),
        // A character that joins the `@` next to it into one (U+0600 before it, a combining
        // accent after it) hid the `@`, and the password was kept: found by reasoning about the
        // fuzz target's contract, then replayed through it.
        (
            "Unsupported proxy syntax in 'http://user:s3cret\u{600}@proxy.test:99999'",
            "Unsupported proxy syntax in 'http://<redacted>@proxy.test:99999'"
        ),
        (
            "Unsupported proxy syntax in 'http://user:s3cret@\u{301}proxy.test'",
            "Unsupported proxy syntax in 'http://<redacted>@\u{301}proxy.test'"
        ),
        (
            "Failed to connect to 127.0.0.1 port 1 after 0 ms: Couldn't connect to server",
            "Failed to connect to 127.0.0.1 port 1 after 0 ms: Couldn't connect to server"
        ),
    ])
    func userInformationIsRedactedWhereverItStands(message: String, expected: String) {
        #expect(CurlErrorText.redactingCredentials(message) == expected)
    }

    /// The error text of a request from a handle of the transport's kind through `proxy`.
    private static func errorMessage(ofRequestThrough proxy: String) async throws -> String? {
        let port = try BlackholeListener.unusedPort()
        return await onOwnThread { () -> String? in
            // As the transport does before its first handle: a handle made first would initialise
            // libcurl with the C library's memory functions, for the whole process.
            guard CurlGlobal.initialize(),
                let handle = CurlTransfer.makeHandle(
                    certificateAuthorityFile: nil, share: nil, usesProxyEnvironment: false)
            else { return nil }
            _ = handle.setURL("http://127.0.0.1:\(port)/")
            _ = handle.set(CURLOPT_PROXY, proxy)
            _ = handle.set(CURLOPT_CONNECTTIMEOUT_MS, 5000)
            _ = curl_easy_perform(handle.raw)
            return handle.errorMessage
        }
    }
}
