/// The path of an endpoint under the data manager's base URL, with the values interpolated into
/// it percent-encoded.
///
/// Written as a string literal, its literal parts are taken as they are (they must already be a
/// valid path: letters, digits, `-._~`, `/`, `%XX` escapes and the sub-delimiters RFC 3986 allows
/// in a path), and every interpolated value becomes one path segment, percent-encoded, so that a
/// `/` or a `?` in an identifier can never change which resource is asked for:
///
/// ```swift
/// let path: EndpointPath = "/v1/tasks/\(id)/answers"   // id "a/b" → /v1/tasks/a%2Fb/answers
/// path.template                                       // "/v1/tasks/{}/answers"
/// ```
///
/// A path with a byte that is illegal in a path (a space, a quote, a control character, a raw
/// `?` or `#`) is not sent: the call fails with ``NetworkErrorCode/invalidURL``. So is a path with
/// a `.` or `..` segment, and one with an interpolated value that is empty, `.` or `..`: libcurl
/// and most servers resolve such segments, and the request would reach another resource
/// (`"/v1/drafts/\(id)"` with the id `..` is `/v1/`). The ``template`` names the endpoint in
/// traces and metrics without its values.
public struct EndpointPath: Sendable, Hashable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// The path as it is sent, percent-encoded.
    public let encoded: String
    /// The path with each interpolated value replaced by `{}`: its shape, without the values.
    public let template: String
    /// Whether an interpolated value was empty, `.` or `..`, which as a segment would make the path
    /// name another resource: calls to it fail unsent.
    let hasMisleadingValue: Bool

    /// A path given as it is sent (already percent-encoded), such as `/v1/tasks`.
    public init(encoded: String) {
        self.encoded = encoded
        template = encoded
        hasMisleadingValue = false
    }

    public init(stringLiteral value: String) {
        self.init(encoded: value)
    }

    public init(stringInterpolation: StringInterpolation) {
        encoded = stringInterpolation.encoded
        template = stringInterpolation.template
        hasMisleadingValue = stringInterpolation.hasMisleadingValue
    }

    public var description: String { encoded }

    /// Builds a path from literal parts and encoded values.
    public struct StringInterpolation: StringInterpolationProtocol {
        var encoded = ""
        var template = ""
        var hasMisleadingValue = false

        public init(literalCapacity: Int, interpolationCount: Int) {
            encoded.reserveCapacity(literalCapacity + interpolationCount * 8)
        }

        public mutating func appendLiteral(_ literal: String) {
            encoded += literal
            template += literal
        }

        /// Appends `value` as one path segment, percent-encoded.
        public mutating func appendInterpolation(_ value: some CustomStringConvertible) {
            let text = value.description
            if text.isEmpty || text == "." || text == ".." { hasMisleadingValue = true }
            encoded += PercentEncoding.encode(text, allowing: PercentEncoding.segmentBytes)
            template += "{}"
        }
    }
}

/// Percent-encoding (RFC 3986, section 2.1) of path segments and query components.
enum PercentEncoding {
    /// What a path segment holds unencoded: the unreserved characters, the sub-delimiters, `:`
    /// and `@` (RFC 3986, section 3.3).
    static let segmentBytes = ByteSet(unreservedAnd: "!$&'()*+,;=:@")

    /// What a query name or value holds unencoded: the unreserved characters and the
    /// sub-delimiters that do not separate query items, and `:`, `@`, `/`, `?`. `&`, `=`, `+`
    /// and `;` are encoded, as servers read them as separators or spaces.
    static let queryBytes = ByteSet(unreservedAnd: "!$'()*,:@/?")

    /// What keeps a path and query from being sent as they are.
    struct PathCheck {
        /// The first byte that a URL's path and query may not hold unencoded: not a `/`, a `?`,
        /// a segment's byte or a well-formed `%XX` escape. (A query holds what a path does, and
        /// `?`; `&` and `=` are among the sub-delimiters.)
        var illegalByte: UInt8?
        /// Whether the path part (before any `?`) has a segment that is `.` or `..`, which
        /// would name another resource once resolved; only up to ``illegalByte`` when there is
        /// one, where the check stops.
        var hasDotSegment = false
    }

    /// Checks `path` (a path with its query) in one pass: its first illegal byte, where the
    /// check stops, and its dot segments before it.
    static func check(pathAndQuery path: String) -> PathCheck {
        let allowed = segmentBytes
        var check = PathCheck()
        // Whether the bytes since the last `/` are all dots, and how many there are.
        var segmentIsDots = false
        var dots = 0
        var inQuery = false
        var bytes = path.utf8.makeIterator()
        while let byte = bytes.next() {
            switch byte {
            case UInt8(ascii: "/"), UInt8(ascii: "?"):
                guard !inQuery else { continue }
                if segmentIsDots, dots == 1 || dots == 2 { check.hasDotSegment = true }
                inQuery = byte == UInt8(ascii: "?")
                segmentIsDots = true
                dots = 0
            case UInt8(ascii: "."):
                dots += 1
            case UInt8(ascii: "%"):
                // An escape is two hexadecimal digits.
                guard let high = bytes.next(), let low = bytes.next(), high.isHexDigit, low.isHexDigit else {
                    check.illegalByte = byte
                    return check
                }
                segmentIsDots = false
            default:
                guard allowed.contains(byte) else {
                    check.illegalByte = byte
                    return check
                }
                segmentIsDots = false
            }
        }
        if !inQuery, segmentIsDots, dots == 1 || dots == 2 { check.hasDotSegment = true }
        return check
    }

    static func encode(_ text: String, allowing allowed: ByteSet) -> String {
        let utf8 = text.utf8
        if utf8.allSatisfy(allowed.contains) { return text }
        var encoded: [UInt8] = []
        encoded.reserveCapacity(utf8.count * 3)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in utf8 {
            if allowed.contains(byte) {
                encoded.append(byte)
            } else {
                encoded += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: encoded, as: UTF8.self)
    }

    /// A set of ASCII bytes.
    struct ByteSet: Sendable {
        private var low: UInt64 = 0
        private var high: UInt64 = 0

        /// Letters, digits, `-._~`, and the bytes of `extra`.
        init(unreservedAnd extra: String) {
            for byte in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8 { insert(byte) }
            for byte in extra.utf8 { insert(byte) }
        }

        private mutating func insert(_ byte: UInt8) {
            if byte < 64 { low |= 1 << UInt64(byte) } else if byte < 128 { high |= 1 << UInt64(byte - 64) }
        }

        func contains(_ byte: UInt8) -> Bool {
            if byte < 64 { return low & (1 << UInt64(byte)) != 0 }
            if byte < 128 { return high & (1 << UInt64(byte - 64)) != 0 }
            return false
        }
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}
