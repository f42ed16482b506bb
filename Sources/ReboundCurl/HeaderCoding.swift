import CCurl
package import HTTPTypes

/// The request's header fields as libcurl's header list.
///
/// After the request's own fields the list offers the encodings libcurl decodes
/// (`Accept-Encoding`), unless the request names its own. libcurl would add that line itself,
/// since `CURLOPT_ACCEPT_ENCODING` is set (which is what turns decoding on), but 7.88 formats its
/// own line byte by byte twice per request, once into a string and again into the request, while
/// a line of the list is formatted once and keeps libcurl from adding its own.
///
/// The request's `Content-Length` and `Transfer-Encoding` are left out: how the body is framed
/// is the transport's to say, from the body it sends. libcurl sends a caller's framing field as
/// it is, next to a body of any length, so a wrong one made the server read the rest of the body
/// as a request of its own (whose answer then came back to the next request on the connection),
/// or wait for a body that never came.
struct RequestHeaderList: ~Copyable {
    /// The first node, or `nil` for no list at all (or when libcurl could not allocate one).
    private(set) var head: UnsafeMutablePointer<curl_slist>?

    /// - Parameters:
    ///   - fields: The request's header fields.
    ///   - sendsBody: Whether the request sends a body (even an empty one): only then does libcurl
    ///     add the headers the list suppresses.
    init(_ fields: HTTPFields, sendsBody: Bool) {
        // libcurl sends "Expect: 100-continue" for larger bodies and then waits up to a second
        // for a server that may never answer it; an empty Expect turns that off. And it labels
        // every body it sends as a form (application/x-www-form-urlencoded) unless told
        // otherwise; a body the caller did not label goes out unlabelled.
        var offersEncodings = true
        var suppressesExpect = sendsBody
        var suppressesContentType = sendsBody
        for field in fields {
            switch field.name {
            case .acceptEncoding: offersEncodings = false
            case .expect: suppressesExpect = false
            case .contentType: suppressesContentType = false
            case .contentLength, .transferEncoding: continue
            default: break
            }
            // "Name;" is libcurl's spelling of a header with an empty value; "Name:" would remove it.
            append(field.value.isEmpty ? "\(field.name.rawName);" : "\(field.name.rawName): \(field.value)")
        }
        if offersEncodings, let line = Self.acceptEncodingLine { append(line) }
        if suppressesExpect { append("Expect:") }
        if suppressesContentType { append("Content-Type:") }
    }

    deinit {
        curl_slist_free_all(head)
    }

    private mutating func append(_ line: String) {
        // libcurl copies the line. On failure it returns nil and leaves the list as it was.
        if let longer = curl_slist_append(head, line) { head = longer }
    }

    /// The `Accept-Encoding` line, `nil` when this libcurl decodes nothing.
    static let acceptEncodingLine: String? = CurlGlobal.acceptedEncodings.map { "Accept-Encoding: \($0)" }
}

/// Reading a response head: the status line and the header lines libcurl hands over one by one.
package enum ResponseHeadParser {
    /// The reason phrase of the head's status line ("HTTP/1.1 200 OK"): whatever follows the
    /// second space, "" when there is none (HTTP/2 has no reason phrase).
    package static func reasonPhrase(in raw: [UInt8]) -> String {
        raw.withUnsafeBufferPointer { bytes in
            let line = UnsafeBufferPointer(
                rebasing: bytes[..<(bytes.firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count)])
            guard let first = line.firstIndex(of: UInt8(ascii: " ")),
                let second = line[(first + 1)...].firstIndex(of: UInt8(ascii: " "))
            else { return "" }
            return String(decoding: trimmed(line[(second + 1)...]), as: UTF8.self)
        }
    }

    /// The status code of a status line (`HTTP/1.1 302 Found`, libcurl's `HTTP/2 200 `), `nil` for
    /// any other line.
    package static func statusCode(ofStatusLine line: UnsafeRawBufferPointer) -> Int? {
        func isDigit(_ index: Int) -> Bool {
            index < line.count && line[index] >= UInt8(ascii: "0") && line[index] <= UInt8(ascii: "9")
        }
        guard line.count >= 10, line.starts(with: "HTTP/".utf8), isDigit(5) else { return nil }
        // "HTTP/1.1 " or "HTTP/2 ".
        let codeStart = line[6] == UInt8(ascii: ".") && isDigit(7) ? 9 : 7
        guard line[codeStart - 1] == UInt8(ascii: " "), isDigit(codeStart), isDigit(codeStart + 1),
            isDigit(codeStart + 2),
            !isDigit(codeStart + 3)
        else { return nil }
        return (0..<3).reduce(0) { $0 * 10 + Int(line[codeStart + $1] - UInt8(ascii: "0")) }
    }

    /// The length a `Content-Length` field line announces; `nil` for a line of another field or a
    /// value that is no number (libcurl judges those itself), and ``conflictingLengths`` for a
    /// list of lengths that disagree (`5, 7`).
    ///
    /// Lengths are compared as numbers, as libcurl reads them: leading zeros change nothing
    /// (`007` is 7), and an empty element of a list counts for nothing (`5, , 7` is a list of two,
    /// RFC 9110, section 5.6.1).
    package static func announcedLength(inFieldLine line: UnsafeRawBufferPointer) -> Int64? {
        let name = "content-length:".utf8
        // Most lines are told apart by their first byte.
        guard line.count > name.count, line[0] | 0x20 == UInt8(ascii: "c"),
            zip(line.prefix(name.count), name).allSatisfy({ $0 | 0x20 == $1 })
        else { return nil }
        let isDigit = { (byte: UInt8) in byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        var length: Int64?
        for element in line.dropFirst(name.count).split(separator: UInt8(ascii: ",")) {
            let text = element.drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            if text.first == UInt8(ascii: "\r") || text.first == UInt8(ascii: "\n") || text.isEmpty { continue }
            let digits = text.prefix(while: isDigit)
            let significant = digits.drop { $0 == UInt8(ascii: "0") }
            guard !digits.isEmpty, significant.count <= 18 else { return nil }
            let value = significant.reduce(Int64(0)) { $0 * 10 + Int64($1 - UInt8(ascii: "0")) }
            if let length, length != value { return conflictingLengths }
            length = value
        }
        return length
    }

    /// What ``announcedLength(inFieldLine:)`` says of a list of lengths that disagree.
    package static let conflictingLengths: Int64 = -1

    /// The header fields of a raw response head, the status line skipped.
    ///
    /// Lines without a colon, or whose name is not a valid field name, are skipped. Names are kept
    /// as the server spelled them; lookup in the fields is case-insensitive.
    package static func fields(in raw: [UInt8]) -> HTTPFields {
        raw.withUnsafeBufferPointer { bytes in
            var fields = HTTPFields()
            fields.reserveCapacity(16)
            var lineStart = (bytes.firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count) + 1
            while lineStart < bytes.count {
                var lineEnd = lineStart
                while lineEnd < bytes.count && bytes[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
                let line = UnsafeBufferPointer(rebasing: bytes[lineStart..<lineEnd])
                lineStart = lineEnd + 1
                guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > 0,
                    let name = fieldName(UnsafeBufferPointer(rebasing: line[..<colon]))
                else { continue }
                fields.append(
                    HTTPField(name: name, value: String(decoding: trimmed(line[(colon + 1)...]), as: UTF8.self)))
            }
            return fields
        }
    }

    /// The field name spelled by `bytes`, validated; `nil` for one that is not a valid name.
    static func fieldName(_ bytes: UnsafeBufferPointer<UInt8>) -> HTTPField.Name? {
        HTTPField.Name(String(decoding: bytes, as: UTF8.self))
    }

    /// The bytes without leading and trailing spaces, tabs and line ends.
    private static func trimmed(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Slice<UnsafeBufferPointer<UInt8>> {
        func isWhitespace(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
                || byte == UInt8(ascii: "\n")
        }
        var lower = bytes.startIndex
        var upper = bytes.endIndex
        while lower < upper && isWhitespace(bytes[lower]) { lower += 1 }
        while upper > lower && isWhitespace(bytes[upper - 1]) { upper -= 1 }
        return bytes[lower..<upper]
    }
}
