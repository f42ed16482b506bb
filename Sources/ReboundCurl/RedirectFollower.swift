import Foundation
import HTTPTypes
import Rebound

/// Follows redirects on the transport's side, for requests that carry secrets libcurl would
/// forward to another host.
///
/// libcurl 7.88 drops `Authorization` and `Cookie` when a redirect leaves the host, and nothing
/// else: a token in a field of another name (`X-Api-Key`) would reach whatever host the redirect
/// names. A field marked secret (`indexingStrategy = .disallow`, HTTP's "never index" flag for
/// sensitive values, which ``AuthRefreshHandler`` sets on its own) makes the transport follow the
/// redirects itself, one transfer per hop, and drop the secrets when a hop leaves the origin.
/// Requests without such a field are left to libcurl, which is faster.
enum RedirectFollower {
    /// Whether `request` needs the transport to follow its redirects itself.
    static func mustFollow(_ request: HTTPRequest, options: TransportOptions) -> Bool {
        guard case .follow = options.redirects, followsRedirects(request.method) else { return false }
        return request.headerFields.contains { field in
            field.indexingStrategy == .disallow && field.name != .authorization && field.name != .cookie
        }
    }

    /// Whether redirects of `method` are followed at all. libcurl keeps a custom method on every
    /// redirect and drops the body, so only GET, HEAD and POST (which becomes a GET) are followed.
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
        guard [301, 302, 303, 307, 308].contains(code),
            let location = response.head.headerFields[.location], !location.isEmpty
        else { return nil }
        guard followed < max else {
            throw NetworkError(.tooManyRedirects, reason: "Maximum (\(Swift.max(0, max))) redirects followed.")
        }
        let wasTLS = request.scheme?.lowercased() == "https"
        guard let base = URL(string: "\(wasTLS ? "https" : "http")://\(request.authority ?? "")\(request.path ?? "/")"),
            let target = URL(string: location, relativeTo: base)?.absoluteURL,
            let host = target.host, !host.isEmpty
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

        var next = request
        next.scheme = scheme
        let hostPart = host.contains(":") ? "[\(host)]" : host
        next.authority = target.port.map { "\(hostPart):\($0)" } ?? hostPart
        let components = URLComponents(url: target, resolvingAgainstBaseURL: false)
        let path = components?.percentEncodedPath ?? ""
        next.path = (path.isEmpty ? "/" : path) + (components?.percentEncodedQuery.map { "?\($0)" } ?? "")

        var nextBody = body
        // As libcurl and browsers do: 303 turns anything but HEAD into a GET, and 301 and 302 turn
        // a POST into one; 307 and 308 repeat the request as it was.
        if (code == 303 && request.method != .head) || ((code == 301 || code == 302) && request.method == .post) {
            next.method = .get
            nextBody = nil
            next.headerFields[.contentType] = nil
            next.headerFields[.contentLength] = nil
        }
        if origin(of: request) != origin(of: next) {
            next.headerFields = HTTPFields(next.headerFields.filter { !isSecret($0) })
        }
        return (next, nextBody)
    }

    /// What must not follow a redirect to another origin.
    static func isSecret(_ field: HTTPField) -> Bool {
        field.indexingStrategy == .disallow || field.name == .authorization || field.name == .cookie
            || field.name == .proxyAuthorization
    }

    /// Scheme, host and port, with the scheme's default port filled in and case folded.
    private static func origin(of request: HTTPRequest) -> String {
        let scheme = request.scheme?.lowercased() ?? ""
        var authority = (request.authority ?? "").lowercased()
        if let userInfo = authority.lastIndex(of: "@") {
            authority = String(authority[authority.index(after: userInfo)...])
        }
        let hasPort = authority.last.map(\.isNumber) == true && authority.contains(":") && !authority.hasSuffix("]")
        if !hasPort { authority += scheme == "https" ? ":443" : ":80" }
        return "\(scheme)://\(authority)"
    }
}
