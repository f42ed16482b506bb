public import HTTPTypes

extension LayerError where Code == HTTPStatusCode {
    /// The context key of the response's `Content-Type`.
    static var contentTypeKey: String { "contentType" }

    /// The context key of the response's `Content-Length`.
    static var contentLengthKey: String { "contentLength" }

    /// The error for a response whose status says the request failed.
    ///
    /// The reason is the reason phrase the server sent, or the registered one when it sent none
    /// (HTTP/2 has no reason phrase). Of the header fields only `Content-Type` and
    /// `Content-Length` are kept, which say what kind of body came back (an HTML page from a proxy
    /// instead of the API's JSON); every other field may carry a secret (`Set-Cookie`,
    /// `WWW-Authenticate`, tokens in custom fields) and is never copied.
    ///
    /// - Parameters:
    ///   - response: The response head.
    ///   - cause: The error of the layer below, if there is one.
    ///   - fileID: Where the error is created; leave the default.
    ///   - line: Where the error is created; leave the default.
    public init(response: HTTPResponse, cause: (any Error)? = nil, fileID: String = #fileID, line: Int = #line) {
        let code = HTTPStatusCode(response.status)
        var context = ErrorContext()
        if let contentType = response.headerFields[.contentType] {
            context[Self.contentTypeKey] = ErrorContext.Value(UntrustedText.identifier(contentType))
        }
        if let contentLength = response.headerFields[.contentLength], (1...19).contains(contentLength.count),
            contentLength.allSatisfy({ $0.isASCII && $0.isNumber })
        {
            context[Self.contentLengthKey] = ErrorContext.Value(contentLength)
        }
        let phrase = response.status.reasonPhrase.trimmingSpaces
        // The registered phrase needs no screening; only a server's own words do.
        let reason =
            phrase.isEmpty || phrase == code.standardReasonPhrase
            ? code.standardReasonPhrase
            : UntrustedText.identifier(phrase)
        self.init(code, cause: cause, reason: reason, context: context, fileID: fileID, line: line)
    }
}

extension String {
    /// Without leading and trailing spaces and tabs, which a status line may pad its phrase with.
    fileprivate var trimmingSpaces: String {
        var text = Substring(self)
        while text.first == " " || text.first == "\t" { text.removeFirst() }
        while text.last == " " || text.last == "\t" { text.removeLast() }
        return String(text)
    }
}
