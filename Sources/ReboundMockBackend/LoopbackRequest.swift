internal import Foundation
public import HTTPTypes

/// A request as the loopback server saw it on the wire.
///
/// Everything is kept as the client sent it, so a test can check exactly what its HTTP client put on
/// the wire: the method and target unchanged, header fields in order with repeats and original
/// spelling, the body as raw bytes. ``path`` and ``query`` are derived from ``target`` for routing
/// and for reading parameters.
///
/// ```swift
/// LoopbackRoute("POST", "/login") { request in
///     #expect(request.header("content-type") == "application/json")
///     return .respond(status: 204)
/// }
/// ```
public struct LoopbackRequest: Sendable {
    /// The method, as sent: `"GET"`, `"POST"`.
    public var method: String
    /// The request target, as sent: the path plus the query, such as `"/echo?x=1"`.
    public var target: String
    /// The path of ``target`` without the query, not percent-decoded: routes match it exactly.
    public var path: String
    /// The query items of ``target``, percent-decoded; when a name repeats, the last value wins.
    ///
    /// A `+` is kept as it is, not turned into a space: the query is read as a URL query, not as
    /// a form. An item without `=` has the empty string as its value.
    public var query: [String: String]
    /// The header fields in the order they arrived, repeats kept, names spelled as sent.
    public var headers: [(name: String, value: String)]
    /// The body, with any chunked framing already removed.
    public var body: [UInt8]
    /// The 1-based number of the TCP connection the request came on, in the order the server accepted them.
    ///
    /// Two requests with the same number came on the same connection, which is how a test sees that a
    /// client reused a connection.
    public var connectionNumber: Int
    /// The HTTP version of the request line, such as `"1.1"` or `"1.0"`.
    public var httpVersion: String

    /// Creates a request, deriving ``path`` and ``query`` from `target`.
    ///
    /// The server builds these itself; the initializer is public so that a route handler can be
    /// unit-tested without a server.
    ///
    /// - Parameters:
    ///   - method: The method, such as `"GET"`.
    ///   - target: The request target: a path with an optional query (`"/a?b=c"`), or an absolute URL
    ///     as a client sends it to a proxy, whose path and query are then used.
    ///   - headers: The header fields in order.
    ///   - body: The body bytes.
    ///   - connectionNumber: The 1-based number of the connection the request came on.
    ///   - httpVersion: The HTTP version, such as `"1.1"`.
    public init(
        method: String,
        target: String,
        headers: [(name: String, value: String)] = [],
        body: [UInt8] = [],
        connectionNumber: Int = 1,
        httpVersion: String = "1.1"
    ) {
        self.method = method
        self.target = target
        let (path, query) = Self.splitTarget(target)
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.connectionNumber = connectionNumber
        self.httpVersion = httpVersion
    }

    /// The first value of the header field named `name`, compared case-insensitively, or `nil` if absent.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    /// Every value of the header field named `name`, in order, compared case-insensitively.
    public func headerValues(_ name: String) -> [String] {
        headers.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
    }

    /// The header fields as `HTTPFields`, for code that works with swift-http-types.
    ///
    /// A field whose name or value swift-http-types rejects is left out; ``headers`` has every field.
    public var headerFields: HTTPFields {
        var fields = HTTPFields()
        for (name, value) in headers {
            guard let fieldName = HTTPField.Name(name) else { continue }
            fields.append(HTTPField(name: fieldName, value: value))
        }
        return fields
    }

    /// The body read as UTF-8, with invalid sequences replaced.
    public var bodyText: String {
        String(decoding: body, as: UTF8.self)
    }

    /// Splits a request target into its path and its decoded query items.
    private static func splitTarget(_ target: String) -> (path: String, query: [String: String]) {
        var pathAndQuery = Substring(target)
        // An absolute-form target ("http://host:port/path?q"), as sent to a proxy: keep what follows the authority.
        if !pathAndQuery.hasPrefix("/"), let schemeEnd = pathAndQuery.range(of: "://") {
            let afterScheme = pathAndQuery[schemeEnd.upperBound...]
            let pathStart = afterScheme.firstIndex { $0 == "/" || $0 == "?" } ?? afterScheme.endIndex
            // "http://host?q" has an empty path, which means "/".
            let rest = afterScheme[pathStart...]
            pathAndQuery = rest.hasPrefix("/") ? rest : Substring("/" + rest)
        }
        if let fragmentStart = pathAndQuery.firstIndex(of: "#") {
            pathAndQuery = pathAndQuery[..<fragmentStart]
        }
        guard let queryStart = pathAndQuery.firstIndex(of: "?") else {
            return (String(pathAndQuery), [:])
        }
        var query: [String: String] = [:]
        for item in pathAndQuery[pathAndQuery.index(after: queryStart)...].split(separator: "&") {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = percentDecoded(parts[0])
            query[name] = parts.count > 1 ? percentDecoded(parts[1]) : ""
        }
        return (String(pathAndQuery[..<queryStart]), query)
    }

    /// `text` with percent escapes decoded, or unchanged if it holds a malformed escape.
    private static func percentDecoded(_ text: Substring) -> String {
        String(text).removingPercentEncoding ?? String(text)
    }
}
