/// A request the loopback server answers, and how it answers it.
///
/// A route matches a method (or any method) and an exact path, without the query, or, made with
/// ``init(_:pathPrefix:handler:)``, a path and every path below it. A `GET` route also
/// answers `HEAD`, as servers do; the server sends the head of its reply without the body. The server
/// asks its routes in order and the first that matches handles the request; a request no route
/// matches gets `404 Not Found`.
///
/// ```swift
/// let server = try await LoopbackServer.start(routes: [
///     LoopbackRoute("GET", "/profile") { _ in .json(#"{"name":"Ada"}"#) },
///     LoopbackRoute("/flaky") { _ in .closeWithoutResponse },
/// ])
/// ```
public struct LoopbackRoute: Sendable {
    /// The method the route answers, such as `"GET"`, or `nil` for every method.
    public var method: String?
    /// The exact path the route answers, such as `"/hello"`.
    public var path: String
    /// Whether the route also answers every path below ``path``, such as `/v1/tasks/7` for `/v1`.
    ///
    /// An API with identifiers in its paths routes them itself, behind one route for its prefix.
    public var includesSubpaths: Bool
    /// Decides the reply to a matching request.
    public var handler: LoopbackServer.Handler

    /// Creates a route.
    ///
    /// - Parameters:
    ///   - method: The method to match, such as `"GET"`, or `nil` to match every method. Methods are
    ///     case-sensitive, as HTTP defines them.
    ///   - path: The exact path to match, without the query.
    ///   - handler: Decides the reply. It runs off the server's event loop and may suspend as long as it
    ///     likes; later requests on the same connection wait for it.
    public init(_ method: String? = nil, _ path: String, handler: @escaping LoopbackServer.Handler) {
        self.method = method
        self.path = path
        self.includesSubpaths = false
        self.handler = handler
    }

    /// Creates a route that answers `pathPrefix` and every path below it.
    ///
    /// `LoopbackRoute(pathPrefix: "/v1")` answers `/v1`, `/v1/` and `/v1/tasks/7`, but not `/v10`;
    /// `LoopbackRoute(pathPrefix: "/")` answers every path.
    ///
    /// - Parameters:
    ///   - method: The method to match, or `nil`, the default, to match every method.
    ///   - pathPrefix: The path to match with everything below it.
    ///   - handler: Decides the reply; see ``init(_:_:handler:)``.
    public init(_ method: String? = nil, pathPrefix: String, handler: @escaping LoopbackServer.Handler) {
        self.init(method, pathPrefix, handler: handler)
        includesSubpaths = true
    }

    /// Creates a route that answers every method on `path`.
    ///
    /// - Parameters:
    ///   - path: The exact path to match, without the query.
    ///   - handler: Decides the reply; see ``init(_:_:handler:)``.
    public init(_ path: String, handler: @escaping LoopbackServer.Handler) {
        self.init(nil, path, handler: handler)
    }

    /// Whether the route answers `request`.
    func matches(_ request: LoopbackRequest) -> Bool {
        Self.matches(request, method: method, path: path, includesSubpaths: includesSubpaths)
    }

    /// Whether `request` has `method` (any if `nil`; a `GET` also answers `HEAD`) and `path`, or, if
    /// `includesSubpaths`, a path below it: the rule of routes and of fault rules alike.
    static func matches(_ request: LoopbackRequest, method: String?, path: String, includesSubpaths: Bool) -> Bool {
        let subpathPrefix = path.hasSuffix("/") ? path : path + "/"
        guard request.path == path || (includesSubpaths && request.path.hasPrefix(subpathPrefix)) else {
            return false
        }
        guard let method else { return true }
        return method == request.method || (method == "GET" && request.method == "HEAD")
    }
}
