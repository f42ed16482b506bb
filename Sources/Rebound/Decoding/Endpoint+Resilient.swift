public import HTTPTypes
#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

extension Endpoint where Response: Decodable {
    /// A call whose successful response is decoded resiliently, reporting what it recovered from.
    ///
    /// A response that decodes partly succeeds with what could be read: `@Resilient` properties
    /// of `Response` leave out or replace what failed. Each recovered error then goes, as
    /// `LayerError(errorCode, cause: JSONError(…))` (short chain `AP8-JS1-DE1`), to `observer`,
    /// or when the endpoint has none, to ``ResilientDecoding/observer`` of the calling task. A
    /// response that cannot be decoded at all fails the call as with the plain initializer, with
    /// the JSON layer in its chain (`AP8-JS3-DE3`).
    ///
    /// ```swift
    /// let listTasks = Endpoint<TaskList, APIErrorCode>(
    ///     resilient: .get, "/v1/tasks", errorCode: .listTasksFailed, observer: reporting
    /// )
    /// let list = try await api.send(listTasks)     // a malformed task is left out and reported
    /// ```
    ///
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - path: The path (and query) under the data manager's base URL.
    ///   - headerFields: Header fields of this call.
    ///   - body: The request body.
    ///   - errorCode: The code of the API error when the call fails, and of the recovered errors.
    ///   - limits: Limits of this call, replacing the data manager's when set.
    ///   - options: Options that handlers read.
    ///   - decoder: The decoder whose options to decode with (it is never changed); `nil` for the
    ///     data manager's.
    ///   - observer: Receives the recovered errors of each response that had any.
    public init(
        resilient method: HTTPRequest.Method,
        _ path: String,
        headerFields: HTTPFields = [:],
        body: Data? = nil,
        errorCode: Code,
        limits: RequestLimits? = nil,
        options: EndpointOptions = EndpointOptions(),
        decoder: JSONDecoder? = nil,
        observer: (any PartialDecodingObserver)? = nil
    ) {
        let label = Self.label(method: method, path: path)
        self.init(
            method, EndpointPath(encoded: path), headerFields: headerFields, body: body, errorCode: errorCode,
            limits: limits, options: options
        ) { response, managerDecoder throws(JSONError) in
            let (value, digest) = try ResilientDecoding.decode(
                Response.self, from: response.body, decoder: decoder ?? managerDecoder)
            if !digest.errors.isEmpty, let observer = observer ?? ResilientDecoding.observer {
                observer.recovered(digest.errors(under: errorCode, context: ["endpoint": "\(label)"]))
            }
            return value
        }
    }
}
