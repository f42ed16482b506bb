import CCurl
import HTTPTypes
import Rebound

/// The options of a transfer that may change from one transfer to the next on the same easy
/// handle.
///
/// libcurl keeps an easy handle's options from one transfer to the next. Options every transfer
/// sets the same way are set once, when the handle is made (``CurlEasyHandle``); these are set
/// for every transfer by ``apply(to:requestBody:headerList:context:)``, the URL only when it
/// differs from the handle's previous one (``CurlEasyHandle/setURL(_:)``).
struct TransferSettings {
    var target: URLTarget
    var method: HTTPRequest.Method
    /// Whether the request goes out with a body, even an empty one (``sendsBody(method:hasBody:)``).
    var sendsBody: Bool
    var connectTimeout: Duration
    var timeout: Duration
    var maxFileSize: Int64
    var httpVersion: HTTPVersionPreference

    /// - Throws: `NetworkErrorCode.invalidURL` for a URL libcurl must never be given.
    init(request: HTTPRequest, hasBody: Bool, options: TransportOptions) throws(NetworkError) {
        target = try URLTarget(request)
        method = request.method
        sendsBody = Self.sendsBody(method: request.method, hasBody: hasBody)
        connectTimeout = options.connectTimeout
        timeout = options.timeout
        // Refuses early when Content-Length already says too much; the receiver guards the rest.
        // (Not for HEAD, whose Content-Length describes a body that never comes.)
        maxFileSize = method == .head ? 0 : Int64(max(0, options.maxResponseBodySize))
        httpVersion = options.httpVersion
    }

    /// Whether a request goes out with a body, even an empty one. POST always does; PUT and PATCH
    /// carry one by definition, so an empty one is sent as Content-Length: 0; HEAD never does;
    /// any other method does when it has one.
    static func sendsBody(method: HTTPRequest.Method, hasBody: Bool) -> Bool {
        switch method {
        case .post, .put, .patch: true
        case .head: false
        default: hasBody
        }
    }

    /// Sets these options on `easy`, and the pointers that are new with every transfer.
    ///
    /// - Parameters:
    ///   - easy: A handle not in use elsewhere.
    ///   - requestBody: The body, which must stay in place until the transfer ends.
    ///   - headerList: The header list, likewise.
    ///   - context: What libcurl hands the callbacks (`CURLOPT_PRIVATE` and the write data).
    /// - Throws: `NetworkErrorCode.invalidURL` for a URL libcurl refused,
    ///   `NetworkErrorCode.invalidRequest` for an option it refused.
    func apply(
        to easy: CurlEasyHandle,
        requestBody: UnsafeMutableRawBufferPointer?,
        headerList: UnsafeMutablePointer<curl_slist>?,
        context: UnsafeMutableRawPointer
    ) throws(NetworkError) {
        var failed: CURLcode = CURLE_OK
        func check(_ code: CURLcode) { if code != CURLE_OK && failed == CURLE_OK { failed = code } }
        let parsed = easy.setURL(target)
        guard parsed == CURLUE_OK else {
            // libcurl's text names what is wrong, never the URL itself, which may hold a secret.
            throw NetworkError(
                .invalidURL,
                reason: "libcurl rejected the URL: \(String(cString: curl_url_strerror(parsed)))",
                context: ["curlURLCode": "\(parsed.rawValue)"]
            )
        }
        check(easy.set(CURLOPT_PRIVATE, pointer: context))
        check(easy.set(CURLOPT_WRITEDATA, pointer: context))
        check(easy.set(CURLOPT_HEADERDATA, pointer: context))
        check(easy.set(CURLOPT_CONNECTTIMEOUT_MS, connectTimeout.curlMilliseconds))
        check(easy.set(CURLOPT_TIMEOUT_MS, timeout.curlMilliseconds))
        check(easy.set(CURLOPT_MAXFILESIZE_LARGE, offset: maxFileSize))
        switch httpVersion {
        case .automatic: check(easy.set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS)))
        case .http1: check(easy.set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_1_1)))
        case .http2PriorKnowledge: check(easy.set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE)))
        }
        // Where the connection may multiplex (HTTP/2), a burst to a host not yet connected waits
        // for the first connection to learn whether it does, instead of opening a connection per
        // request. Where it cannot (HTTP/1.1, which cleartext `automatic` always is), libcurl
        // would learn it only from the first response: a request sent beside a slow one (a
        // hedge) would wait for that answer.
        let mayMultiplex = httpVersion == .http2PriorKnowledge || (httpVersion == .automatic && target.usesTLS)
        check(easy.set(CURLOPT_PIPEWAIT, mayMultiplex ? 1 : 0))
        check(easy.set(CURLOPT_HTTPHEADER, pointer: headerList.map { UnsafeRawPointer($0) }))

        // Back to a plain GET, then the method. The order matters: setting POSTFIELDS, even to
        // nothing, makes the request a POST, and HTTPGET, set last, makes it a GET again (and
        // clears NOBODY and UPLOAD).
        check(easy.set(CURLOPT_POSTFIELDS, pointer: nil))
        check(easy.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: -1))
        check(easy.set(CURLOPT_CUSTOMREQUEST, pointer: nil))
        check(easy.set(CURLOPT_HTTPGET, 1))
        switch method {
        case .get where !sendsBody:
            break
        case .head:
            check(easy.set(CURLOPT_NOBODY, 1))
        case .post:
            setBody()
        default:
            check(easy.set(CURLOPT_CUSTOMREQUEST, method.rawValue))
            if sendsBody { setBody() }
        }
        func setBody() {
            check(easy.set(CURLOPT_POST, 1))
            check(easy.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: Int64(requestBody?.count ?? 0)))
            check(
                easy.set(
                    CURLOPT_POSTFIELDS, pointer: requestBody.map { UnsafeRawPointer($0.baseAddress!) } ?? emptyBody))
        }
        if failed != CURLE_OK {
            throw NetworkError(
                .invalidRequest,
                reason: "libcurl refused an option of the request.",
                context: [
                    "curlCode": "\(failed.rawValue)", "curlError": "\(String(cString: curl_easy_strerror(failed)))",
                ]
            )
        }
    }
}

/// A stable, valid address for an empty POST body: libcurl reads zero bytes from it.
private var emptyBody: UnsafeRawPointer { UnsafeRawPointer(("" as StaticString).utf8Start) }

/// Where a request goes, as libcurl is given it: checked, and compared with the previous
/// transfer's by its parts, so that the URL string is only built when it changes.
struct URLTarget: Equatable {
    var usesTLS: Bool
    var authority: String
    var path: String

    /// The target of `request`, or an `invalidURL` error for what libcurl must never be given.
    init(_ request: HTTPRequest) throws(NetworkError) {
        switch request.scheme {
        case "https": usesTLS = true
        case "http": usesTLS = false
        case let scheme? where scheme.lowercased() == "https": usesTLS = true
        case let scheme? where scheme.lowercased() == "http": usesTLS = false
        default: throw NetworkError(.invalidURL, reason: "The scheme must be http or https.")
        }
        guard var authority = request.authority, !authority.isEmpty else {
            throw NetworkError(.invalidURL, reason: "The request has no host.")
        }
        var path = request.path ?? "/"
        let forbidden: (UInt8) -> Bool = { $0 <= 0x20 || $0 == 0x7F }
        if authority.withUTF8({ $0.contains(where: forbidden) }) || path.withUTF8({ $0.contains(where: forbidden) }) {
            throw NetworkError(.invalidURL, reason: "The URL contains spaces or control characters.")
        }
        self.authority = authority
        self.path = path
    }

    /// The absolute URL.
    var url: String {
        var url = usesTLS ? "https://" : "http://"
        url.reserveCapacity(url.utf8.count + authority.utf8.count + path.utf8.count + 1)
        url += authority
        if !path.hasPrefix("/") { url += "/" }
        url += path
        return url
    }
}
