// The statuses permanently registered with IANA (https://www.iana.org/assignments/http-status-codes):
// RFC 9110 and its extensions. 306 is registered as "(Unused)" and has no meaning to name; temporary
// registrations (such as 104) are left out until they are permanent, because a name once released
// can never change.

extension HTTPStatusCode {
    // MARK: 1xx: informational

    /// 100 Continue, RFC 9110.
    public static let no100Continue = HTTPStatusCode(uncheckedRawValue: 100)

    /// 101 Switching Protocols, RFC 9110.
    public static let no101SwitchingProtocols = HTTPStatusCode(uncheckedRawValue: 101)

    /// 102 Processing, RFC 2518.
    public static let no102Processing = HTTPStatusCode(uncheckedRawValue: 102)

    /// 103 Early Hints, RFC 8297.
    public static let no103EarlyHints = HTTPStatusCode(uncheckedRawValue: 103)

    // MARK: 2xx: successful

    /// 200 OK, RFC 9110.
    public static let no200OK = HTTPStatusCode(uncheckedRawValue: 200)

    /// 201 Created, RFC 9110.
    public static let no201Created = HTTPStatusCode(uncheckedRawValue: 201)

    /// 202 Accepted, RFC 9110.
    public static let no202Accepted = HTTPStatusCode(uncheckedRawValue: 202)

    /// 203 Non-Authoritative Information, RFC 9110.
    public static let no203NonAuthoritativeInformation = HTTPStatusCode(uncheckedRawValue: 203)

    /// 204 No Content, RFC 9110.
    public static let no204NoContent = HTTPStatusCode(uncheckedRawValue: 204)

    /// 205 Reset Content, RFC 9110.
    public static let no205ResetContent = HTTPStatusCode(uncheckedRawValue: 205)

    /// 206 Partial Content, RFC 9110.
    public static let no206PartialContent = HTTPStatusCode(uncheckedRawValue: 206)

    /// 207 Multi-Status, RFC 4918.
    public static let no207MultiStatus = HTTPStatusCode(uncheckedRawValue: 207)

    /// 208 Already Reported, RFC 5842.
    public static let no208AlreadyReported = HTTPStatusCode(uncheckedRawValue: 208)

    /// 226 IM Used, RFC 3229.
    public static let no226IMUsed = HTTPStatusCode(uncheckedRawValue: 226)

    // MARK: 3xx: redirection

    /// 300 Multiple Choices, RFC 9110.
    public static let no300MultipleChoices = HTTPStatusCode(uncheckedRawValue: 300)

    /// 301 Moved Permanently, RFC 9110.
    public static let no301MovedPermanently = HTTPStatusCode(uncheckedRawValue: 301)

    /// 302 Found, RFC 9110.
    public static let no302Found = HTTPStatusCode(uncheckedRawValue: 302)

    /// 303 See Other, RFC 9110.
    public static let no303SeeOther = HTTPStatusCode(uncheckedRawValue: 303)

    /// 304 Not Modified, RFC 9110.
    public static let no304NotModified = HTTPStatusCode(uncheckedRawValue: 304)

    /// 305 Use Proxy, RFC 9110.
    public static let no305UseProxy = HTTPStatusCode(uncheckedRawValue: 305)

    /// 307 Temporary Redirect, RFC 9110.
    public static let no307TemporaryRedirect = HTTPStatusCode(uncheckedRawValue: 307)

    /// 308 Permanent Redirect, RFC 9110.
    public static let no308PermanentRedirect = HTTPStatusCode(uncheckedRawValue: 308)

    // MARK: 4xx: client error

    /// 400 Bad Request, RFC 9110.
    public static let no400BadRequest = HTTPStatusCode(uncheckedRawValue: 400)

    /// 401 Unauthorized, RFC 9110.
    public static let no401Unauthorized = HTTPStatusCode(uncheckedRawValue: 401)

    /// 402 Payment Required, RFC 9110.
    public static let no402PaymentRequired = HTTPStatusCode(uncheckedRawValue: 402)

    /// 403 Forbidden, RFC 9110.
    public static let no403Forbidden = HTTPStatusCode(uncheckedRawValue: 403)

    /// 404 Not Found, RFC 9110.
    public static let no404NotFound = HTTPStatusCode(uncheckedRawValue: 404)

    /// 405 Method Not Allowed, RFC 9110.
    public static let no405MethodNotAllowed = HTTPStatusCode(uncheckedRawValue: 405)

    /// 406 Not Acceptable, RFC 9110.
    public static let no406NotAcceptable = HTTPStatusCode(uncheckedRawValue: 406)

    /// 407 Proxy Authentication Required, RFC 9110.
    public static let no407ProxyAuthenticationRequired = HTTPStatusCode(uncheckedRawValue: 407)

    /// 408 Request Timeout, RFC 9110.
    public static let no408RequestTimeout = HTTPStatusCode(uncheckedRawValue: 408)

    /// 409 Conflict, RFC 9110.
    public static let no409Conflict = HTTPStatusCode(uncheckedRawValue: 409)

    /// 410 Gone, RFC 9110.
    public static let no410Gone = HTTPStatusCode(uncheckedRawValue: 410)

    /// 411 Length Required, RFC 9110.
    public static let no411LengthRequired = HTTPStatusCode(uncheckedRawValue: 411)

    /// 412 Precondition Failed, RFC 9110.
    public static let no412PreconditionFailed = HTTPStatusCode(uncheckedRawValue: 412)

    /// 413 Content Too Large, RFC 9110.
    public static let no413ContentTooLarge = HTTPStatusCode(uncheckedRawValue: 413)

    /// 414 URI Too Long, RFC 9110.
    public static let no414URITooLong = HTTPStatusCode(uncheckedRawValue: 414)

    /// 415 Unsupported Media Type, RFC 9110.
    public static let no415UnsupportedMediaType = HTTPStatusCode(uncheckedRawValue: 415)

    /// 416 Range Not Satisfiable, RFC 9110.
    public static let no416RangeNotSatisfiable = HTTPStatusCode(uncheckedRawValue: 416)

    /// 417 Expectation Failed, RFC 9110.
    public static let no417ExpectationFailed = HTTPStatusCode(uncheckedRawValue: 417)

    /// 418 I'm a teapot, RFC 2324 (an April Fools' joke that stuck; RFC 9110 reserves the number).
    public static let no418ImATeapot = HTTPStatusCode(uncheckedRawValue: 418)

    /// 421 Misdirected Request, RFC 9110.
    public static let no421MisdirectedRequest = HTTPStatusCode(uncheckedRawValue: 421)

    /// 422 Unprocessable Content, RFC 9110.
    public static let no422UnprocessableContent = HTTPStatusCode(uncheckedRawValue: 422)

    /// 423 Locked, RFC 4918.
    public static let no423Locked = HTTPStatusCode(uncheckedRawValue: 423)

    /// 424 Failed Dependency, RFC 4918.
    public static let no424FailedDependency = HTTPStatusCode(uncheckedRawValue: 424)

    /// 425 Too Early, RFC 8470.
    public static let no425TooEarly = HTTPStatusCode(uncheckedRawValue: 425)

    /// 426 Upgrade Required, RFC 9110.
    public static let no426UpgradeRequired = HTTPStatusCode(uncheckedRawValue: 426)

    /// 428 Precondition Required, RFC 6585.
    public static let no428PreconditionRequired = HTTPStatusCode(uncheckedRawValue: 428)

    /// 429 Too Many Requests, RFC 6585.
    public static let no429TooManyRequests = HTTPStatusCode(uncheckedRawValue: 429)

    /// 431 Request Header Fields Too Large, RFC 6585.
    public static let no431RequestHeaderFieldsTooLarge = HTTPStatusCode(uncheckedRawValue: 431)

    /// 451 Unavailable For Legal Reasons, RFC 7725.
    public static let no451UnavailableForLegalReasons = HTTPStatusCode(uncheckedRawValue: 451)

    // MARK: 5xx: server error

    /// 500 Internal Server Error, RFC 9110.
    public static let no500InternalServerError = HTTPStatusCode(uncheckedRawValue: 500)

    /// 501 Not Implemented, RFC 9110.
    public static let no501NotImplemented = HTTPStatusCode(uncheckedRawValue: 501)

    /// 502 Bad Gateway, RFC 9110.
    public static let no502BadGateway = HTTPStatusCode(uncheckedRawValue: 502)

    /// 503 Service Unavailable, RFC 9110.
    public static let no503ServiceUnavailable = HTTPStatusCode(uncheckedRawValue: 503)

    /// 504 Gateway Timeout, RFC 9110.
    public static let no504GatewayTimeout = HTTPStatusCode(uncheckedRawValue: 504)

    /// 505 HTTP Version Not Supported, RFC 9110.
    public static let no505HTTPVersionNotSupported = HTTPStatusCode(uncheckedRawValue: 505)

    /// 506 Variant Also Negotiates, RFC 2295.
    public static let no506VariantAlsoNegotiates = HTTPStatusCode(uncheckedRawValue: 506)

    /// 507 Insufficient Storage, RFC 4918.
    public static let no507InsufficientStorage = HTTPStatusCode(uncheckedRawValue: 507)

    /// 508 Loop Detected, RFC 5842.
    public static let no508LoopDetected = HTTPStatusCode(uncheckedRawValue: 508)

    /// 510 Not Extended, RFC 2774 (obsoleted, still registered).
    public static let no510NotExtended = HTTPStatusCode(uncheckedRawValue: 510)

    /// 511 Network Authentication Required, RFC 6585.
    public static let no511NetworkAuthenticationRequired = HTTPStatusCode(uncheckedRawValue: 511)
}

extension HTTPStatusCode {
    /// The registered reason phrases, which the names are made from.
    ///
    /// A name is part of a chain's identity, so a phrase here never changes once released, even if
    /// the registry rewords it (RFC 9110 renamed 413 and 422; these are the new names).
    static let standardReasonPhrases: [Int: String] = [
        100: "Continue",
        101: "Switching Protocols",
        102: "Processing",
        103: "Early Hints",
        200: "OK",
        201: "Created",
        202: "Accepted",
        203: "Non-Authoritative Information",
        204: "No Content",
        205: "Reset Content",
        206: "Partial Content",
        207: "Multi-Status",
        208: "Already Reported",
        226: "IM Used",
        300: "Multiple Choices",
        301: "Moved Permanently",
        302: "Found",
        303: "See Other",
        304: "Not Modified",
        305: "Use Proxy",
        307: "Temporary Redirect",
        308: "Permanent Redirect",
        400: "Bad Request",
        401: "Unauthorized",
        402: "Payment Required",
        403: "Forbidden",
        404: "Not Found",
        405: "Method Not Allowed",
        406: "Not Acceptable",
        407: "Proxy Authentication Required",
        408: "Request Timeout",
        409: "Conflict",
        410: "Gone",
        411: "Length Required",
        412: "Precondition Failed",
        413: "Content Too Large",
        414: "URI Too Long",
        415: "Unsupported Media Type",
        416: "Range Not Satisfiable",
        417: "Expectation Failed",
        418: "I'm a teapot",
        421: "Misdirected Request",
        422: "Unprocessable Content",
        423: "Locked",
        424: "Failed Dependency",
        425: "Too Early",
        426: "Upgrade Required",
        428: "Precondition Required",
        429: "Too Many Requests",
        431: "Request Header Fields Too Large",
        451: "Unavailable For Legal Reasons",
        500: "Internal Server Error",
        501: "Not Implemented",
        502: "Bad Gateway",
        503: "Service Unavailable",
        504: "Gateway Timeout",
        505: "HTTP Version Not Supported",
        506: "Variant Also Negotiates",
        507: "Insufficient Storage",
        508: "Loop Detected",
        510: "Not Extended",
        511: "Network Authentication Required",
    ]
}
