import Foundation
import HTTPTypes
import Rebound
import Testing

@testable import ReboundCurl

/// The response receiver as a table: what libcurl's callbacks hand over, and what comes out.
@Suite struct ResponseReceiverTests {
    /// One call of libcurl's header callback (a whole line) or of its body callback.
    enum Event {
        case line(String)
        case body(String)
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var events: [Event]
        /// Whether the request was a HEAD.
        var answersHead = false
        var maxBodySize = 100
        var status: Int
        var fields: [String]
        var body = ""
        /// The event the receiver refused, ending the transfer, and why.
        var abortedAt: Int?
        var failure: ResponseReceiver.Failure?

        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "a status line, fields and the empty line make the head",
            events: [.line("HTTP/1.1 200 OK\r\n"), .line("Content-Type: text/plain\r\n"), .line("\r\n"), .body("hi")],
            status: 200, fields: ["Content-Type: text/plain"], body: "hi"),
        Case(
            name: "an HTTP/2 status line has no reason phrase",
            events: [.line("HTTP/2 204 \r\n"), .line("server: nginx\r\n"), .line("\r\n")],
            status: 204, fields: ["server: nginx"]),
        Case(
            name: "a first line that is no status line leaves the status unread",
            events: [.line("HTTP/1.1 2x0 OK\r\n"), .line("\r\n")],
            status: 0, fields: []),
        Case(
            name: "the head after interim responses is the one kept",
            events: [
                .line("HTTP/1.1 100 Continue\r\n"), .line("\r\n"),
                .line("HTTP/1.1 103 Early Hints\r\n"), .line("Link: </style.css>; rel=preload\r\n"), .line("\r\n"),
                .line("HTTP/1.1 201 Created\r\n"), .line("X-Final: 1\r\n"), .line("\r\n"), .body("ok"),
            ],
            status: 201, fields: ["X-Final: 1"], body: "ok"),
        Case(
            name: "repeated fields are kept in order",
            events: [
                .line("HTTP/1.1 200 OK\r\n"), .line("Set-Cookie: a=1\r\n"), .line("Vary: Accept\r\n"),
                .line("Set-Cookie: b=2\r\n"), .line("\r\n"),
            ],
            status: 200, fields: ["Set-Cookie: a=1", "Vary: Accept", "Set-Cookie: b=2"]),
        Case(
            name: "a folded field is unfolded, each line break a space",
            events: [
                .line("HTTP/1.1 200 OK\r\n"), .line("X-Long: a\r\n"), .line("   b\r\n"), .line("\tc\r\n"),
                .line("X-Next: d\r\n"), .line("\r\n"),
            ],
            status: 200, fields: ["X-Long: a b c", "X-Next: d"]),
        Case(
            name: "a folded line before the first field is dropped",
            events: [.line("HTTP/1.1 200 OK\r\n"), .line(" stray: 1\r\n"), .line("X-A: 1\r\n"), .line("\r\n")],
            status: 200, fields: ["X-A: 1"]),
        Case(
            name: "trailers neither add to nor replace the head",
            events: [
                .line("HTTP/1.1 200 OK\r\n"), .line("Transfer-Encoding: chunked\r\n"), .line("\r\n"), .body("ok"),
                .line("Location: http://elsewhere.test/\r\n"), .line("HTTP/1.1 301 Moved\r\n"),
                .line("Location: /x\r\n"), .line("\r\n"),
            ],
            status: 200, fields: ["Transfer-Encoding: chunked"], body: "ok"),
        Case(
            name: "a redirect's trailers leave its head alone",
            events: [
                .line("HTTP/1.1 302 Found\r\n"), .line("Location: /next\r\n"), .line("\r\n"),
                .line("HTTP/1.1 200 OK\r\n"), .line("Location: http://elsewhere.test/\r\n"), .line("\r\n"),
            ],
            status: 302, fields: ["Location: /next"]),
        Case(
            name: "Content-Length fields that disagree end the transfer",
            events: [.line("HTTP/1.1 200 OK\r\n"), .line("Content-Length: 5\r\n"), .line("Content-Length: 7\r\n")],
            status: 200, fields: ["Content-Length: 5"], abortedAt: 2, failure: .conflictingLengths),
        Case(
            name: "a list of Content-Lengths that disagree ends the transfer",
            events: [.line("HTTP/1.1 200 OK\r\n"), .line("Content-Length: 5, 7\r\n")],
            status: 200, fields: [], abortedAt: 1, failure: .conflictingLengths),
        Case(
            name: "Content-Lengths that agree by number are accepted",
            events: [
                .line("HTTP/1.1 200 OK\r\n"), .line("Content-Length: 5\r\n"), .line("Content-Length: 005, 5\r\n"),
                .line("\r\n"), .body("hello"),
            ],
            status: 200, fields: ["Content-Length: 5", "Content-Length: 005, 5"], body: "hello"),
        Case(
            name: "a 204 frames no body, whatever its lengths say",
            events: [
                .line("HTTP/1.1 204 No Content\r\n"), .line("Content-Length: 5\r\n"), .line("Content-Length: 7\r\n"),
                .line("\r\n"),
            ],
            status: 204, fields: ["Content-Length: 5", "Content-Length: 7"]),
        Case(
            name: "a 304 frames no body either",
            events: [.line("HTTP/1.1 304 Not Modified\r\n"), .line("Content-Length: 5, 7\r\n"), .line("\r\n")],
            status: 304, fields: ["Content-Length: 5, 7"]),
        Case(
            name: "nor does the answer to a HEAD",
            events: [.line("HTTP/1.1 200 OK\r\n"), .line("Content-Length: 5, 7\r\n"), .line("\r\n")],
            answersHead: true, status: 200, fields: ["Content-Length: 5, 7"]),
        Case(
            name: "an interim head's length is not compared with the final head's",
            events: [
                .line("HTTP/1.1 103 Early Hints\r\n"), .line("Content-Length: 5\r\n"), .line("\r\n"),
                .line("HTTP/1.1 200 OK\r\n"), .line("Content-Length: 7\r\n"), .line("\r\n"), .body("1234567"),
            ],
            status: 200, fields: ["Content-Length: 7"], body: "1234567"),
        Case(
            name: "a body up to the limit is accepted",
            events: [.line("HTTP/1.1 200 OK\r\n"), .line("\r\n"), .body("12345"), .body("67890")],
            maxBodySize: 10, status: 200, fields: [], body: "1234567890"),
        Case(
            name: "a body past the limit ends the transfer",
            events: [.line("HTTP/1.1 200 OK\r\n"), .line("\r\n"), .body("12345"), .body("678901")],
            maxBodySize: 10, status: 200, fields: [], body: "12345", abortedAt: 3, failure: .bodyTooLarge),
        Case(
            name: "a head announcing more than the limit is refused only when the body passes it",
            events: [.line("HTTP/1.1 200 OK\r\n"), .line("Content-Length: 1000000\r\n"), .line("\r\n"), .body("ok")],
            maxBodySize: 10, status: 200, fields: ["Content-Length: 1000000"], body: "ok"),
    ]

    @Test(arguments: cases)
    func linesAndBytesBecomeAResponse(_ expected: Case) {
        var receiver = ResponseReceiver(answersHead: expected.answersHead, maxBodySize: expected.maxBodySize)
        var abortedAt: Int?
        var bytes = 0
        for (index, event) in expected.events.enumerated() where abortedAt == nil {
            let action: ResponseReceiver.Action
            switch event {
            case .line(let text):
                action = Array(text.utf8).withUnsafeBytes { receiver.receiveHeaderLine($0) }
                bytes += text.utf8.count
            case .body(let text):
                action = Array(text.utf8).withUnsafeBytes { receiver.receiveBody($0) }
                if action == .proceed { bytes += text.utf8.count }
            }
            if action == .abort { abortedAt = index }
        }
        #expect(abortedAt == expected.abortedAt)
        #expect(receiver.failure == expected.failure)
        #expect(receiver.statusCode == expected.status)
        #expect(receiver.bytesReceived == bytes)
        let response = receiver.response(status: receiver.statusCode, info: TransferInfo())
        #expect(response.head.headerFields.map(\.description) == expected.fields)
        #expect(String(decoding: response.body, as: UTF8.self) == expected.body)
    }

    @Test func aHugeAnnouncedLengthReservesNoMoreThanTheUpfrontLimit() async {
        // With no body limit to speak of, a server announcing 10^18 bytes must not make the
        // receiver ask for that much memory (an allocation that fails traps): in its own process.
        await #expect(processExitsWith: .success) {
            var receiver = ResponseReceiver(answersHead: false, maxBodySize: .max)
            for line in ["HTTP/1.1 200 OK\r\n", "Content-Length: 999999999999999999\r\n", "\r\n"] {
                _ = Array(line.utf8).withUnsafeBytes { receiver.receiveHeaderLine($0) }
            }
            let action = Array("x".utf8).withUnsafeBytes { receiver.receiveBody($0) }
            let response = receiver.response(status: 200, info: TransferInfo())
            exit(action == .proceed && response.body.count == 1 ? 0 : 1)
        }
    }

    @Test func theReasonPhraseIsTheFinalHeadsAndTheStatusCodeLibcurls() {
        var receiver = ResponseReceiver(answersHead: false, maxBodySize: 10)
        for line in ["HTTP/1.1 100 Continue\r\n", "\r\n", "HTTP/1.1 404 Not Here\r\n", "\r\n"] {
            _ = Array(line.utf8).withUnsafeBytes { receiver.receiveHeaderLine($0) }
        }
        let response = receiver.response(status: 404, info: TransferInfo(httpVersion: "1.1", newConnections: 1))
        #expect(response.status.code == 404)
        #expect(response.status.reasonPhrase == "Not Here")
        #expect(response.info.newConnections == 1)
    }
}
