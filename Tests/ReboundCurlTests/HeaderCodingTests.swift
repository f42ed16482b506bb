import CCurl
import HTTPTypes
import Testing

@testable import ReboundCurl

@Suite struct HeaderCodingTests {
    /// The lines of a header list, in order.
    private func lines(of list: borrowing RequestHeaderList) -> [String] {
        var lines: [String] = []
        var node = list.head
        while let current = node {
            lines.append(String(cString: current.pointee.data))
            node = current.pointee.next
        }
        return lines
    }

    @Test func fieldsBecomeLinesFollowedByTheSuppressions() {
        var fields = HTTPFields()
        fields[.authorization] = "Bearer abc"
        fields[.accept] = "application/json"
        fields.append(HTTPField(name: HTTPField.Name("X-Empty")!, value: ""))
        fields.append(HTTPField(name: HTTPField.Name("x-twice")!, value: "1"))
        fields.append(HTTPField(name: HTTPField.Name("x-twice")!, value: "2"))
        let list = RequestHeaderList(fields)
        #expect(
            lines(of: list) == [
                "Authorization: Bearer abc", "Accept: application/json", "X-Empty;", "x-twice: 1", "x-twice: 2",
                "Expect:", "Content-Type:",
            ])
    }

    @Test func aCallersExpectOrContentTypeIsNotSuppressed() {
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        fields[.expect] = "100-continue"
        #expect(lines(of: RequestHeaderList(fields)) == ["Content-Type: application/json", "Expect: 100-continue"])
    }

    @Test func requestsWithoutFieldsShareOneList() {
        let first = RequestHeaderList(HTTPFields())
        let second = RequestHeaderList(HTTPFields())
        #expect(lines(of: first) == ["Expect:", "Content-Type:"])
        #expect(first.head == second.head)
    }

    @Test func nonASCIIValuesKeepTheirBytes() {
        var fields = HTTPFields()
        fields[HTTPField.Name("X-Name")!] = "Zoë"
        #expect(lines(of: RequestHeaderList(fields)).first == "X-Name: Zoë")
    }

    @Test func knownNamesKeepTheServersSpelling() {
        let raw = Array(
            "HTTP/1.1 200 OK\r\ncontent-type: a\r\nContent-Length: 2\r\nETAG: x\r\nX-Custom: y\r\nsErVeR: z\r\n\r\n"
                .utf8)
        let (_, fields) = ResponseHeadParser.parse(raw)
        #expect(fields.map(\.name.rawName) == ["content-type", "Content-Length", "ETAG", "X-Custom", "sErVeR"])
        #expect(fields[.contentType] == "a")
        #expect(fields[.contentLength] == "2")
        #expect(fields[.eTag] == "x")
        #expect(fields[HTTPField.Name("x-custom")!] == "y")
        #expect(fields[.server] == "z")
    }

    @Test func aNameWithInvalidCharactersIsSkipped() {
        let (_, fields) = ResponseHeadParser.parse(
            Array("HTTP/1.1 200 OK\r\nBad Name: x\r\n(x): y\r\nOk: z\r\n\r\n".utf8))
        #expect(fields.map(\.name.rawName) == ["Ok"])
    }

    @Test(
        arguments: [
            ("Content-Length: 91\r\n", 91),
            ("content-length:0\r\n", 0),
            ("CONTENT-LENGTH: \t 1048576 \r\n", 1_048_576),
            ("Content-Length: 12a\r\n", nil),
            ("Content-Length: \r\n", nil),
            ("Content-Length: 99999999999999999999999\r\n", nil),
            ("Content-Type: 12\r\n", nil),
            ("Content\rLength: 12\r\n", nil),
            ("Content-Length\r 12\r\n", nil),
            ("C", nil),
        ] as [(String, Int?)])
    func contentLengthIsReadFromItsLineOnly(line: String, expected: Int?) {
        let bytes = Array(line.utf8)
        let value = bytes.withUnsafeBytes { ResponseHeadParser.contentLength(in: $0) }
        #expect(value == expected)
    }
}
