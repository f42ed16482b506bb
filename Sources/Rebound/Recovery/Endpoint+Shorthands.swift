public import HTTPTypes

// The shorthands of `Endpoint`: one per method, for answers decoded from JSON (`returning:`) and
// for answers without a body. Each takes the path (`EndpointPath`: interpolated values are
// percent-encoded), query items (percent-encoded), a JSON body where the method has one, header
// fields, the error code, limits and options.

extension Endpoint where Response: Decodable {
    /// A `GET` whose answer is JSON decoded into `returning`.
    public static func get(
        _ path: EndpointPath,
        query: KeyValuePairs<String, String> = [:],
        headerFields: HTTPFields = [:],
        returning: Response.Type,
        errorCode: Code,
        limits: RequestLimits? = nil,
        options: EndpointOptions = EndpointOptions()
    ) -> Self {
        Self(
            .get, path, query: query, headerFields: headerFields, body: nil, errorCode: errorCode, limits: limits,
            options: options, decode: decodeJSON)
    }

    /// A `DELETE` whose answer is JSON decoded into `returning`.
    public static func delete(
        _ path: EndpointPath,
        query: KeyValuePairs<String, String> = [:],
        headerFields: HTTPFields = [:],
        returning: Response.Type,
        errorCode: Code,
        limits: RequestLimits? = nil,
        options: EndpointOptions = EndpointOptions()
    ) -> Self {
        Self(
            .delete, path, query: query, headerFields: headerFields, body: nil, errorCode: errorCode, limits: limits,
            options: options, decode: decodeJSON)
    }

    /// A `POST` with a JSON body, whose answer is JSON decoded into `returning`.
    public static func post(
        _ path: EndpointPath,
        query: KeyValuePairs<String, String> = [:],
        json: some Encodable & Sendable,
        headerFields: HTTPFields = [:],
        returning: Response.Type,
        errorCode: Code,
        limits: RequestLimits? = nil,
        options: EndpointOptions = EndpointOptions()
    ) -> Self {
        withBody(.post, path, query, json, headerFields, errorCode, limits, options)
    }

    /// A `PUT` with a JSON body, whose answer is JSON decoded into `returning`.
    public static func put(
        _ path: EndpointPath,
        query: KeyValuePairs<String, String> = [:],
        json: some Encodable & Sendable,
        headerFields: HTTPFields = [:],
        returning: Response.Type,
        errorCode: Code,
        limits: RequestLimits? = nil,
        options: EndpointOptions = EndpointOptions()
    ) -> Self {
        withBody(.put, path, query, json, headerFields, errorCode, limits, options)
    }

    /// A `PATCH` with a JSON body, whose answer is JSON decoded into `returning`.
    public static func patch(
        _ path: EndpointPath,
        query: KeyValuePairs<String, String> = [:],
        json: some Encodable & Sendable,
        headerFields: HTTPFields = [:],
        returning: Response.Type,
        errorCode: Code,
        limits: RequestLimits? = nil,
        options: EndpointOptions = EndpointOptions()
    ) -> Self {
        withBody(.patch, path, query, json, headerFields, errorCode, limits, options)
    }

    private static func withBody(
        _ method: HTTPRequest.Method,
        _ path: EndpointPath,
        _ query: KeyValuePairs<String, String>,
        _ json: some Encodable & Sendable,
        _ headerFields: HTTPFields,
        _ errorCode: Code,
        _ limits: RequestLimits?,
        _ options: EndpointOptions
    ) -> Self {
        Self(
            method, path, query: query, headerFields: headerFields, body: nil, errorCode: errorCode, limits: limits,
            options: options, decode: decodeJSON
        ).withJSONBody(json)
    }
}

extension Endpoint where Response == Void {
    /// A call whose answer has no body to read (a 204, or one whose body is ignored), with an
    /// optional JSON body.
    ///
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - path: The path; interpolated values are percent-encoded.
    ///   - query: Query items, percent-encoded.
    ///   - json: The body, encoded as JSON when the call is sent; `nil` for none.
    ///   - headerFields: Header fields of this call.
    ///   - errorCode: The code of the API error when the call fails.
    ///   - limits: Limits of this call, replacing the data manager's.
    ///   - options: Options that handlers read.
    public init(
        _ method: HTTPRequest.Method,
        _ path: EndpointPath,
        query: KeyValuePairs<String, String> = [:],
        json: (any Encodable & Sendable)? = nil,
        headerFields: HTTPFields = [:],
        errorCode: Code,
        limits: RequestLimits? = nil,
        options: EndpointOptions = EndpointOptions()
    ) {
        self.init(
            method, path, query: query, headerFields: headerFields, body: nil, errorCode: errorCode, limits: limits,
            options: options
        ) { _, _ in }
        if let json { self = withJSONBody(json) }
    }

    /// A `GET` whose answer has no body to read.
    public static func get(
        _ path: EndpointPath, query: KeyValuePairs<String, String> = [:], headerFields: HTTPFields = [:],
        errorCode: Code, limits: RequestLimits? = nil, options: EndpointOptions = EndpointOptions()
    ) -> Self {
        Self(
            .get, path, query: query, headerFields: headerFields, errorCode: errorCode, limits: limits, options: options
        )
    }

    /// A `DELETE` whose answer has no body to read.
    public static func delete(
        _ path: EndpointPath, query: KeyValuePairs<String, String> = [:], headerFields: HTTPFields = [:],
        errorCode: Code, limits: RequestLimits? = nil, options: EndpointOptions = EndpointOptions()
    ) -> Self {
        Self(
            .delete, path, query: query, headerFields: headerFields, errorCode: errorCode, limits: limits,
            options: options)
    }

    /// A `POST`, with a JSON body if `json` is given, whose answer has no body to read.
    public static func post(
        _ path: EndpointPath, query: KeyValuePairs<String, String> = [:], json: (any Encodable & Sendable)? = nil,
        headerFields: HTTPFields = [:], errorCode: Code, limits: RequestLimits? = nil,
        options: EndpointOptions = EndpointOptions()
    ) -> Self {
        Self(
            .post, path, query: query, json: json, headerFields: headerFields, errorCode: errorCode, limits: limits,
            options: options)
    }

    /// A `PUT` with a JSON body whose answer has no body to read.
    public static func put(
        _ path: EndpointPath, query: KeyValuePairs<String, String> = [:], json: any Encodable & Sendable,
        headerFields: HTTPFields = [:], errorCode: Code, limits: RequestLimits? = nil,
        options: EndpointOptions = EndpointOptions()
    ) -> Self {
        Self(
            .put, path, query: query, json: json, headerFields: headerFields, errorCode: errorCode, limits: limits,
            options: options)
    }

    /// A `PATCH` with a JSON body whose answer has no body to read.
    public static func patch(
        _ path: EndpointPath, query: KeyValuePairs<String, String> = [:], json: any Encodable & Sendable,
        headerFields: HTTPFields = [:], errorCode: Code, limits: RequestLimits? = nil,
        options: EndpointOptions = EndpointOptions()
    ) -> Self {
        Self(
            .patch, path, query: query, json: json, headerFields: headerFields, errorCode: errorCode, limits: limits,
            options: options)
    }
}
