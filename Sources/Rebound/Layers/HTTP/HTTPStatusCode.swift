public import HTTPTypes

/// The HTTP layer's error: the server answered, and its status says the request failed.
///
/// This is the `HT` layer of Rebound's error chains, between the backend's own error payload and
/// the network: `BackendError.validationFailure - HTTPError.no400BadRequest`. Its code is the
/// status itself, so `HT503` reads as what it is in a short chain.
public typealias HTTPError = LayerError<HTTPStatusCode>

/// The codes of ``HTTPError``: one per HTTP status.
///
/// A struct over the status number rather than an enum, because a server may answer with any
/// three-digit status, registered or not, and every one of them must still have a stable code.
/// The raw value is the status, which is as stable as an identity can be. Registered statuses get
/// a name that spells out their meaning (`no404NotFound`); any other status is just its number
/// (`no499`).
public struct HTTPStatusCode: ErrorCode, CustomStringConvertible {
    public static let domain = "HTTPError"
    public static let shortName = "HT"

    /// The statuses that have a code: the range `HTTPResponse.Status` accepts.
    ///
    /// Only `100...999` can arrive over the wire; the lower numbers are included so that every
    /// `HTTPResponse.Status` a program can build converts without a failure case.
    public static let validRange = 0...999

    /// The status number.
    public let rawValue: Int

    /// The code of a status number, or `nil` outside ``validRange``.
    public init?(rawValue: Int) {
        guard Self.validRange.contains(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    /// The code of a response status.
    ///
    /// The reason phrase the server sent plays no part: it is free text that HTTP/2 does not even
    /// carry, while the code must be the same whatever the server or protocol.
    public init(_ status: HTTPResponse.Status) {
        self.init(uncheckedRawValue: status.code)
    }

    /// For the registered statuses, whose numbers are known to be in range.
    init(uncheckedRawValue: Int) {
        self.rawValue = uncheckedRawValue
    }

    /// `no` and the status, then the registered reason phrase in UpperCamelCase, such as
    /// `no429TooManyRequests`; `no499` for a status without a registered phrase.
    ///
    /// The `no` prefix makes the name a valid identifier, the same as the static member of the
    /// status, so the name in a chain can be searched for in code.
    public var name: String {
        Self.names[rawValue] ?? "no\(rawValue)"
    }

    /// Every registered status's name, worked out once: a failure's chain names its status, and
    /// deriving the name from the phrase each time would cost more than the rest of the failure.
    private static let names: [Int: String] = Dictionary(
        uniqueKeysWithValues: standardReasonPhrases.map { status, phrase in
            (status, "no\(status)" + upperCamelCase(phrase))
        }
    )

    /// The reason phrase registered with IANA for this status, such as `"Too Many Requests"`.
    ///
    /// `nil` for statuses that are unassigned, unused (306) or only temporarily registered, whose
    /// meaning may still change.
    public var standardReasonPhrase: String? { Self.standardReasonPhrases[rawValue] }

    /// Whether the status is a 4xx: the request was wrong and sending it again unchanged fails again
    /// (with the known exceptions such as 408 and 429, which a retry policy knows about).
    public var isClientError: Bool { (400...499).contains(rawValue) }

    /// Whether the status is a 5xx: the server failed, and the same request may succeed later.
    public var isServerError: Bool { (500...599).contains(rawValue) }

    public var description: String { name }

    /// `"Request Header Fields Too Large"` → `"RequestHeaderFieldsTooLarge"`,
    /// `"I'm a teapot"` → `"ImATeapot"`, `"Non-Authoritative Information"` → `"NonAuthoritativeInformation"`.
    static func upperCamelCase(_ phrase: String) -> String {
        phrase.split { $0 == " " || $0 == "-" }
            .map { word in
                let letters = word.filter { $0.isLetter || $0.isNumber }
                return letters.prefix(1).uppercased() + letters.dropFirst()
            }
            .joined()
    }
}
