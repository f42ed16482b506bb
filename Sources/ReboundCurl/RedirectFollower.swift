import HTTPTypes
import Rebound
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Follows redirects on the transport's side, one transfer per hop: libcurl follows none
/// (`CURLOPT_FOLLOWLOCATION` stays off), so that every hop is checked against the one before.
///
/// - A hop from `https` never goes to `http`, even when the request started on `http` and an
///   earlier hop went up to `https`; `http` may go to `https`; no other protocol is followed.
/// - Secrets never cross origins: `Authorization`, `Cookie`, `Proxy-Authorization` and every
///   field marked secret (`indexingStrategy = .disallow`, HTTP's "never index" flag for sensitive
///   values, which `AuthRefreshHandler` sets on its own) are dropped, with a caller's `Host`,
///   when a hop leaves the scheme, host and port it came from.
/// - Methods change as RFC 9110 (section 15.4) and browsers change them: 303 turns anything but
///   HEAD into a GET without a body; 301 and 302 turn a POST into one; 300, 307 and 308 repeat
///   the request with its method and body.
/// - Only GET, HEAD and POST are followed. RFC 9110 asks a client to take care with automatic
///   redirects of methods that are not safe; a PUT, PATCH or DELETE gets the redirect itself
///   back, for its caller to decide.
enum RedirectFollower {
    /// How many redirects the transport follows for `request`, or `nil` when it follows none.
    static func limit(for request: HTTPRequest, options: TransportOptions) -> Int? {
        guard case .follow(let max) = options.redirects, followsRedirects(request.method) else { return nil }
        return max
    }

    /// Whether redirects of `method` are followed at all.
    static func followsRedirects(_ method: HTTPRequest.Method) -> Bool {
        method == .get || method == .head || method == .post
    }

    /// The request to send after `response`, or `nil` when `response` is not a redirect to follow
    /// (then it is the answer).
    ///
    /// - Parameters:
    ///   - response: The response to `request`.
    ///   - request: The request that got it.
    ///   - body: The request's body.
    ///   - followed: How many redirects were followed before this one.
    ///   - max: How many may be followed.
    /// - Throws: `NetworkErrorCode.tooManyRedirects` past `max`, `NetworkErrorCode.insecureRedirect`
    ///   for a redirect from https to http or to another protocol, `NetworkErrorCode.invalidURL` for
    ///   a Location that is not a URL.
    static func next(
        after response: TransportResponse,
        to request: HTTPRequest,
        body: Data?,
        followed: Int,
        max: Int
    ) throws(NetworkError) -> (request: HTTPRequest, body: Data?)? {
        let code = response.status.code
        guard [300, 301, 302, 303, 307, 308].contains(code),
            let location = response.head.headerFields[.location], !location.isEmpty
        else { return nil }
        guard followed < max else {
            throw NetworkError(.tooManyRedirects, reason: "Maximum (\(Swift.max(0, max))) redirects followed.")
        }
        let wasTLS = request.scheme?.lowercased() == "https"
        let path = request.path ?? "/"
        let authority = request.authority ?? ""
        guard
            let base = URL(
                string: "\(wasTLS ? "https" : "http")://\(authority)\(path.hasPrefix("/") ? "" : "/")\(path)"),
            let here = Origin(base),
            let target = URL(string: location, relativeTo: base)?.absoluteURL
        else {
            throw NetworkError(.invalidURL, reason: "The redirect's Location is not a URL.")
        }
        let scheme = target.scheme?.lowercased()
        guard scheme == "https" || (scheme == "http" && !wasTLS) else {
            throw NetworkError(
                .insecureRedirect,
                reason: "A redirect to a protocol other than \(wasTLS ? "https" : "http or https") was refused."
            )
        }
        // The host exactly as libcurl will read it: a name or an IP address, nothing percent-encoded,
        // so that the origin compared here is the one libcurl connects to.
        guard let there = Origin(target) else {
            throw NetworkError(
                .invalidURL, reason: "The redirect's Location has a host that is not a plain name or address.")
        }
        let sameOrigin = here == there

        var next = request
        next.scheme = scheme
        // Credentials written into the authority (user:password@) stay with their origin, as in libcurl.
        let userInfo = sameOrigin ? authority.lastIndex(of: "@").map { String(authority[...$0]) } ?? "" : ""
        next.authority = userInfo + there.authority
        let components = URLComponents(url: target, resolvingAgainstBaseURL: false)
        let nextPath = components?.percentEncodedPath ?? ""
        next.path = (nextPath.isEmpty ? "/" : nextPath) + (components?.percentEncodedQuery.map { "?\($0)" } ?? "")

        var nextBody = body
        // RFC 9110, section 15.4: 303 turns anything but HEAD into a GET, and 301 and 302 turn a
        // POST into one (as browsers do); 300, 307 and 308 repeat the request as it was.
        if (code == 303 && request.method != .head) || ((code == 301 || code == 302) && request.method == .post) {
            next.method = .get
            nextBody = nil
            next.headerFields[.contentType] = nil
            next.headerFields[.contentLength] = nil
        }
        if !sameOrigin {
            // A caller's Host names the first origin, not this one.
            next.headerFields = HTTPFields(next.headerFields.filter { !isSecret($0) && $0.name != host })
        }
        return (next, nextBody)
    }

    /// `Host`, which HTTPTypes spells only through the request's authority.
    private static let host = HTTPField.Name("Host")!

    /// What must not follow a redirect to another origin.
    static func isSecret(_ field: HTTPField) -> Bool {
        field.indexingStrategy == .disallow || field.name == .authorization || field.name == .cookie
            || field.name == .proxyAuthorization
    }

    /// Scheme, host and port of a URL, read the way libcurl reads them.
    struct Origin: Equatable {
        let scheme: String
        /// Lowercased; an IPv6 address without its brackets.
        let host: String
        let port: Int

        /// `nil` when the URL's host is not a plain name (letters, digits, `-`, `.`, `_`) or address:
        /// anything percent-encoded, or a character that ends a host for libcurl (`/`, `?`, `#`,
        /// `@`, `\`), could make libcurl connect to another host than the one compared.
        init?(_ url: URL) {
            guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
                var host = url.host(percentEncoded: true)?.lowercased(), !host.isEmpty
            else { return nil }
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            let isName = host.utf8.allSatisfy { byte in
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                    || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
                    // Not allowed in hostnames (RFC 952), but common in internal DNS names.
                    || byte == UInt8(ascii: "_")
            }
            let isIPv6 =
                host.contains(":")
                && host.utf8.allSatisfy { byte in
                    (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f"))
                        || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                        || byte == UInt8(ascii: ":") || byte == UInt8(ascii: ".")
                }
            guard isName || isIPv6 else { return nil }
            self.scheme = scheme
            self.host = host
            self.port = url.port ?? (scheme == "https" ? 443 : 80)
        }

        /// `host:port`, brackets around an IPv6 address, the port left out when it is the default.
        var authority: String {
            let name = host.contains(":") ? "[\(host)]" : host
            return port == (scheme == "https" ? 443 : 80) ? name : "\(name):\(port)"
        }
    }
}
