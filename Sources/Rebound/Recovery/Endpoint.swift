public import HTTPTypes

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// One API call: the method, the path, the body, how to read the answer, and the code of the
/// caller's API error when it fails.
///
/// The shorthands read as the call they make; the types come from their arguments:
///
/// ```swift
/// let tasks = try await api.send(
///     .get("/v1/tasks", query: ["page": "2"], returning: [TaskItem].self, errorCode: APIErrorCode.listTasksFailed))
/// try await api.send(.post("/v1/tasks/\(id)/answers", json: answer, errorCode: APIErrorCode.submitFailed))
/// ```
///
/// Values interpolated into the path and query items are percent-encoded (``EndpointPath``). A
/// JSON body is encoded when the call is sent, with the data manager's encoder: an encoding
/// failure comes out of `send` as the endpoint's error over a ``JSONError``. An endpoint built
/// without `returning:` expects no body (a 204, or an answer whose body is ignored).
///
/// The spelled-out form builds any call:
///
/// ```swift
/// let listTasks = Endpoint<[TaskItem], APIErrorCode>(.get, "/v1/tasks", errorCode: .listTasksFailed)
/// ```
public struct Endpoint<Response: Sendable, Code: ErrorCode>: Sendable {
    /// The HTTP method.
    public var method: HTTPRequest.Method
    /// The path and query under the data manager's base URL, as sent (percent-encoded), such as
    /// `/v1/tasks?limit=20`.
    public var path: String
    /// The path with its interpolated values replaced by `{}`, such as `/v1/tasks/{}`: how traces
    /// and metrics may name the endpoint without its values.
    public var template: String
    /// Header fields of this call.
    public var headerFields: HTTPFields
    /// The request body.
    public var body: Data?
    /// The code of the API error thrown when this call fails, such as `APIErrorCode.getTokenFailed`.
    public var errorCode: Code
    /// Limits of this call, replacing the data manager's when set.
    public var limits: RequestLimits?
    /// Options that handlers read, such as ``EndpointOptions/skippedHandlers``.
    public var options: EndpointOptions
    /// Reads a successful response into the result, with the data manager's decoder.
    public var decode: @Sendable (TransportResponse, JSONDecoder) throws(JSONError) -> Response
    /// Encodes the body with the data manager's encoder when the call is sent (JSON bodies).
    @usableFromInline var encodeBody: (@Sendable (JSONEncoder) throws(JSONError) -> Data)?
    /// The path as built from an ``EndpointPath`` with a value that names another resource
    /// (``EndpointPath/hasMisleadingValue``): calls fail unsent while ``path`` is still this one.
    @usableFromInline var misleadingPath: String?

    /// A call whose answer `decode` reads.
    ///
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - path: The path and query as sent, already percent-encoded; a path with bytes a path
    ///     may not hold fails the call with ``NetworkErrorCode/invalidURL``.
    ///   - headerFields: Header fields of this call.
    ///   - body: The request body.
    ///   - errorCode: The code of the API error when the call fails.
    ///   - limits: Limits of this call, replacing the data manager's.
    ///   - options: Options that handlers read.
    ///   - decode: Reads a successful response.
    public init(
        _ method: HTTPRequest.Method,
        _ path: String,
        headerFields: HTTPFields = [:],
        body: Data? = nil,
        errorCode: Code,
        limits: RequestLimits? = nil,
        options: EndpointOptions = EndpointOptions(),
        decode: @escaping @Sendable (TransportResponse) throws(JSONError) -> Response
    ) {
        self.init(
            method, EndpointPath(encoded: path), headerFields: headerFields, body: body, errorCode: errorCode,
            limits: limits, options: options
        ) { response, _ throws(JSONError) in try decode(response) }
    }

    init(
        _ method: HTTPRequest.Method,
        _ path: EndpointPath,
        query: KeyValuePairs<String, String> = [:],
        headerFields: HTTPFields,
        body: Data?,
        errorCode: Code,
        limits: RequestLimits?,
        options: EndpointOptions,
        decode: @escaping @Sendable (TransportResponse, JSONDecoder) throws(JSONError) -> Response
    ) {
        self.method = method
        self.path = query.isEmpty ? path.encoded : path.encoded + "?" + Self.encoded(query)
        self.template = path.template
        misleadingPath = path.hasMisleadingValue ? self.path : nil
        self.headerFields = headerFields
        self.body = body
        self.errorCode = errorCode
        self.limits = limits
        self.options = options
        self.decode = decode
    }

    /// `name=value&…`, each percent-encoded.
    private static func encoded(_ query: KeyValuePairs<String, String>) -> String {
        query.map { name, value in
            PercentEncoding.encode(name, allowing: PercentEncoding.queryBytes) + "="
                + PercentEncoding.encode(value, allowing: PercentEncoding.queryBytes)
        }.joined(separator: "&")
    }

    /// This endpoint with `handlers` left out of its calls (``EndpointOptions/skippedHandlers``).
    public func skipping(_ handlers: HandlerSelector...) -> Self {
        var copy = self
        copy.options.skippedHandlers += handlers
        return copy
    }

    /// This endpoint with its body encoded as JSON from `value` when it is sent.
    func withJSONBody(_ value: some Encodable & Sendable) -> Self {
        var copy = self
        copy.encodeBody = { encoder throws(JSONError) in
            do {
                return try encoder.encode(value)
            } catch {
                throw JSONError(.encodingFailed, cause: error, reason: "The request body could not be encoded.")
            }
        }
        if copy.headerFields[.contentType] == nil { copy.headerFields[.contentType] = "application/json" }
        return copy
    }
}

extension Endpoint where Response: Decodable {
    /// A call whose successful response is JSON decoded into `Response`.
    public init(
        _ method: HTTPRequest.Method,
        _ path: String,
        headerFields: HTTPFields = [:],
        body: Data? = nil,
        errorCode: Code,
        limits: RequestLimits? = nil,
        options: EndpointOptions = EndpointOptions()
    ) {
        self.init(
            method, EndpointPath(encoded: path), headerFields: headerFields, body: body, errorCode: errorCode,
            limits: limits, options: options, decode: Self.decodeJSON
        )
    }

    /// A call with a JSON body encoded from `value` when it is sent.
    public init(
        _ method: HTTPRequest.Method,
        _ path: String,
        json value: some Encodable & Sendable,
        headerFields: HTTPFields = [:],
        errorCode: Code,
        limits: RequestLimits? = nil,
        options: EndpointOptions = EndpointOptions()
    ) {
        self = Self(method, path, headerFields: headerFields, errorCode: errorCode, limits: limits, options: options)
            .withJSONBody(value)
    }

    @Sendable static func decodeJSON(_ response: TransportResponse, with decoder: JSONDecoder) throws(JSONError)
        -> Response
    {
        try JSONError.decode(Response.self, from: response.body, decoder: decoder)
    }
}

extension Endpoint where Response == TransportResponse {
    /// A call whose successful response is returned whole, undecoded.
    public init(
        raw method: HTTPRequest.Method,
        _ path: String,
        headerFields: HTTPFields = [:],
        body: Data? = nil,
        errorCode: Code,
        limits: RequestLimits? = nil,
        options: EndpointOptions = EndpointOptions()
    ) {
        self.init(
            method, EndpointPath(encoded: path), headerFields: headerFields, body: body, errorCode: errorCode,
            limits: limits, options: options
        ) { response, _ in response }
    }
}

extension Endpoint {
    /// `GET /v1/tasks`: the method and the path without its query, which may carry secrets. This is
    /// how logs, spans and errors name a call.
    static func label(method: HTTPRequest.Method, path: String) -> String {
        endpointLabel(method: method, path: path)
    }
}

/// ``Endpoint/label(method:path:)`` for code that does not know the endpoint's types.
func endpointLabel(method: HTTPRequest.Method, path: String) -> String {
    let withoutQuery = path.utf8.firstIndex(of: UInt8(ascii: "?")).map { String(path[..<$0]) } ?? path
    return method.rawValue + " " + withoutQuery
}
