import CCurl
import Foundation
import HTTPTypes
import Rebound
import Synchronization

/// One request on its way through libcurl.
///
/// A transfer is prepared on the caller's thread (URL, header list, body, options: the work that
/// can run in parallel), then handed to the ``CurlMultiLoop``, which alone touches it while libcurl
/// runs it, and finally handed back through the continuation, after which only the caller reads it.
/// The hand-offs go through a lock and a continuation, which order the accesses; that is why this
/// class can be `@unchecked Sendable`.
final class CurlTransfer: @unchecked Sendable {
    /// What the loop reports when a transfer ends.
    enum Outcome {
        case completed(CURLcode, Completion)
        case stalled
        case cancelled
        case unavailable(String)
    }

    /// Facts read from the easy handle on the loop thread before it is reused.
    struct Completion {
        var status: Int
        var httpVersion: Int
        var newConnections: Int
        /// Time until the request could be sent: zero when no connection was ever ready. (The
        /// connect time alone is zero on a reused connection too.)
        var pretransferMicroseconds: Int64
        var errorMessage: String?
        /// The head of the last response, from its status line to the empty line.
        var head: [UInt8]
    }

    let options: TransportOptions
    let easy: CurlEasyHandle
    let stallTimeoutNanoseconds: UInt64
    private let usesTLS: Bool
    /// Whether the request is a HEAD, whose answer has no body whatever its head says.
    private let isHead: Bool
    private let headerList: RequestHeaderList
    private let requestBody: UnsafeMutableRawBufferPointer?

    /// Set by the caller before submission; resumed exactly once by the loop.
    var continuation: UnsafeContinuation<Outcome, Never>?
    /// Whether the caller's task runs on the loop's own executor, set before submission: such a
    /// caller is resumed at once, since that only queues it for the loop's next turn.
    var resumesOnLoop = false
    /// Set from any thread when the caller's task is cancelled.
    let cancellation = Atomic<Bool>(false)
    /// Set by the loop when it is done with the transfer, read by the caller before it reads the
    /// buffers: an explicit release/acquire pair, so that the hand-back is ordered for every
    /// observer (the thread sanitizer included), not only through the continuation's resumption.
    private let handedBack = Atomic<Bool>(false)

    // Loop-thread state while the transfer runs; the caller reads the first three after completion.
    //
    // `@exclusivity(unchecked)`: one thread at a time owns this state (the loop while the transfer
    // runs, then the caller, through the hand-back above), and no access overlaps another, so the
    // dynamic exclusivity check Swift makes on every access to a class's `var` only costs: about
    // 100 instructions each, a thread-local lookup included, and libcurl's header callback makes
    // two per header line (docs/performance.md). The thread sanitizer still checks the hand-offs.
    @exclusivity(unchecked) var body = Data()
    @exclusivity(unchecked) var bodyLimitExceeded = false
    @exclusivity(unchecked) var isActive = false
    /// Where the loop keeps it while it is active.
    @exclusivity(unchecked) var activeIndex = 0
    @exclusivity(unchecked) var bytesReceived = 0
    /// Whether the head being received ended (its empty line came): what follows is the body and
    /// perhaps trailers, or, after an interim response, the real response's head.
    @exclusivity(unchecked) var headEnded = false
    /// Whether the head being received is an interim one (1xx), whose request the next head
    /// answers too.
    @exclusivity(unchecked) var headIsInterim = false
    /// Whether the head being received frames a body by its `Content-Length`: not the answer to
    /// a HEAD, nor a 1xx, 204 or 304, which end with their head (RFC 9112, section 6.3).
    @exclusivity(unchecked) var headFramesBody = false
    /// The length the head being received announced, once a `Content-Length` came.
    @exclusivity(unchecked) var announcedLength: Int64?
    /// Whether the head's `Content-Length` fields disagreed, which ended the transfer.
    @exclusivity(unchecked) var lengthsDisagree = false
    @exclusivity(unchecked) var lastProgressBytes = -1
    @exclusivity(unchecked) var lastProgressTime: UInt64 = 0

    /// Prepares a transfer for `request` on `easy`, which must not be in use elsewhere.
    init(
        request: HTTPRequest,
        body: Data?,
        options: TransportOptions,
        easy: CurlEasyHandle
    ) throws(NetworkError) {
        let target = try URLTarget(request)
        self.options = options
        self.easy = easy
        usesTLS = target.usesTLS
        isHead = request.method == .head
        if let previous = easy.settings, previous.stallTimeout == options.stallTimeout {
            stallTimeoutNanoseconds = previous.stallTimeoutNanoseconds
        } else {
            stallTimeoutNanoseconds = options.stallTimeout.clampedNanoseconds
        }
        if let body {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(body.count, 1), alignment: 1)
            body.copyBytes(to: buffer.bindMemory(to: UInt8.self), count: body.count)
            requestBody = UnsafeMutableRawBufferPointer(rebasing: buffer[..<body.count])
        } else {
            requestBody = nil
        }
        let sendsBody = Self.sendsBody(method: request.method, hasBody: body != nil)
        headerList = RequestHeaderList(request.headerFields, sendsBody: sendsBody)
        try configure(target: target, method: request.method, sendsBody: sendsBody)
    }

    deinit {
        requestBody?.deallocate()
    }

    // MARK: - Preparing

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

    private func configure(target: URLTarget, method: HTTPRequest.Method, sendsBody: Bool) throws(NetworkError) {
        let me = Unmanaged.passUnretained(self).toOpaque()
        var failed: CURLcode = CURLE_OK
        func check(_ code: CURLcode) { if code != CURLE_OK && failed == CURLE_OK { failed = code } }

        // Options every transfer sets the same way were set once, when the handle was made
        // (CurlEasyHandle.init). libcurl keeps the others from one transfer to the next, so those
        // that are the same as the handle's previous transfer's are not set again: each setting
        // costs libcurl a few hundred instructions, and a string one a copy (docs/performance.md).
        let settings = TransferSettings(
            target: target,
            connectTimeout: options.connectTimeout,
            timeout: options.timeout,
            // Refuses early when Content-Length already says too much; the write callback guards
            // the rest. (Not for HEAD, whose Content-Length describes a body that never comes.)
            maxFileSize: method == .head ? 0 : Int64(Swift.max(0, options.maxResponseBodySize)),
            httpVersion: options.httpVersion,
            isPlainGet: method == .get && !sendsBody,
            stallTimeout: options.stallTimeout,
            stallTimeoutNanoseconds: stallTimeoutNanoseconds
        )
        let previous = easy.settings
        // Unknown until every option below is in place.
        easy.settings = nil

        if previous?.target != target {
            let parsed = easy.setURL(target.url)
            guard parsed == CURLUE_OK else {
                // libcurl's text names what is wrong, never the URL itself, which may hold a secret.
                throw NetworkError(
                    .invalidURL,
                    reason: "libcurl rejected the URL: \(String(cString: curl_url_strerror(parsed)))",
                    context: ["curlURLCode": "\(parsed.rawValue)"]
                )
            }
        }
        check(easy.set(CURLOPT_PRIVATE, pointer: me))
        check(easy.set(CURLOPT_WRITEDATA, pointer: me))
        check(easy.set(CURLOPT_HEADERDATA, pointer: me))
        if previous?.connectTimeout != settings.connectTimeout {
            check(easy.set(CURLOPT_CONNECTTIMEOUT_MS, options.connectTimeout.curlMilliseconds))
        }
        if previous?.timeout != settings.timeout {
            check(easy.set(CURLOPT_TIMEOUT_MS, options.timeout.curlMilliseconds))
        }
        if previous?.maxFileSize != settings.maxFileSize {
            check(easy.set(CURLOPT_MAXFILESIZE_LARGE, offset: settings.maxFileSize))
        }
        if previous?.httpVersion != settings.httpVersion {
            switch options.httpVersion {
            case .automatic: check(easy.set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS)))
            case .http1: check(easy.set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_1_1)))
            case .http2PriorKnowledge: check(easy.set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE)))
            }
        }
        check(easy.set(CURLOPT_HTTPHEADER, pointer: headerList.head.map { UnsafeRawPointer($0) }))

        // A plain GET after a plain GET leaves the method options as they are. Otherwise: back
        // to a plain GET, then the method. The order matters: setting POSTFIELDS, even to
        // nothing, makes the request a POST, and HTTPGET, set last, makes it a GET again (and
        // clears NOBODY and UPLOAD).
        if !(settings.isPlainGet && previous?.isPlainGet == true) {
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
        easy.settings = settings
    }

    /// A new easy handle wired to the transfer callbacks.
    static func makeHandle(
        certificateAuthorityFile: String?, share: CurlShare?, usesProxyEnvironment: Bool
    ) -> CurlEasyHandle? {
        guard
            let handle = CurlEasyHandle(
                writeBody: curlWriteBody, writeHeader: curlWriteHeader, share: share,
                usesProxyEnvironment: usesProxyEnvironment)
        else {
            return nil
        }
        if let certificateAuthorityFile, handle.set(CURLOPT_CAINFO, certificateAuthorityFile) != CURLE_OK {
            return nil
        }
        return handle
    }

    /// Records, from any thread, that the caller's task was cancelled, for a transfer not yet started.
    func markCancelled() {
        cancellation.store(true, ordering: .releasing)
    }

    /// Called by the loop after its last touch of the transfer, before resuming the caller.
    func markHandedBack() {
        handedBack.store(true, ordering: .releasing)
    }

    /// Whether the caller's task was cancelled.
    var isCancelled: Bool {
        cancellation.load(ordering: .acquiring)
    }

    // MARK: - Receiving (loop thread)

    @inline(__always)
    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if body.count + bytes.count > options.maxResponseBodySize {
            bodyLimitExceeded = true
            return false
        }
        if body.isEmpty {
            // Allocate the body once, when it starts to arrive, as long as its Content-Length says
            // (libcurl's value for the response being received; -1 when it sent none).
            let announced = Int(easy.info(offset: CURLINFO_CONTENT_LENGTH_DOWNLOAD_T))
            if announced > bytes.count { body.reserveCapacity(min(announced, options.maxResponseBodySize)) }
        }
        body.append(bytes.assumingMemoryBound(to: UInt8.self))
        bytesReceived &+= bytes.count
        return true
    }

    /// Takes one line from libcurl's header callback: a status line, a field, the empty line that
    /// ends a head, or a trailer field of a chunked body.
    ///
    /// Trailer fields are dropped: they are not header fields (RFC 9110, section 6.5.1), and taken
    /// for them, they added to what the head said after the body, or, shaped like a status line,
    /// replaced the head whole. Only after an interim response does a status line start a new
    /// head, and then the interim one is forgotten. (libcurl follows no redirect: a transfer
    /// receives one response, and perhaps interim ones before it.)
    ///
    /// A head whose `Content-Length` fields disagree (`5` and `7`, or `5, 7`) ends the transfer:
    /// libcurl would take one of them, and which one the server, or a proxy between, meant is
    /// unknowable, and so is where the next response on the connection starts (RFC 9112, section
    /// 6.3). Returns false then. (Not for a head that frames no body: see ``headFramesBody``.)
    @inline(__always)
    func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytesReceived &+= bytes.count
        if headEnded {
            guard headIsInterim, let status = ResponseHeadParser.statusCode(ofStatusLine: bytes)
            else { return true }
            easy.head.removeAll()
            headEnded = false
            announcedLength = nil
            startHead(status: status)
        } else if easy.head.isEmpty {
            startHead(status: ResponseHeadParser.statusCode(ofStatusLine: bytes) ?? 0)
        } else if headFramesBody, let length = ResponseHeadParser.announcedLength(inFieldLine: bytes) {
            if length == ResponseHeadParser.conflictingLengths || (announcedLength ?? length) != length {
                lengthsDisagree = true
                return false
            }
            announcedLength = length
        }
        easy.head.append(bytes)
        // libcurl hands the empty line that ends a head over on its own.
        if bytes[0] == UInt8(ascii: "\r") || bytes[0] == UInt8(ascii: "\n") { headEnded = true }
        return true
    }

    /// Notes what may follow a head with `status`: an interim response (1xx) is followed by the
    /// real one. (A proxy's answer to CONNECT never reaches the header callback:
    /// `CURLOPT_SUPPRESS_CONNECT_HEADERS`.)
    private func startHead(status: Int) {
        headIsInterim = (100..<200).contains(status)
        headFramesBody = !isHead && !headIsInterim && status != 204 && status != 304
    }

    /// Reads what the caller will need from the easy handle, before the loop reuses it.
    func completion() -> Completion {
        Completion(
            status: easy.info(long: CURLINFO_RESPONSE_CODE),
            httpVersion: easy.info(long: CURLINFO_HTTP_VERSION),
            newConnections: easy.info(long: CURLINFO_NUM_CONNECTS),
            pretransferMicroseconds: easy.info(offset: CURLINFO_PRETRANSFER_TIME_T),
            errorMessage: easy.errorMessage,
            head: easy.head.bytes
        )
    }

    /// Uploaded bytes so far, which count as progress for the stall limit.
    func bytesUploaded() -> Int {
        requestBody == nil ? 0 : Int(easy.info(offset: CURLINFO_SIZE_UPLOAD_T))
    }

    // MARK: - Finishing (caller's thread)

    /// Turns the loop's outcome into a response or a network error.
    func result(of outcome: Outcome) -> Result<TransportResponse, NetworkError> {
        _ = handedBack.load(ordering: .acquiring)
        switch outcome {
        case .completed(let code, let completion) where code == CURLE_OK:
            return .success(response(completion))
        case .completed(let code, let completion):
            return .failure(error(for: code, completion))
        case .stalled:
            return .failure(
                NetworkError(
                    .stalled,
                    reason: "No bytes moved for \(options.stallTimeout).",
                    context: ["stallTimeout": "\(options.stallTimeout)"]
                )
            )
        case .cancelled:
            return .failure(NetworkError(.cancelled, reason: "The request's task was cancelled."))
        case .unavailable(let why):
            return .failure(NetworkError(.transportUnavailable, reason: why))
        }
    }

    private func response(_ completion: Completion) -> TransportResponse {
        // The header fields are parsed only when someone reads them: the status is all that most
        // callers look at, and parsing the fields was the largest part of Swift's own work per
        // request (docs/performance.md).
        let status = HTTPResponse.Status(
            code: completion.status, reasonPhrase: ResponseHeadParser.reasonPhrase(in: completion.head))
        let version: String
        switch completion.httpVersion {
        case Int(CURL_HTTP_VERSION_1_0): version = "1.0"
        case Int(CURL_HTTP_VERSION_2_0): version = "2"
        case Int(CURL_HTTP_VERSION_3): version = "3"
        default: version = "1.1"
        }
        return TransportResponse(
            deferredHead: DeferredResponseHead(status: status, raw: completion.head, parser: Self.parseHead),
            body: body,
            info: TransferInfo(
                httpVersion: version,
                newConnections: completion.newConnections
            )
        )
    }

    private static let parseHead: DeferredResponseHead.Parser = { raw, status in
        HTTPResponse(status: status, headerFields: ResponseHeadParser.fields(in: raw))
    }

    private func error(for code: CURLcode, _ completion: Completion) -> NetworkError {
        let message = completion.errorMessage ?? String(cString: curl_easy_strerror(code))
        let context: ErrorContext = ["curlCode": "\(code.rawValue)", "curlError": "\(message)"]
        if code == CURLE_WRITE_ERROR && lengthsDisagree {
            return NetworkError(
                .protocolError, reason: "The response's Content-Length fields disagree.", context: context)
        }
        let errorCode = NetworkErrorCode(
            curlCode: code,
            message: message,
            bodyLimitExceeded: bodyLimitExceeded,
            connected: completion.pretransferMicroseconds > 0 || bytesReceived > 0
        )
        let reason: String
        switch errorCode {
        case .responseTooLarge where bodyLimitExceeded || code == CURLE_FILESIZE_EXCEEDED:
            reason = "The response body is larger than \(options.maxResponseBodySize) bytes."
        case .responseTooLarge where message.hasPrefix(NetworkErrorCode.http2HeadTooLargeMessage):
            // libcurl's own limits on a response head, which no option changes.
            reason = "The HTTP/2 response head is larger than libcurl accepts (128 KiB)."
        case .responseTooLarge where code == CURLE_OUT_OF_MEMORY:
            reason = "A line of the response head is longer than libcurl accepts (100 KiB)."
        case .responseTooLarge:
            reason = "The response head is larger than libcurl accepts (300 KiB)."
        case .insecureRedirect:
            reason = "A redirect to a protocol other than \(usesTLS ? "https" : "http or https") was refused."
        case .timeout: reason = "The request took longer than \(options.timeout)."
        case .connectTimeout: reason = "Connecting took longer than \(min(options.connectTimeout, options.timeout))."
        default: reason = message
        }
        return NetworkError(errorCode, reason: reason, context: context)
    }
}

/// A stable, valid address for an empty POST body: libcurl reads zero bytes from it.
private var emptyBody: UnsafeRawPointer { UnsafeRawPointer(("" as StaticString).utf8Start) }

/// libcurl's body callback: appends to the transfer's buffer, or refuses past the size limit.
private let curlWriteBody: curl_write_callback = { pointer, size, count, userData in
    let length = size * count
    guard length > 0, let pointer else { return 0 }
    // Returning less than `length` makes libcurl abort the transfer with CURLE_WRITE_ERROR. The
    // transfer is alive while libcurl runs it (the loop holds it), so it is used without a retain.
    let accepted = Unmanaged<CurlTransfer>.fromOpaque(userData!)._withUnsafeGuaranteedRef {
        $0.receiveBody(UnsafeRawBufferPointer(start: pointer, count: length))
    }
    return accepted ? length : 0
}

/// libcurl's header callback: one whole header line per call.
private let curlWriteHeader: curl_write_callback = { pointer, size, count, userData in
    let length = size * count
    guard length > 0, let pointer else { return length }
    let accepted = Unmanaged<CurlTransfer>.fromOpaque(userData!)._withUnsafeGuaranteedRef {
        $0.receiveHeaderLine(UnsafeRawBufferPointer(start: pointer, count: length))
    }
    // Less than `length` makes libcurl abort the transfer with CURLE_WRITE_ERROR.
    return accepted ? length : 0
}

/// The options of a transfer that may change from one transfer to the next on the same handle, as
/// last set on it (see ``CurlEasyHandle/settings``).
struct TransferSettings {
    /// The URL.
    var target: URLTarget
    var connectTimeout: Duration
    var timeout: Duration
    var maxFileSize: Int64
    var httpVersion: HTTPVersionPreference
    /// A GET without a body: the method options as resetting them to a GET leaves them.
    var isPlainGet: Bool
    /// Not a libcurl option: kept so that the next transfer with the same limit need not convert it.
    var stallTimeout: Duration
    var stallTimeoutNanoseconds: UInt64
}

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
