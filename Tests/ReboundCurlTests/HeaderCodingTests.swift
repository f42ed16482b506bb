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

    /// The line offering the encodings this libcurl decodes, as the list adds it.
    private let offered = RequestHeaderList.acceptEncodingLine.map { [$0] } ?? []

    @Test func theOfferedEncodingsAreThoseLibcurlDecodes() {
        #expect(RequestHeaderList.acceptEncodingLine == CurlGlobal.acceptedEncodings.map { "Accept-Encoding: \($0)" })
    }

    @Test func fieldsBecomeLinesFollowedByTheOfferAndTheSuppressionsWhenABodyIsSent() {
        var fields = HTTPFields()
        fields[.authorization] = "Bearer abc"
        fields[.accept] = "application/json"
        fields.append(HTTPField(name: HTTPField.Name("X-Empty")!, value: ""))
        fields.append(HTTPField(name: HTTPField.Name("x-twice")!, value: "1"))
        fields.append(HTTPField(name: HTTPField.Name("x-twice")!, value: "2"))
        let lines = ["Authorization: Bearer abc", "Accept: application/json", "X-Empty;", "x-twice: 1", "x-twice: 2"]
        #expect(
            self.lines(of: RequestHeaderList(fields, sendsBody: true)) == lines + offered + [
                "Expect:", "Content-Type:",
            ])
        #expect(self.lines(of: RequestHeaderList(fields, sendsBody: false)) == lines + offered)
    }

    @Test func aCallersExpectOrContentTypeIsNotSuppressed() {
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        fields[.expect] = "100-continue"
        #expect(
            lines(of: RequestHeaderList(fields, sendsBody: true))
                == ["Content-Type: application/json", "Expect: 100-continue"] + offered)
        fields[.expect] = nil
        #expect(
            lines(of: RequestHeaderList(fields, sendsBody: true))
                == ["Content-Type: application/json"] + offered + ["Expect:"])
    }

    @Test func aCallersAcceptEncodingReplacesTheOffer() {
        var fields = HTTPFields()
        fields[HTTPField.Name("accept-encoding")!] = "identity"
        #expect(lines(of: RequestHeaderList(fields, sendsBody: false)) == ["accept-encoding: identity"])
        fields[.acceptEncoding] = ""
        #expect(
            lines(of: RequestHeaderList(fields, sendsBody: true)) == ["Accept-Encoding;", "Expect:", "Content-Type:"])
    }

    @Test func theCallersFramingFieldsAreLeftOut() {
        var fields = HTTPFields()
        fields[.contentLength] = "0"
        fields[HTTPField.Name("X-Kept")!] = "1"
        fields[HTTPField.Name("transfer-encoding")!] = "chunked"
        #expect(
            lines(of: RequestHeaderList(fields, sendsBody: true)) == ["X-Kept: 1"] + offered + [
                "Expect:", "Content-Type:",
            ])
        fields[HTTPField.Name("X-Kept")!] = nil
        #expect(lines(of: RequestHeaderList(fields, sendsBody: false)) == offered)
    }

    @Test func requestsWithoutFieldsGetTheOfferAndTheSuppressionsWhenABodyIsSent() {
        #expect(lines(of: RequestHeaderList(HTTPFields(), sendsBody: true)) == offered + ["Expect:", "Content-Type:"])
        #expect(lines(of: RequestHeaderList(HTTPFields(), sendsBody: false)) == offered)
    }

    @Test(arguments: [
        (HTTPRequest.Method.get, false, false), (.get, true, true), (.head, true, false), (.delete, false, false),
        (.delete, true, true), (.post, false, true), (.put, false, true), (.patch, false, true),
        (.options, false, false),
    ])
    func whichRequestsSendABody(method: HTTPRequest.Method, hasBody: Bool, expected: Bool) {
        #expect(TransferSettings.sendsBody(method: method, hasBody: hasBody) == expected)
    }

    @Test func nonASCIIValuesKeepTheirBytes() {
        var fields = HTTPFields()
        fields[HTTPField.Name("X-Name")!] = "Zoë"
        #expect(lines(of: RequestHeaderList(fields, sendsBody: false)).first == "X-Name: Zoë")
    }

    @Test func knownNamesKeepTheServersSpelling() {
        let raw = Array(
            "HTTP/1.1 200 OK\r\ncontent-type: a\r\nContent-Length: 2\r\nETAG: x\r\nX-Custom: y\r\nsErVeR: z\r\n\r\n"
                .utf8)
        let fields = ResponseHeadParser.fields(in: raw)
        #expect(fields.map(\.name.rawName) == ["content-type", "Content-Length", "ETAG", "X-Custom", "sErVeR"])
        #expect(fields[.contentType] == "a")
        #expect(fields[.contentLength] == "2")
        #expect(fields[.eTag] == "x")
        #expect(fields[HTTPField.Name("x-custom")!] == "y")
        #expect(fields[.server] == "z")
    }

    @Test func aNameWithInvalidCharactersIsSkipped() {
        let fields = ResponseHeadParser.fields(
            in: Array("HTTP/1.1 200 OK\r\nBad Name: x\r\n(x): y\r\nOk: z\r\n\r\n".utf8))
        #expect(fields.map(\.name.rawName) == ["Ok"])
    }
}
