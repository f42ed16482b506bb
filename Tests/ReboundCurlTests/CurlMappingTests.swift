import CCurl
import HTTPTypes
import Rebound
import Testing

@testable import ReboundCurl

@Suite struct CurlMappingTests {
    @Test func aResponseHeadIsSplitIntoReasonAndRepeatedFields() {
        let raw = Array(
            "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nSet-Cookie: a=1\r\nset-cookie:  b=2 \r\nBad Name: x\r\n\r\n"
                .utf8)
        let reason = ResponseHeadParser.reasonPhrase(in: raw)
        let fields = ResponseHeadParser.fields(in: raw)
        #expect(reason == "Not Found")
        #expect(fields[values: .setCookie] == ["a=1", "b=2"])
        #expect(fields[.contentType] == "text/plain")
        #expect(fields.count == 3)
    }

    @Test(arguments: [
        ("HTTP/1.1 302 Found\r\n", 302), ("HTTP/2 200 \r\n", 200), ("HTTP/1.0 100\r\n", 100),
        ("HTTP/1.1 2000 OK\r\n", nil), ("HTTP/1.1: 200\r\n", nil), ("HTTPS/1.1 200 OK\r\n", nil),
        ("Location: /x\r\n", nil), ("\r\n", nil),
    ])
    func aStatusLineIsToldFromAnyOtherLine(line: String, code: Int?) {
        #expect(Array(line.utf8).withUnsafeBytes { ResponseHeadParser.statusCode(ofStatusLine: $0) } == code)
    }

    @Test(
        arguments: [
            ("Content-Length: 42\r\n", 42), ("content-length:7\r\n", 7), ("CONTENT-LENGTH: 5, 5\r\n", 5),
            ("Content-Length: 5, 7\r\n", ResponseHeadParser.conflictingLengths), ("Content-Length: x\r\n", nil),
            ("Content-Type: text/plain\r\n", nil), ("Content-Length-Extra: 5\r\n", nil),
        ] as [(String, Int64?)])
    func theLengthAContentLengthLineAnnouncesIsRead(line: String, length: Int64?) {
        #expect(Array(line.utf8).withUnsafeBytes { ResponseHeadParser.announcedLength(inFieldLine: $0) } == length)
    }

    @Test func anHTTP2HeadHasNoReasonPhrase() {
        let raw = Array("HTTP/2 200\r\ncontent-length: 3\r\n\r\n".utf8)
        let reason = ResponseHeadParser.reasonPhrase(in: raw)
        let fields = ResponseHeadParser.fields(in: raw)
        #expect(reason == "")
        #expect(fields[.contentLength] == "3")
    }

    @Test(arguments: [
        (CURLE_OPERATION_TIMEDOUT, true, NetworkErrorCode.timeout),
        (CURLE_OPERATION_TIMEDOUT, false, .connectTimeout),
        (CURLE_COULDNT_RESOLVE_HOST, false, .cannotResolveHost),
        (CURLE_COULDNT_CONNECT, false, .cannotConnect),
        (CURLE_RECV_ERROR, true, .connectionReset),
        (CURLE_GOT_NOTHING, true, .connectionReset),
        (CURLE_PARTIAL_FILE, true, .incompleteResponse),
        (CURLE_SEND_ERROR, true, .sendFailed),
        (CURLE_PEER_FAILED_VERIFICATION, true, .tlsFailure),
        (CURLE_SSL_CONNECT_ERROR, true, .tlsFailure),
        (CURLE_TOO_MANY_REDIRECTS, true, .tooManyRedirects),
        (CURLE_FILESIZE_EXCEEDED, true, .responseTooLarge),
        (CURLE_URL_MALFORMAT, false, .invalidURL),
        (CURLE_HTTP2, true, .protocolError),
        (CURLE_BAD_CONTENT_ENCODING, true, .protocolError),
        (CURLE_WEIRD_SERVER_REPLY, true, .protocolError),
        (CURLE_COULDNT_RESOLVE_PROXY, false, .proxyFailure),
        (CURLE_BAD_FUNCTION_ARGUMENT, false, .invalidRequest),
        // After the request went out: the server's answer, such as a trailer line without a colon.
        (CURLE_BAD_FUNCTION_ARGUMENT, true, .protocolError),
        (CURLE_OUT_OF_MEMORY, false, .transportUnavailable),
        // After the request went out: a line of the response head past libcurl's 100 KiB.
        (CURLE_OUT_OF_MEMORY, true, .responseTooLarge),
        // libcurl 8.6 and later: a line of the response head past its 100 KiB.
        (NetworkErrorCode.curlTooLarge, true, .responseTooLarge),
        (NetworkErrorCode.curlTooLarge, false, .invalidRequest),
        (CURLE_WRITE_ERROR, true, .other),
        (CURLE_LOGIN_DENIED, true, .other),
    ])
    func curlResultCodesAreGroupedIntoNetworkCodes(curl: CURLcode, connected: Bool, expected: NetworkErrorCode) {
        #expect(NetworkErrorCode(curlCode: curl, bodyLimitExceeded: false, connected: connected) == expected)
    }

    @Test func aConnectionThatDiedBeforeAnyAnswerIsAResetNotASendFailure() {
        let code = NetworkErrorCode(
            curlCode: CURLE_SEND_ERROR,
            message: "Connection died, tried 5 times before giving up",
            bodyLimitExceeded: false,
            connected: true
        )
        #expect(code == .connectionReset)
    }

    @Test func aHeadPastLibcurlsLimitIsResponseTooLargeNotAReset() {
        let code = NetworkErrorCode(
            curlCode: CURLE_RECV_ERROR,
            message: "Too large response headers: 307452 > 307200",
            bodyLimitExceeded: false,
            connected: true
        )
        #expect(code == .responseTooLarge)
    }

    @Test(arguments: [
        // libcurl 7.88 keeps at most 128 KiB of an HTTP/2 head; past it, its nghttp2 header
        // callback fails and the transfer ends with this text.
        "h2_process_pending_input: nghttp2_session_mem_recv() returned -902:The user callback function failed",
        // libcurl 8's words for the same failure.
        "process_pending_input: nghttp2_session_mem_recv() returned -902:The user callback function failed",
    ])
    func anHTTP2HeadPastLibcurlsLimitIsResponseTooLargeNotAReset(message: String) {
        let code = NetworkErrorCode(
            curlCode: CURLE_RECV_ERROR, message: message, bodyLimitExceeded: false, connected: true)
        #expect(code == .responseTooLarge)
    }

    @Test(arguments: [
        "h2_process_pending_input: nghttp2_session_mem_recv() returned -523:Invalid header block",
        "h2_process_pending_input: nghttp2_session_mem_recv() returned -904:Flooding was detected in this HTTP/2 session, and it must be closed",
        "process_pending_input: nghttp2_session_mem_recv() returned -523:Invalid header block",
    ])
    func anHTTP2SessionThatCannotTakeTheServersFramesIsAProtocolError(message: String) {
        let code = NetworkErrorCode(
            curlCode: CURLE_RECV_ERROR, message: message, bodyLimitExceeded: false, connected: true)
        #expect(code == .protocolError)
    }

    @Test(arguments: [
        ("Protocol \"ftp\" not supported or disabled in libcurl", NetworkErrorCode.insecureRedirect),
        ("Protocol \"http\" not supported or disabled in libcurl", .insecureRedirect),
        ("The redirect target URL could not be parsed: Unsupported URL scheme", .insecureRedirect),
        ("Received HTTP/0.9 when not allowed", .protocolError),
        ("Unsupported response code in HTTP response", .protocolError),
        ("Unsupported HTTP version (3.0) in response", .protocolError),
        // libcurl 8's words.
        ("Protocol \"ftp\" not supported", .insecureRedirect),
        ("Unsupported HTTP/1 subversion in response", .protocolError),
    ])
    func anUnsupportedProtocolIsARefusedRedirectOnlyWhenARedirectWasRefused(
        message: String, expected: NetworkErrorCode
    ) {
        let code = NetworkErrorCode(
            curlCode: CURLE_UNSUPPORTED_PROTOCOL, message: message, bodyLimitExceeded: false, connected: true)
        #expect(code == expected)
    }

    @Test(arguments: [
        "Illegal or missing hexadecimal sequence in chunked-encoding",
        "Too long hexadecimal number in chunked-encoding",
        // libcurl 8's words.
        "chunk hex-length char not a hex digit: 0x7a",
        "chunk hex-length longer than 16",
        "invalid chunk size: 'ffffffffffffffff'",
    ])
    func aChunkedBodyLibcurlCannotDecodeIsAProtocolErrorNotAReset(message: String) {
        let code = NetworkErrorCode(
            curlCode: CURLE_RECV_ERROR, message: message, bodyLimitExceeded: false, connected: true)
        #expect(code == .protocolError)
    }

    @Test(arguments: [
        "CONNECT response too large", "CONNECT tunnel failed, response 403", "CONNECT tunnel failed, response 407",
    ])
    func aProxysRefusalOrOversizedAnswerToConnectIsAProxyFailure(message: String) {
        let code = NetworkErrorCode(
            curlCode: CURLE_RECV_ERROR, message: message, bodyLimitExceeded: false, connected: true)
        #expect(code == .proxyFailure)
    }

    @Test func aWriteErrorAfterTheBodyLimitIsResponseTooLarge() {
        #expect(
            NetworkErrorCode(curlCode: CURLE_WRITE_ERROR, bodyLimitExceeded: true, connected: true) == .responseTooLarge
        )
    }

    @Test func theOfferedEncodingsAreTheOnesLibcurlCanDecode() {
        #expect(CurlGlobal.acceptedEncodings(features: 0) == nil)
        #expect(CurlGlobal.acceptedEncodings(features: CURL_VERSION_LIBZ) == "gzip")
        #expect(CurlGlobal.acceptedEncodings(features: CURL_VERSION_LIBZ | CURL_VERSION_ZSTD) == "gzip, zstd")
        #expect(
            CurlGlobal.acceptedEncodings(features: CURL_VERSION_LIBZ | CURL_VERSION_BROTLI | CURL_VERSION_ZSTD)
                == "gzip, br, zstd")
    }

    /// libcurl takes its limits in milliseconds: any duration maps into 1...Int.max, the largest
    /// ones saturating rather than overflowing (a trap, from a configured timeout).
    @Test(arguments: [
        (Duration.zero, 1), (.milliseconds(-5), 1), (.microseconds(1_500), 1), (.seconds(2), 2_000),
        (.seconds(9_223_372_036_854_775) + .milliseconds(900), Int.max), (.seconds(Int64.max), Int.max),
    ])
    func durationsMapToLibcurlsMillisecondsWithinRange(duration: Duration, milliseconds: Int) {
        #expect(duration.curlMilliseconds == milliseconds)
    }

    @Test func networkCodesAreStable() {
        // These numbers are identities in reports and support tickets: they never change.
        let pinned: [NetworkErrorCode: Int] = [
            .other: 1, .timeout: 2, .connectTimeout: 3, .stalled: 4, .cannotResolveHost: 5, .cannotConnect: 6,
            .connectionReset: 7, .incompleteResponse: 8, .sendFailed: 9, .tlsFailure: 10, .tooManyRedirects: 11,
            .insecureRedirect: 12, .responseTooLarge: 13, .cancelled: 14, .invalidURL: 15, .protocolError: 16,
            .proxyFailure: 17, .transportUnavailable: 18, .invalidRequest: 19, .queueFull: 20,
        ]
        #expect(pinned.count == NetworkErrorCode.allCases.count)
        for (code, value) in pinned { #expect(code.rawValue == value, "\(code)") }
        #expect(NetworkErrorCode.shortName == "NE")
        #expect(NetworkErrorCode.domain == "NetworkError")
    }
}
