import HTTPTypes

/// OpenTelemetry's semantic conventions for HTTP clients (v1.44): the names and values of the
/// attributes of attempt spans and of `http.client.request.duration`, every value bounded and
/// free of secrets (docs/observability.md lists them).
enum HTTPClientConventions {
    /// The methods the conventions know; any other is `_OTHER`.
    static let knownMethods: Set<String> = [
        "CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "TRACE",
    ]

    /// `http.request.method`: the method, or `_OTHER` for one the conventions do not know.
    static func method(_ method: HTTPRequest.Method) -> String {
        knownMethods.contains(method.rawValue) ? method.rawValue : "_OTHER"
    }

    /// The span name, `{method} {url.template}`: `GET /v1/tasks/{}`; `HTTP` stands for an unknown
    /// method. Never the path as sent, whose values (ids) would make every span name different.
    static func spanName(method: HTTPRequest.Method, template: String) -> String {
        let known = Self.method(method)
        return (known == "_OTHER" ? "HTTP" : known) + " " + template
    }

    /// The template without any query, which an endpoint spelled as a plain string may hold.
    static func pathTemplate(basePath: String, template: String) -> String {
        let path = template.utf8.firstIndex(of: UInt8(ascii: "?")).map { String(template[..<$0]) } ?? template
        return basePath + path
    }

    /// `server.address` and `server.port` from an authority such as `api.example.com`,
    /// `127.0.0.1:8080` or `[::1]:8080`; the port defaults to the scheme's.
    static func server(authority: String, scheme: String) -> (address: String, port: Int) {
        let defaultPort = scheme == "https" ? 443 : 80
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            let address = String(authority[authority.index(after: authority.startIndex)..<close])
            let rest = authority[authority.index(after: close)...]
            return (address, rest.hasPrefix(":") ? Int(rest.dropFirst()) ?? defaultPort : defaultPort)
        }
        guard let colon = authority.lastIndex(of: ":") else { return (authority, defaultPort) }
        return (String(authority[..<colon]), Int(authority[authority.index(after: colon)...]) ?? defaultPort)
    }

    /// `url.full`: the URL as sent, with every query value replaced by `REDACTED` (a query item
    /// without `=` is replaced whole), since queries carry tokens and keys.
    static func redactedURL(scheme: String, authority: String, path: String) -> String {
        let prefix = scheme + "://" + authority
        guard let question = path.firstIndex(of: "?") else { return prefix + path }
        let query = path[path.index(after: question)...]
        let items = query.split(separator: "&", omittingEmptySubsequences: false).map { item in
            guard let equals = item.firstIndex(of: "=") else { return item.isEmpty ? "" : "REDACTED" }
            return item[..<equals] + "=REDACTED"
        }
        return prefix + path[..<question] + "?" + items.joined(separator: "&")
    }

    /// `error.type` of an attempt: the status as a string from 400 on, the ``NetworkErrorCode``'s
    /// name (`timeout`, `cannotConnect`, `cancelled`…) when no response came, `_OTHER` for any other
    /// failure without a response; `nil` when the HTTP exchange itself succeeded (a 2xx whose body
    /// did not decode is a failure of the call, in `rebound.chain`, not of the HTTP request).
    static func errorType(status: Int?, error: (any Error)?) -> String? {
        if let status { return status >= 400 ? String(status) : nil }
        guard let error else { return nil }
        return error.firstError(in: NetworkErrorCode.self)?.code.name ?? "_OTHER"
    }
}
