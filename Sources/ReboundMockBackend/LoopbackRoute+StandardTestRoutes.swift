internal import Foundation

extension LoopbackRoute {
    /// Routes that exercise the everyday behaviours and the common failures of an HTTP client.
    ///
    /// Integration tests of a client share these instead of scripting the same routes again. Every route
    /// but `/echo` answers `GET`, and `HEAD` with the same head and no body. A numeric parameter that is
    /// malformed, out of range, or missing where it has no default gets `400 Bad Request` with a reason.
    ///
    /// | Route                             | Reply                                                          |
    /// |-----------------------------------|----------------------------------------------------------------|
    /// | `GET /hello`                      | 200, `Content-Type: application/json`, `{"hello":"world"}`     |
    /// | `/echo` (any method)              | 200, the request as JSON (see below)                           |
    /// | `GET /bytes?count=N`              | 200, N bytes of ``patternedBytes(count:)``; N ≤ 64 MiB         |
    /// | `GET /chunked-bytes?count=N&chunk=M` | the same bytes, chunked by M bytes (default 16 KiB), no pause |
    /// | `GET /repeated-headers`           | 200, `Set-Cookie: a=1`, `b=2`, `c=3`, `X-Multi: one`, `two`    |
    /// | `GET /redirect?n=K`               | K > 0: 302 to `/redirect?n=K-1`; K = 0 (default): 200 `done`   |
    /// | `GET /redirect-to?location=U&code=C` | C (default 302) with `Location: U`; 400 if U has a control character but a tab |
    /// | `GET /status?code=N`              | N (200–599), body `status N` where the status allows one       |
    /// | `GET /slow?ms=N`                  | 200 `slow` after N milliseconds                                |
    /// | `GET /stall`                      | never answers                                                  |
    /// | `GET /stall-mid-body`             | `Content-Length: 1000`, 10 bytes, then silence                 |
    /// | `GET /close-mid-body`             | `Content-Length: 1000`, 100 bytes, then the connection closes  |
    /// | `GET /close-without-response`     | the connection closes without a byte                           |
    /// | `GET /drip?chunks=N&ms=M`         | N one-byte chunks (`x`) M ms apart; defaults 5 and 100        |
    ///
    /// `/echo` answers with `Content-Type: application/json` and an object whose keys are sorted:
    ///
    /// ```json
    /// {"body":"<the body as UTF-8>","bodyLength":5,"connectionNumber":1,
    ///  "headers":[["Host","127.0.0.1:8080"],["X-A","1"]],"httpVersion":"1.1",
    ///  "method":"POST","path":"/echo","query":{"x":"1"},"target":"/echo?x=1"}
    /// ```
    public static let standardTestRoutes: [LoopbackRoute] = [
        LoopbackRoute("GET", "/hello") { _ in
            .json(#"{"hello":"world"}"#)
        },
        LoopbackRoute("/echo") { request in
            echo(request)
        },
        LoopbackRoute("GET", "/bytes") { request in
            guard let count = integer("count", of: request, in: 0...maximumByteCount) else {
                return badRequest("count must be an integer from 0 to \(maximumByteCount)")
            }
            return .respond(status: 200, headers: [octetStream], body: patternedBytes(count: count))
        },
        LoopbackRoute("GET", "/chunked-bytes") { request in
            guard let count = integer("count", of: request, in: 0...maximumByteCount) else {
                return badRequest("count must be an integer from 0 to \(maximumByteCount)")
            }
            guard let chunkSize = integer("chunk", of: request, default: 16 * 1024, in: 1...maximumByteCount),
                count / chunkSize <= maximumChunkCount
            else {
                return badRequest("chunk must be a positive integer making at most \(maximumChunkCount) chunks")
            }
            let bytes = patternedBytes(count: count)
            let chunks = stride(from: 0, to: count, by: chunkSize).map {
                Array(bytes[$0..<min($0 + chunkSize, count)])
            }
            return .stream(status: 200, headers: [octetStream], chunks: chunks, pause: .zero)
        },
        LoopbackRoute("GET", "/repeated-headers") { _ in
            .respond(
                status: 200,
                headers: [
                    ("Set-Cookie", "a=1"), ("Set-Cookie", "b=2"), ("Set-Cookie", "c=3"),
                    ("X-Multi", "one"), ("X-Multi", "two"),
                ],
                body: Array("ok".utf8)
            )
        },
        LoopbackRoute("GET", "/redirect") { request in
            guard let remaining = integer("n", of: request, default: 0, in: 0...Int.max) else {
                return badRequest("n must be a non-negative integer")
            }
            guard remaining > 0 else { return .text("done") }
            return .respond(status: 302, headers: [("Location", "/redirect?n=\(remaining - 1)")])
        },
        LoopbackRoute("GET", "/redirect-to") { request in
            guard let location = request.query["location"], !location.isEmpty else {
                return badRequest("location is required")
            }
            // A header value cannot carry a control character but a tab: CR or LF would end the header
            // early (header injection), and the server refuses to send any of them.
            guard LoopbackReply.isSendableFieldValue(location) else {
                return badRequest("location must not contain control characters (such as CR or LF) but a tab")
            }
            guard let code = integer("code", of: request, default: 302, in: 300...399) else {
                return badRequest("code must be a redirection status from 300 to 399")
            }
            return .respond(status: code, headers: [("Location", location)])
        },
        LoopbackRoute("GET", "/status") { request in
            guard let code = integer("code", of: request, in: 200...599) else {
                return badRequest("code must be a final status from 200 to 599")
            }
            return .text("status \(code)", status: code)
        },
        LoopbackRoute("GET", "/slow") { request in
            guard let milliseconds = integer("ms", of: request, in: 0...Int(Int32.max)) else {
                return badRequest("ms must be a non-negative integer")
            }
            return .delayed(.milliseconds(milliseconds), .text("slow"))
        },
        LoopbackRoute("GET", "/stall") { _ in
            .stall
        },
        LoopbackRoute("GET", "/stall-mid-body") { _ in
            .stallMidBody(
                status: 200, headers: [octetStream], declaredLength: 1000, partialBody: patternedBytes(count: 10))
        },
        LoopbackRoute("GET", "/close-mid-body") { _ in
            .closeMidBody(
                status: 200, headers: [octetStream], declaredLength: 1000, partialBody: patternedBytes(count: 100))
        },
        LoopbackRoute("GET", "/close-without-response") { _ in
            .closeWithoutResponse
        },
        LoopbackRoute("GET", "/drip") { request in
            guard let chunkCount = integer("chunks", of: request, default: 5, in: 0...maximumChunkCount),
                let milliseconds = integer("ms", of: request, default: 100, in: 0...Int(Int32.max))
            else {
                return badRequest("chunks and ms must be non-negative integers")
            }
            let chunks = Array(repeating: [UInt8(ascii: "x")], count: chunkCount)
            return .stream(status: 200, headers: [octetStream], chunks: chunks, pause: .milliseconds(milliseconds))
        },
    ]

    /// The bytes `/bytes` and `/chunked-bytes` send: `0, 1, …, 255, 0, 1, …`, so byte `i` is `i % 256`.
    ///
    /// A test compares a downloaded body with this to see that no byte was lost, added or moved.
    public static func patternedBytes(count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initializedCount in
            for index in 0..<count {
                buffer[index] = UInt8(truncatingIfNeeded: index)
            }
            initializedCount = count
        }
    }

    /// The largest body `/bytes` and `/chunked-bytes` send: 64 MiB, enough to cross every buffer size
    /// of a client without holding much memory.
    private static let maximumByteCount = 64 * 1024 * 1024

    /// The most chunks one streamed reply may have, so that a typo in a test cannot make the server
    /// build millions of arrays.
    private static let maximumChunkCount = 1024 * 1024

    private static let octetStream = ("Content-Type", "application/octet-stream")

    /// The integer query parameter `name` of `request`, `fallback` if it is absent, or `nil` if it is
    /// malformed, out of `range`, or absent without a fallback.
    private static func integer(
        _ name: String,
        of request: LoopbackRequest,
        default fallback: Int? = nil,
        in range: ClosedRange<Int>
    ) -> Int? {
        guard let text = request.query[name] else { return fallback }
        guard let value = Int(text), range.contains(value) else { return nil }
        return value
    }

    private static func badRequest(_ reason: String) -> LoopbackReply {
        .text(reason + "\n", status: 400)
    }

    /// The request as the server saw it, as the JSON that `/echo` sends back.
    private struct EchoedRequest: Encodable {
        var method: String
        var target: String
        var path: String
        var query: [String: String]
        var headers: [[String]]
        var body: String
        var bodyLength: Int
        var connectionNumber: Int
        var httpVersion: String
    }

    private static func echo(_ request: LoopbackRequest) -> LoopbackReply {
        let echoed = EchoedRequest(
            method: request.method,
            target: request.target,
            path: request.path,
            query: request.query,
            headers: request.headers.map { [$0.name, $0.value] },
            body: request.bodyText,
            bodyLength: request.body.count,
            connectionNumber: request.connectionNumber,
            httpVersion: request.httpVersion
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return .respond(
                status: 200,
                headers: [("Content-Type", "application/json")],
                body: Array(try encoder.encode(echoed))
            )
        } catch {
            return .text("could not encode the request: \(error)\n", status: 500)
        }
    }
}
