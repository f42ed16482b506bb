import CCurl
import Rebound

extension NetworkError {
    /// The error for a transfer that libcurl ended with `code`.
    ///
    /// The code comes from ``NetworkErrorCode/init(curlCode:message:bodyLimitExceeded:connected:)``;
    /// the reason names the limit that was passed where there is one, and libcurl's text otherwise.
    ///
    /// - Parameters:
    ///   - code: What `curl_multi_info_read` reported; not `CURLE_OK`.
    ///   - message: libcurl's error text for the transfer, if it wrote one.
    ///   - receiverFailure: Why the ``ResponseReceiver`` ended the transfer, if it did.
    ///   - connected: Whether a connection had been established.
    ///   - options: The transfer's options, whose limits the reasons name.
    init(
        curlCode code: CURLcode,
        message: String?,
        receiverFailure: ResponseReceiver.Failure?,
        connected: Bool,
        options: TransportOptions
    ) {
        let message = message ?? String(cString: curl_easy_strerror(code))
        let context: ErrorContext = ["curlCode": "\(code.rawValue)", "curlError": "\(message)"]
        let bodyLimitExceeded = receiverFailure == .bodyTooLarge
        if code == CURLE_WRITE_ERROR && receiverFailure == .conflictingLengths {
            self.init(.protocolError, reason: "The response's Content-Length fields disagree.", context: context)
            return
        }
        let errorCode = NetworkErrorCode(
            curlCode: code, message: message, bodyLimitExceeded: bodyLimitExceeded, connected: connected)
        let reason: String
        switch errorCode {
        case .responseTooLarge where bodyLimitExceeded || code == CURLE_FILESIZE_EXCEEDED:
            reason = "The response body is larger than \(options.maxResponseBodySize) bytes."
        case .responseTooLarge where message.contains(NetworkErrorCode.http2HeadTooLargeMessage):
            // libcurl's own limits on a response head, which no option changes.
            reason =
                CurlGlobal.versionNumber < 0x08_00_00
                ? "The HTTP/2 response head is larger than libcurl accepts (128 KiB)."
                : "The HTTP/2 response head is larger than libcurl accepts."
        case .responseTooLarge where code == CURLE_OUT_OF_MEMORY || code == NetworkErrorCode.curlTooLarge:
            reason = "A line of the response head is longer than libcurl accepts (100 KiB)."
        case .responseTooLarge:
            reason = "The response head is larger than libcurl accepts (300 KiB)."
        case .timeout: reason = "The request took longer than \(options.timeout)."
        case .connectTimeout: reason = "Connecting took longer than \(min(options.connectTimeout, options.timeout))."
        default: reason = message
        }
        self.init(errorCode, reason: reason, context: context)
    }
}

extension NetworkErrorCode {
    /// Groups libcurl's many result codes into the network layer's stable codes.
    ///
    /// - Parameters:
    ///   - curlCode: What `curl_multi_info_read` reported.
    ///   - message: libcurl's error text for the failure.
    ///   - bodyLimitExceeded: Whether the write callback refused a body past the size limit.
    ///   - connected: Whether a connection had been established.
    init(curlCode: CURLcode, message: String = "", bodyLimitExceeded: Bool, connected: Bool) {
        switch curlCode {
        case CURLE_WRITE_ERROR where bodyLimitExceeded, CURLE_FILESIZE_EXCEEDED:
            self = .responseTooLarge
        case CURLE_UNSUPPORTED_PROTOCOL
        where message.hasPrefix("Protocol \"") || message.hasPrefix("The redirect target URL"):
            // The transport only sends http and https URLs, so a refused protocol came from a
            // Location header: https to http, or http(s) to anything else.
            self = .insecureRedirect
        case CURLE_UNSUPPORTED_PROTOCOL:
            // libcurl refuses the server's answer itself with the same code: no status line
            // ("Received HTTP/0.9 when not allowed", a service that is not HTTP), a status that is
            // not three digits, an HTTP version it does not speak. No redirect is involved.
            self = .protocolError
        case CURLE_URL_MALFORMAT:
            self = .invalidURL
        case CURLE_OPERATION_TIMEDOUT:
            self = connected ? .timeout : .connectTimeout
        case CURLE_COULDNT_RESOLVE_HOST:
            self = .cannotResolveHost
        case CURLE_COULDNT_CONNECT:
            self = .cannotConnect
        case CURLE_RECV_ERROR where message.hasPrefix("Too large response headers"):
            // A head past the 300 KiB libcurl accepts: the response is too large, not the
            // connection broken, and sending it again would get the same head.
            self = .responseTooLarge
        case CURLE_RECV_ERROR where message.contains(Self.http2HeadTooLargeMessage):
            // libcurl 7.88 keeps at most 128 KiB of an HTTP/2 head; past it, its header callback
            // fails nghttp2 with this code. Under Rebound's settings its other failures with the
            // same code (out of memory, libcurl's own inconsistencies) are far rarer, and none is
            // a passing failure of the connection either.
            self = .responseTooLarge
        case CURLE_RECV_ERROR where message.contains(Self.http2ReceiveFailureMessage):
            // nghttp2 refused what the server sent on the HTTP/2 connection (a bad header block,
            // a flood of frames): the server broke the protocol, the connection did not just drop.
            self = .protocolError
        case CURLE_RECV_ERROR where Self.isChunkedFramingFailure(message):
            // libcurl's chunked decoder refused the body's framing: the server broke the
            // protocol, the connection did not drop, and sending again would get the same answer.
            self = .protocolError
        case CURLE_RECV_ERROR
        where message.hasPrefix("CONNECT tunnel failed") || message.hasPrefix("CONNECT response too large"):
            // The proxy refused the tunnel to an https host ("CONNECT tunnel failed, response
            // 403", or 407 for credentials it wants), or its answer to CONNECT passed libcurl's
            // head limit: the proxy failed, and sending again would get the same refusal.
            self = .proxyFailure
        case CURLE_RECV_ERROR, CURLE_GOT_NOTHING:
            self = .connectionReset
        case CURLE_PARTIAL_FILE:
            self = .incompleteResponse
        case CURLE_SEND_ERROR where message.hasPrefix("Connection died"):
            // libcurl's word for a server that closed every connection it tried before answering;
            // it reports this as a send error, and only its text tells the two apart.
            self = .connectionReset
        case CURLE_SEND_ERROR:
            self = .sendFailed
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR,
            CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CLIENTCERT,
            CURLE_SSL_ENGINE_NOTFOUND,
            CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED, CURLE_USE_SSL_FAILED:
            self = .tlsFailure
        case CURLE_TOO_MANY_REDIRECTS:
            self = .tooManyRedirects
        case CURLE_WEIRD_SERVER_REPLY, CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_HTTP3, CURLE_BAD_CONTENT_ENCODING,
            CURLE_QUIC_CONNECT_ERROR, CURLE_HTTP_RETURNED_ERROR, CURLE_UNRECOVERABLE_POLL:
            self = .protocolError
        case CURLE_COULDNT_RESOLVE_PROXY, CURLE_PROXY:
            self = .proxyFailure
        case Self.curlTooLarge where connected && !message.hasPrefix("HTTP request too large"):
            // libcurl 8.6 and later name its limits on an answer (a line of the head past
            // 100 KiB) with a code of their own, where 7.88 ran out of memory (below).
            self = .responseTooLarge
        case Self.curlTooLarge:
            // Before anything was received, what grew too large was the request.
            self = .invalidRequest
        case CURLE_OUT_OF_MEMORY where connected:
            // libcurl 7.88 keeps at most 100 KiB of one line of a response head (the status line
            // included) and reports a longer one as running out of memory, with no text of its
            // own. Once a request went out, that is by far the likelier cause: the answer is too
            // large, and the transport is no less able to run the next request.
            self = .responseTooLarge
        case CURLE_FAILED_INIT, CURLE_OUT_OF_MEMORY, CURLE_NOT_BUILT_IN:
            self = .transportUnavailable
        case CURLE_BAD_FUNCTION_ARGUMENT where connected:
            // Once the request went out, what libcurl refuses is the server's answer: its header
            // store takes a trailer line without a colon for a bad argument ("Failed reading the
            // chunked-encoded stream"). The request's own options were all accepted before.
            self = .protocolError
        case CURLE_BAD_FUNCTION_ARGUMENT, CURLE_UNKNOWN_OPTION, CURLE_SETOPT_OPTION_SYNTAX:
            self = .invalidRequest
        default:
            self = .other
        }
    }

    /// `CURLE_TOO_LARGE`, which libcurl 8.6 and later report and the libcurl 7.88 headers
    /// Rebound builds against do not name.
    static let curlTooLarge = CURLcode(rawValue: 100)

    /// What libcurl's error text holds when nghttp2 refused what the server sent (7.88 begins it
    /// with `h2_process_pending_input: `, 8 with `process_pending_input: `).
    static let http2ReceiveFailureMessage = "nghttp2_session_mem_recv() returned "

    /// What it holds when the refusal came from libcurl's own callback
    /// (`NGHTTP2_ERR_CALLBACK_FAILURE`), which is what a head past libcurl 7.88's 128 KiB causes.
    static let http2HeadTooLargeMessage = http2ReceiveFailureMessage + "-902:"

    /// Whether libcurl's error text says its chunked decoder refused the body's framing: 7.88's
    /// "Illegal or missing hexadecimal sequence in chunked-encoding" and its kin; libcurl 8's "chunk
    /// hex-length char not a hex digit: 0x7a", "chunk hex-length longer than 16" and "invalid
    /// chunk size: '…'".
    static func isChunkedFramingFailure(_ message: String) -> Bool {
        message.hasSuffix(" in chunked-encoding") || message.hasPrefix("chunk hex-length")
            || message.hasPrefix("invalid chunk size")
    }
}
