public import Foundation
public import HTTPTypes

/// One API call: the method, the path, the body, how to read the answer, and the code of the
/// caller's API error when it fails.
///
/// ```swift
/// let listTasks = Endpoint<[Task], APIErrorCode>(.get, "/v1/tasks", errorCode: .listTasksFailed)
/// let tasks = try await api.send(listTasks)        // throws(APIError)
/// ```
public struct Endpoint<Response: Sendable, Code: ErrorCode>: Sendable {
    /// The HTTP method.
    public var method: HTTPRequest.Method
    /// The path (and query) under the data manager's base URL, such as `/v1/tasks?limit=20`.
    public var path: String
    /// Header fields of this call.
    public var headerFields: HTTPFields
    /// The request body.
    public var body: Data?
    /// The code of the API error thrown when this call fails, such as `APIErrorCode.getTokenFailed`.
    public var errorCode: Code
    /// Limits of this call, replacing the data manager's when set.
    public var limits: RequestLimits?
    /// Reads a successful response into the result.
    public var decode: @Sendable (TransportResponse) throws(JSONError) -> Response

    public init(
        _ method: HTTPRequest.Method,
        _ path: String,
        headerFields: HTTPFields = [:],
        body: Data? = nil,
        errorCode: Code,
        limits: RequestLimits? = nil,
        decode: @escaping @Sendable (TransportResponse) throws(JSONError) -> Response
    ) {
        self.method = method
        self.path = path
        self.headerFields = headerFields
        self.body = body
        self.errorCode = errorCode
        self.limits = limits
        self.decode = decode
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
        limits: RequestLimits? = nil
    ) {
        self.init(method, path, headerFields: headerFields, body: body, errorCode: errorCode, limits: limits) {
            response throws(JSONError) in
            try JSONError.decode(Response.self, from: response.body)
        }
    }

    /// A call with a JSON body encoded from `value`.
    ///
    /// - Throws: ``JSONError`` with ``JSONErrorCode/encodingFailed`` when `value` cannot be encoded.
    public init(
        _ method: HTTPRequest.Method,
        _ path: String,
        json value: some Encodable,
        headerFields: HTTPFields = [:],
        errorCode: Code,
        limits: RequestLimits? = nil
    ) throws(JSONError) {
        let body: Data
        do {
            body = try JSONEncoder().encode(value)
        } catch {
            throw JSONError(.encodingFailed, cause: error, reason: "The request body could not be encoded.")
        }
        var fields = headerFields
        if fields[.contentType] == nil { fields[.contentType] = "application/json" }
        self.init(method, path, headerFields: fields, body: body, errorCode: errorCode, limits: limits)
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
        limits: RequestLimits? = nil
    ) {
        self.init(method, path, headerFields: headerFields, body: body, errorCode: errorCode, limits: limits) {
            $0
        }
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
