import CCurl
import Glibc

/// One libcurl easy handle and its error buffer, reused across transfers.
///
/// Reusing handles spares a `curl_easy_init` and its allocations per request; the connection and
/// DNS caches live in the multi handle, so reuse does not tie a handle to a connection.
/// A handle is used by one thread at a time: the caller that prepares a transfer, then the loop
/// thread while the transfer runs, then the idle pool, each handing it on through a lock. That is
/// why it can be `@unchecked Sendable`.
final class CurlEasyHandle: @unchecked Sendable {
    let raw: UnsafeMutableRawPointer
    /// libcurl writes a readable message here when a transfer fails.
    let errorBuffer: UnsafeMutablePointer<CChar>
    /// Requests sent for the current transfer: the first, and one per time libcurl sent the
    /// request again on a new connection, because the kept-alive
    /// one it used died before any answer or a GOAWAY refused its HTTP/2 stream. Counted on the
    /// loop thread by the pre-request callback, set back to zero by ``prepareForReuse()`` on the
    /// caller's thread after the idle pool's lock handed the handle over: never two threads at a
    /// time.
    var requestsSent = 0
    /// Where the parsed URL points (``url``), `nil` when unknown. Owned, like the handle, by one
    /// thread at a time.
    private var target: URLTarget?
    /// The TLS session cache this handle uses, kept alive as long as the handle is.
    private let share: CurlShare?
    /// The URL of the handle's transfers, parsed once per URL (``setURL(_:)``) and given to
    /// libcurl as a parsed URL (`CURLOPT_CURLU`), which it copies for each transfer. Given the
    /// string alone, libcurl parses it for every transfer and then writes it out again
    /// normalised, the same work again for every request to the same URL.
    private let url: OpaquePointer

    /// Makes a handle with the options that are the same for every transfer already set.
    ///
    /// - Parameters:
    ///   - writeBody: The callback that receives body bytes.
    ///   - writeHeader: The callback that receives header lines.
    ///   - share: The TLS session cache to use, shared with the transport's other handles.
    ///   - usesProxyEnvironment: Whether the environment named a proxy when the transport was
    ///     made (``environmentNamesProxy(_:)``); if not, libcurl is told there is none.
    init?(
        writeBody: curl_write_callback, writeHeader: curl_write_callback, share: CurlShare?,
        usesProxyEnvironment: Bool
    ) {
        guard let raw = curl_easy_init() else { return nil }
        guard let url = curl_url() else {
            curl_easy_cleanup(raw)
            return nil
        }
        self.raw = raw
        self.url = url
        self.share = share
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        let noProxy = !usesProxyEnvironment
        let settings = [
            set(CURLOPT_NOSIGNAL, 1),
            set(CURLOPT_CURLU, pointer: UnsafeRawPointer(url)),
            set(CURLOPT_ERRORBUFFER, pointer: errorBuffer),
            rebound_easy_setopt_write_function(raw, CURLOPT_WRITEFUNCTION, writeBody),
            rebound_easy_setopt_write_function(raw, CURLOPT_HEADERFUNCTION, writeHeader),
            rebound_easy_setopt_prereq_function(raw, CURLOPT_PREREQFUNCTION, countRequest),
            set(CURLOPT_PREREQDATA, pointer: Unmanaged.passUnretained(self).toOpaque()),
            share.map { set(CURLOPT_SHARE, pointer: UnsafeRawPointer($0.raw)) } ?? CURLE_OK,
            set(CURLOPT_PROTOCOLS_STR, "http,https"),
            // Redirects are followed by RedirectFollower, one transfer per hop (libcurl's default;
            // set here to say so).
            set(CURLOPT_FOLLOWLOCATION, 0),
            // Offers what this libcurl can decode (gzip, br, zstd) and turns decoding on. Without
            // any (a libcurl built without zlib), nothing is offered and nothing decoded.
            CurlGlobal.acceptedEncodings.map { set(CURLOPT_ACCEPT_ENCODING, $0) } ?? CURLE_OK,
            set(CURLOPT_TCP_KEEPALIVE, 1),
            // A proxy's answer to CONNECT is not the server's: kept from the header callback, it
            // never passes for the head of the response (ResponseReceiver).
            set(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1),
            // Without a proxy in the environment, libcurl is told there is none: otherwise it
            // reads the proxy variables and `no_proxy` again for every request, walking the whole
            // environment each time. With one, libcurl reads them as it always does.
            noProxy ? set(CURLOPT_PROXY, "") : CURLE_OK,
            noProxy ? set(CURLOPT_NOPROXY, "") : CURLE_OK,
            // CURLOPT_BUFFERSIZE stays at its 16 KiB default on purpose: libcurl 7.88 allocates the
            // receive buffer for every transfer and frees it when the transfer ends, and larger
            // buffers make malloc give the heap back to the system and fault it in again with
            // many transfers in flight, while large downloads gain nothing from them.
        ]
        guard settings.allSatisfy({ $0 == CURLE_OK }) else { return nil }
    }

    /// The variables libcurl 7.88 reads to find a proxy for an http or https request. It ignores
    /// `HTTP_PROXY` on purpose: a CGI program gets that one from a request's `Proxy` header.
    static let proxyVariables = ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]

    /// Whether a proxy variable is set and not empty (libcurl treats an empty one as no proxy).
    ///
    /// - Parameter value: Reads a variable; the process environment by default.
    static func environmentNamesProxy(
        _ value: (String) -> String? = { getenv($0).map { String(cString: $0) } }
    ) -> Bool {
        proxyVariables.contains { value($0)?.isEmpty == false }
    }

    deinit {
        curl_easy_cleanup(raw)
        curl_url_cleanup(url)
        errorBuffer.deallocate()
    }

    /// Points the handle's next transfers at `url`, an absolute http or https URL.
    ///
    /// libcurl reads the parsed URL (`CURLOPT_CURLU`) to connect and to write the request (a
    /// request sent again on a new connection included), and the string (`CURLOPT_URL`) only
    /// where it names the transfer's URL (`CURLINFO_EFFECTIVE_URL`, a `Referer` on a redirect):
    /// without the string, that name would stay the first URL the handle was given. Both are set.
    /// Parsed with no flags, the URL is held to the rules
    /// libcurl applies to the string (the scheme it guesses or the protocols it refuses do not
    /// arise: the scheme is http or https).
    ///
    /// - Returns: `CURLUE_OK`, or why libcurl rejected the URL (then the handle's URL is unknown,
    ///   and must be set again before the next transfer).
    func setURL(_ url: String) -> CURLUcode {
        target = nil
        let parsed = url.withCString { curl_url_set(self.url, CURLUPART_URL, $0, 0) }
        guard parsed == CURLUE_OK else { return parsed }
        return set(CURLOPT_URL, url) == CURLE_OK ? CURLUE_OK : CURLUE_OUT_OF_MEMORY
    }

    /// Points the handle's next transfers at `target`, unless its previous transfer went there:
    /// the URL is parsed, and its string built, only when it changes.
    func setURL(_ target: URLTarget) -> CURLUcode {
        guard self.target != target else { return CURLUE_OK }
        let parsed = setURL(target.url)
        if parsed == CURLUE_OK { self.target = target }
        return parsed
    }

    /// Readies the handle for its next transfer.
    func prepareForReuse() {
        errorBuffer[0] = 0
        requestsSent = 0
    }

    /// Whether libcurl sent the last transfer's request again on a new connection.
    ///
    /// Such a handle must not be reused (see `CurlMultiLoop.finish`): libcurl 7.88 counts those
    /// re-sends per handle, not per transfer, and gives up after five ("Connection died, tried 5
    /// times before giving up"); only `curl_easy_reset`, which clears every option, sets the count
    /// back. (A change to reset it for every transfer was proposed upstream in October 2025, curl
    /// pull request 19066.) An HTTP/2 request that libcurl sends again over HTTP/1.1 counts here
    /// too, which only costs a handle.
    var hasResent: Bool {
        requestsSent > 1
    }

    /// The message libcurl left in the error buffer, if any, with every URL in it screened
    /// (``CurlErrorText/screened(_:)``): libcurl copies a proxy URL it cannot use into it whole.
    var errorMessage: String? {
        errorBuffer[0] == 0 ? nil : CurlErrorText.screened(String(cString: errorBuffer))
    }

    @inline(__always)
    func set(_ option: CURLoption, _ value: Int) -> CURLcode {
        rebound_easy_setopt_long(raw, option, value)
    }

    @inline(__always)
    func set(_ option: CURLoption, offset value: Int64) -> CURLcode {
        rebound_easy_setopt_off_t(raw, option, curl_off_t(value))
    }

    @inline(__always)
    func set(_ option: CURLoption, _ value: String) -> CURLcode {
        // libcurl copies string options, so the temporary C string may go away afterwards.
        value.withCString { rebound_easy_setopt_string(raw, option, $0) }
    }

    @inline(__always)
    func set(_ option: CURLoption, pointer value: UnsafeRawPointer?) -> CURLcode {
        rebound_easy_setopt_pointer(raw, option, value)
    }

    @inline(__always)
    func info(long info: CURLINFO) -> Int {
        var value = 0
        _ = rebound_easy_getinfo_long(raw, info, &value)
        return value
    }

    @inline(__always)
    func info(offset info: CURLINFO) -> Int64 {
        var value: curl_off_t = 0
        _ = rebound_easy_getinfo_off_t(raw, info, &value)
        return Int64(value)
    }

    @inline(__always)
    func info(pointer info: CURLINFO) -> UnsafeMutableRawPointer? {
        var value: UnsafeMutableRawPointer?
        _ = rebound_easy_getinfo_pointer(raw, info, &value)
        return value
    }
}

/// libcurl's pre-request callback, called each time a request is about to go out on a connection.
private let countRequest: curl_prereq_callback = { handle, _, _, _, _ in
    Unmanaged<CurlEasyHandle>.fromOpaque(handle!).takeUnretainedValue().requestsSent += 1
    return CURL_PREREQFUNC_OK
}
