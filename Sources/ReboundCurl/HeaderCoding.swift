import CCurl
import Glibc
import HTTPTypes

/// The request's header fields as libcurl's header list, in one block of memory.
///
/// `curl_slist_append` allocates twice per line (the node and a copy of the text); a request
/// builds its list once and libcurl only reads it, so every node and every line share one
/// allocation here, freed in one go. A request with no header fields of its own uses one list
/// made once for the whole program.
struct RequestHeaderList: ~Copyable {
    /// The first node, or `nil` for no list at all.
    let head: UnsafeMutablePointer<curl_slist>?
    /// The block to free, `nil` when ``head`` points at the shared list.
    private let block: UnsafeMutableRawPointer?

    init(_ fields: HTTPFields) {
        if fields.isEmpty {
            head = Self.sharedEmpty.pointer
            block = nil
            return
        }
        var lines: [String] = []
        lines.reserveCapacity(fields.count + 2)
        var hasExpect = false
        var hasContentType = false
        for field in fields {
            if field.name == .expect { hasExpect = true }
            if field.name == .contentType { hasContentType = true }
            // "Name;" is libcurl's spelling of a header with an empty value; "Name:" would remove it.
            lines.append(field.value.isEmpty ? field.name.rawName + ";" : field.name.rawName + ": " + field.value)
        }
        lines += Self.suppressions(hasExpect: hasExpect, hasContentType: hasContentType)
        (head, block) = Self.layOut(lines)
    }

    deinit {
        block?.deallocate()
    }

    /// Lines that turn off what libcurl would otherwise add on its own.
    private static func suppressions(hasExpect: Bool, hasContentType: Bool) -> [String] {
        var lines: [String] = []
        // libcurl sends "Expect: 100-continue" for larger bodies and then waits up to a second for
        // a server that may never answer it; an empty Expect turns that off.
        if !hasExpect { lines.append("Expect:") }
        // libcurl labels every body it sends as a form (application/x-www-form-urlencoded) unless
        // told otherwise; a body the caller did not label goes out unlabelled.
        if !hasContentType { lines.append("Content-Type:") }
        return lines
    }

    /// The list for requests without header fields, made once and never freed.
    private static let sharedEmpty = SharedList(layOut(suppressions(hasExpect: false, hasContentType: false)).head)

    private struct SharedList: @unchecked Sendable {
        // Written once, then only read (by libcurl, on the loop thread).
        let pointer: UnsafeMutablePointer<curl_slist>?
        init(_ pointer: UnsafeMutablePointer<curl_slist>?) { self.pointer = pointer }
    }

    /// Nodes first, then every line with its terminating NUL, in one allocation.
    private static func layOut(
        _ lines: [String]
    ) -> (head: UnsafeMutablePointer<curl_slist>?, block: UnsafeMutableRawPointer?) {
        guard !lines.isEmpty else { return (nil, nil) }
        let nodesSize = lines.count * MemoryLayout<curl_slist>.stride
        let textSize = lines.reduce(0) { $0 + $1.utf8.count + 1 }
        let block = UnsafeMutableRawPointer.allocate(
            byteCount: nodesSize + textSize, alignment: MemoryLayout<curl_slist>.alignment)
        let nodes = block.bindMemory(to: curl_slist.self, capacity: lines.count)
        var text = (block + nodesSize).assumingMemoryBound(to: CChar.self)
        for (index, line) in lines.enumerated() {
            let count = line.utf8.count
            var line = line
            line.withUTF8 { bytes in
                UnsafeMutableRawPointer(text).copyMemory(from: bytes.baseAddress!, byteCount: count)
            }
            text[count] = 0
            let next = index + 1 < lines.count ? nodes + index + 1 : nil
            (nodes + index).initialize(to: curl_slist(data: text, next: next))
            text += count + 1
        }
        return (nodes, block)
    }
}

/// Reading a response head: the status line and the header lines libcurl hands over one by one.
enum ResponseHeadParser {
    /// Splits a raw response head into the reason phrase and the header fields.
    ///
    /// Lines without a colon, or whose name is not a valid field name, are skipped. Names are kept
    /// as the server spelled them; lookup in the fields is case-insensitive.
    static func parse(_ raw: [UInt8]) -> (reasonPhrase: String, fields: HTTPFields) {
        raw.withUnsafeBufferPointer { bytes in
            var fields = HTTPFields()
            var reasonPhrase = ""
            var lineStart = 0
            var isStatusLine = true
            while lineStart < bytes.count {
                var lineEnd = lineStart
                while lineEnd < bytes.count && bytes[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
                let line = UnsafeBufferPointer(rebasing: bytes[lineStart..<lineEnd])
                lineStart = lineEnd + 1
                if isStatusLine {
                    // "HTTP/1.1 200 OK": the reason is whatever follows the second space.
                    isStatusLine = false
                    if let first = line.firstIndex(of: UInt8(ascii: " ")),
                        let second = line[(first + 1)...].firstIndex(of: UInt8(ascii: " "))
                    {
                        reasonPhrase = String(decoding: trimmed(line[(second + 1)...]), as: UTF8.self)
                    }
                    fields.reserveCapacity(16)
                    continue
                }
                guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > 0,
                    let name = fieldName(UnsafeBufferPointer(rebasing: line[..<colon]))
                else { continue }
                fields.append(
                    HTTPField(name: name, value: String(decoding: trimmed(line[(colon + 1)...]), as: UTF8.self)))
            }
            return (reasonPhrase, fields)
        }
    }

    /// The field name spelled by `bytes`: a prepared one for the names servers send most, spelled
    /// exactly so, or a new one (validated and lowercased) for the rest.
    static func fieldName(_ bytes: UnsafeBufferPointer<UInt8>) -> HTTPField.Name? {
        let candidates = KnownFieldNames.byLength
        if bytes.count < candidates.count {
            for known in candidates[bytes.count]
            where known.bytes.withUnsafeBufferPointer({
                memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0
            }) {
                return known.name
            }
        }
        return HTTPField.Name(String(decoding: bytes, as: UTF8.self))
    }

    /// The value of a `Content-Length` header line, so that the body can be allocated once; `nil`
    /// for any other line, or for a value that is not a number.
    static func contentLength(in line: UnsafeRawBufferPointer) -> Int? {
        // Letters compare without their case bit (0x20); '-' and ':' compare exactly.
        let name: StaticString = "content-length:"
        let nameLength = name.utf8CodeUnitCount
        guard line.count > nameLength, line[0] | 0x20 == UInt8(ascii: "c") else { return nil }
        let prefix = name.utf8Start
        for offset in 1..<nameLength {
            let expected = prefix[offset]
            let isLetter = expected >= UInt8(ascii: "a") && expected <= UInt8(ascii: "z")
            if (isLetter ? line[offset] | 0x20 : line[offset]) != expected { return nil }
        }
        var value = 0
        var digits = 0
        for offset in nameLength..<line.count {
            let byte = line[offset]
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                let (next, overflow) = value.multipliedReportingOverflow(by: 10)
                if overflow { return nil }
                value = next + Int(byte - UInt8(ascii: "0"))
                digits += 1
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "\n"):
                continue
            default:
                return nil
            }
        }
        return digits > 0 ? value : nil
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

/// Field names made once, in the spellings servers use (HTTP/1.1's and HTTP/2's lowercase), so
/// that parsing a common header neither validates nor lowercases its name again.
private enum KnownFieldNames {
    struct Entry {
        let bytes: [UInt8]
        let name: HTTPField.Name
    }

    /// Entries by the length of their name.
    static let byLength: [[Entry]] = {
        let names = [
            "Accept-Ranges", "Access-Control-Allow-Origin", "Age", "Cache-Control", "Connection",
            "Content-Encoding", "Content-Length", "Content-Type", "Date", "ETag", "Expires", "Keep-Alive",
            "Last-Modified", "Location", "Retry-After", "Server", "Set-Cookie", "Strict-Transport-Security",
            "Transfer-Encoding", "Vary", "X-Request-Id",
        ]
        let spellings = names + names.map { $0.lowercased() }
        var table = [[Entry]](repeating: [], count: spellings.map(\.utf8.count).max()! + 1)
        for spelling in spellings {
            guard let name = HTTPField.Name(spelling) else { continue }
            table[spelling.utf8.count].append(Entry(bytes: Array(spelling.utf8), name: name))
        }
        return table
    }()
}
