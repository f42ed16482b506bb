import NIOHTTP1

/// The kit's faults.
///
/// | Fault                                   | On the wire                                             |
/// |-----------------------------------------|---------------------------------------------------------|
/// | ``replying(_:)``                        | the given reply instead of the route's                  |
/// | ``raw(_:then:)-(String,_)``             | exactly the given bytes, then the given ending          |
/// | ``closeBeforeAnswer``                   | FIN without a byte                                      |
/// | ``resetBeforeAnswer``                   | RST without a byte                                      |
/// | ``stall``                               | nothing, the connection held open                       |
/// | ``delay(_:)``                           | silence, then the route's reply                         |
/// | ``cutMidBody(then:)``                   | the route's head and half its body, then FIN or RST     |
/// | ``drip(bytesPerChunk:every:)``          | the route's response a few bytes at a time              |
/// | ``dripBody(every:)``                    | the route's head, then its body a byte at a time        |
/// | ``resetMidHead``                        | the first half of the route's head, then RST            |
/// | ``partialBody``                         | the route's head and half its body, framed as whole     |
/// | ``malformedJSON``                       | a 200 whose JSON body does not parse                    |
/// | ``malformedStatusLine``                 | a status line with a status that is not a number        |
/// | ``oversizedHead(bytes:)``               | the route's head padded with fields past `bytes`        |
/// | ``oversizedBody(bytes:)``               | a 200 with a body of `bytes` bytes                      |
/// | ``compressionBomb(inflatedSize:)``      | a small gzip body that inflates to `inflatedSize` bytes |
/// | ``wrongContentEncoding``                | the route's body labelled `Content-Encoding: gzip`      |
/// | ``brokenChunkedFraming``                | a chunk size that is not hexadecimal                    |
/// | ``disagreeingContentLengths``           | two `Content-Length` fields with different values       |
/// | ``redirectLoop``                        | a 302 back to the request's own target                  |
/// | ``interimFlood(heads:every:)``          | `100 Continue` heads without end                        |
/// | ``overloaded(status:retryAfter:)``      | a 503 or 429, with the given `Retry-After` or none      |
/// | ``rateLimited(perSecond:retryAfter:rateLimitFields:counts:)`` | the route's reply up to a number a second, then 429s, with `RateLimit` fields |
/// | ``outage(after:lasting:status:retryAfter:counts:)`` | the route's reply, but a 503 to everything for a window of time |
extension LoopbackFault {
    /// `reply` instead of the route's.
    public static func replying(_ reply: LoopbackReply) -> LoopbackFault {
        LoopbackFault("reply") { _, _ in reply }
    }

    /// `bytes` exactly as given instead of the route's reply, then `ending`; see
    /// ``LoopbackReply/raw(chunks:pause:then:)``.
    public static func raw(_ bytes: [UInt8], then ending: LoopbackReply.Ending = .close) -> LoopbackFault {
        LoopbackFault("raw") { _, _ in .raw(bytes, then: ending) }
    }

    /// `text` in UTF-8 exactly as given instead of the route's reply, then `ending`.
    public static func raw(_ text: String, then ending: LoopbackReply.Ending = .close) -> LoopbackFault {
        raw(Array(text.utf8), then: ending)
    }

    /// The connection closes (a FIN) before a byte of the reply: an empty reply.
    public static let closeBeforeAnswer = LoopbackFault("close-before-answer") { _, _ in .closeWithoutResponse }

    /// The connection is reset (an RST) before a byte of the reply.
    public static let resetBeforeAnswer = LoopbackFault("reset-before-answer") { _, _ in .raw([], then: .reset) }

    /// No answer at all; see ``LoopbackReply/stall``.
    public static let stall = LoopbackFault("stall") { _, _ in .stall }

    /// The route's reply after `duration` of silence (real time).
    public static func delay(_ duration: Duration) -> LoopbackFault {
        LoopbackFault("delay") { request, route in .delayed(duration, await route(request)) }
    }

    /// The route's response head, with its `Content-Length`, and the first half of its body; then
    /// the connection ends as `ending` says (``LoopbackReply/Ending/close`` or
    /// ``LoopbackReply/Ending/reset``; the others leave a client waiting for the rest).
    ///
    /// Applies to a route that answers ``LoopbackReply/respond(status:headers:body:)`` or
    /// ``LoopbackReply/stream(status:headers:chunks:pause:)`` (after any delay); any other reply is
    /// sent as it is.
    public static func cutMidBody(then ending: LoopbackReply.Ending = .close) -> LoopbackFault {
        LoopbackFault("cut-mid-body") { request, route in
            let reply = await route(request)
            guard let (head, body) = reply.wireResponse(to: request) else { return reply }
            return .raw(head + body.prefix(body.count / 2), then: ending)
        }
    }

    /// The route's response head at once, then its body one byte at a time with `pause` before
    /// each: a body that keeps moving, slowly, and arrives whole in the end.
    ///
    /// Applies to the same replies as ``cutMidBody(then:)``; any other reply is sent as it is.
    public static func dripBody(every pause: Duration) -> LoopbackFault {
        LoopbackFault("drip-body") { request, route in
            let reply = await route(request)
            guard let (head, body) = reply.wireResponse(to: request) else { return reply }
            return .raw(chunks: [head] + body.map { [$0] }, pause: pause, then: .keepOpen)
        }
    }

    /// The first half of the route's response head, then a reset (RST): a server or a middlebox
    /// that died while it wrote the head.
    ///
    /// Applies to the same replies as ``cutMidBody(then:)``; any other reply is sent as it is.
    public static let resetMidHead = LoopbackFault("reset-mid-head") { request, route in
        let reply = await route(request)
        guard let (head, _) = reply.wireResponse(to: request) else { return reply }
        return .raw(Array(head.prefix(head.count / 2)), then: .reset)
    }

    /// The route's response head and the first half of its body, with a `Content-Length` that says
    /// the half is all: a response whole by its framing whose content is cut short, such as partial
    /// JSON from a server that ran out of something while it wrote.
    ///
    /// Applies to the same replies as ``cutMidBody(then:)``; any other reply is sent as it is.
    public static let partialBody = LoopbackFault("partial-body") { request, route in
        let reply = await route(request)
        guard let (head, body) = reply.wireResponse(to: request, body: { Array($0.prefix($0.count / 2)) }) else {
            return reply
        }
        return .raw(head + body, then: .keepOpen)
    }

    /// A `200 OK` labelled `application/json` whose body is not JSON that parses.
    public static let malformedJSON = LoopbackFault("malformed-json") { _, _ in
        .json(#"[{"id": 1}, {"id": ]"#)
    }

    /// A status line whose status is not a number (`HTTP/1.1 2x0 OK`), then the connection closes.
    public static let malformedStatusLine = LoopbackFault("malformed-status-line") { _, _ in
        .raw("HTTP/1.1 2x0 OK\r\nContent-Length: 2\r\n\r\nok")
    }

    /// The route's response with header fields of 1,000 bytes added until its head is `bytes` long
    /// or longer: a head past what a client keeps (libcurl keeps 300 KiB).
    ///
    /// Applies to the same replies as ``cutMidBody(then:)``; any other reply is sent as it is.
    public static func oversizedHead(bytes: Int = 400 * 1024) -> LoopbackFault {
        // Fields of about 1,000 bytes on the wire (name, ": ", value, CRLF) until they alone make
        // `bytes`: the head is then just past it.
        var fields: [(String, String)] = []
        var size = 0
        while size < bytes {
            let name = "X-Padding-\(fields.count)"
            fields.append((name, String(repeating: "p", count: 980)))
            size += name.utf8.count + 2 + 980 + 2
        }
        let padding = fields
        return LoopbackFault("oversized-head") { request, route in
            let reply = await route(request)
            guard let (head, body) = reply.wireResponse(to: request, addingFields: padding) else { return reply }
            return .raw(head + body, then: .keepOpen)
        }
    }

    /// A `200 OK` whose body is `bytes` bytes of `x`, with its `Content-Length`.
    public static func oversizedBody(bytes: Int) -> LoopbackFault {
        let body = [UInt8](repeating: UInt8(ascii: "x"), count: max(0, bytes))
        return LoopbackFault("oversized-body") { _, _ in
            .respond(status: 200, headers: [("Content-Type", "application/octet-stream")], body: body)
        }
    }

    /// A `200 OK` with `Content-Encoding: gzip` whose small body inflates to `inflatedSize` zero
    /// bytes (1 MiB by default, from 6.4 KiB): a compression bomb, for a client whose size limit
    /// must hold against the decoded body rather than the bytes on the wire.
    public static func compressionBomb(inflatedSize: Int = 1024 * 1024) -> LoopbackFault {
        let body = GzipZeros.stream(inflatingTo: inflatedSize)
        return LoopbackFault("compression-bomb") { _, _ in
            .respond(
                status: 200, headers: [("Content-Type", "application/json"), ("Content-Encoding", "gzip")], body: body)
        }
    }

    /// The route's response labelled `Content-Encoding: gzip`, its body sent as it is (not gzip).
    ///
    /// Applies to the same replies as ``cutMidBody(then:)``; any other reply is sent as it is.
    public static let wrongContentEncoding = LoopbackFault("wrong-content-encoding") { request, route in
        let reply = await route(request)
        guard let (head, body) = reply.wireResponse(to: request, addingFields: [("Content-Encoding", "gzip")]) else {
            return reply
        }
        return .raw(head + body, then: .keepOpen)
    }

    /// A chunked body whose first chunk size is not hexadecimal (`zz`), then the connection closes.
    public static let brokenChunkedFraming = LoopbackFault("broken-chunked-framing") { _, _ in
        .raw("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nok\r\n0\r\n\r\n")
    }

    /// Two `Content-Length` fields that disagree (2 and 7), so where the body ends is unknowable,
    /// then the connection closes.
    public static let disagreeingContentLengths = LoopbackFault("disagreeing-content-lengths") { _, _ in
        .raw("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 7\r\n\r\nokHTTP/1")
    }

    /// A `302 Found` back to the request's own target, whatever the route: a redirect loop.
    public static let redirectLoop = LoopbackFault("redirect-loop") { request, _ in
        .respond(status: 302, headers: [("Location", request.target)])
    }

    /// `100 Continue` heads without a final response: 100 heads at once, then 100 more after each
    /// `pause`, `heads` in all (at least one; a million by default, for 10 s with the default
    /// pause), then the connection closes.
    public static func interimFlood(heads: Int = 1_000_000, every pause: Duration = .milliseconds(1)) -> LoopbackFault {
        let perChunk = 100
        let heads = max(1, heads)
        let interim = "HTTP/1.1 100 Continue\r\n\r\n"
        let chunk = Array(String(repeating: interim, count: perChunk).utf8)
        // Every chunk shares the one buffer: the flood costs a pointer per chunk, not its bytes.
        let rest = heads % perChunk > 0 ? [Array(String(repeating: interim, count: heads % perChunk).utf8)] : []
        let chunks = [[UInt8]](repeating: chunk, count: heads / perChunk) + rest
        return LoopbackFault("interim-flood") { _, _ in .raw(chunks: chunks, pause: pause, then: .close) }
    }

    /// `status` (503 by default, or 429) with `Retry-After: retryAfter` (none if `nil`), sent as
    /// given, so that it can be valid, absurd or malformed; injected for every request, a storm.
    public static func overloaded(status: Int = 503, retryAfter: String? = nil) -> LoopbackFault {
        let headers = retryAfter.map { [("Retry-After", $0)] } ?? []
        return LoopbackFault("overloaded-\(status)") { _, _ in .respond(status: status, headers: headers) }
    }

    /// The route's whole response, head and body, `bytesPerChunk` bytes at a time with `pause`
    /// before each chunk after the first: a slow drip that arrives complete in the end.
    ///
    /// Applies to the same replies as ``cutMidBody(then:)``; any other reply is sent as it is.
    public static func drip(bytesPerChunk: Int = 1, every pause: Duration) -> LoopbackFault {
        let size = max(1, bytesPerChunk)
        return LoopbackFault("drip") { request, route in
            let reply = await route(request)
            guard let (head, body) = reply.wireResponse(to: request) else { return reply }
            let bytes = head + body
            let chunks = stride(from: 0, to: bytes.count, by: size).map {
                Array(bytes[$0..<min($0 + size, bytes.count)])
            }
            return .raw(chunks: chunks, pause: pause, then: .keepOpen)
        }
    }
}

extension LoopbackReply {
    /// The bytes of a complete response (head, with `Content-Length` of the whole body, and body)
    /// that the server would send for this reply to `request`, for faults that spoil them; `nil` for
    /// a reply that is not a response.
    ///
    /// Only ``respond(status:headers:body:)`` and ``stream(status:headers:chunks:pause:)`` are
    /// responses, found under any ``delayed(_:_:)``. A head that cannot be sent becomes the server's
    /// `500`, as it would on the normal path.
    ///
    /// `fields` go at the end of the head; `body` changes the body before its length is taken.
    func wireResponse(
        to request: LoopbackRequest,
        addingFields fields: [(String, String)] = [],
        body transform: ([UInt8]) -> [UInt8] = { $0 }
    ) -> (head: [UInt8], body: [UInt8])? {
        let status: Int
        let headers: [(String, String)]
        var body: [UInt8]
        switch replacingUnsendableHead() {
        case .respond(let code, let fields, let bytes):
            (status, headers, body) = (code, fields, bytes)
        case .stream(let code, let fields, let chunks, _):
            (status, headers, body) = (code, fields, chunks.flatMap { $0 })
        case .delayed(_, let reply):
            return reply.wireResponse(to: request, addingFields: fields, body: transform)
        case .closeMidBody, .stallMidBody, .stall, .closeWithoutResponse, .raw:
            return nil
        }
        let responseStatus = HTTPResponseStatus(statusCode: status)
        var head = "HTTP/1.1 \(status) \(responseStatus.reasonPhrase)\r\n"
        for (name, value) in headers
        where !name.caseInsensitiveEquals("content-length") && !name.caseInsensitiveEquals("transfer-encoding") {
            head += "\(name): \(value)\r\n"
        }
        for (name, value) in fields {
            head += "\(name): \(value)\r\n"
        }
        body = transform(body)
        if responseStatus.mayHaveResponseBody {
            head += "Content-Length: \(body.count)\r\n"
        }
        if request.method == "HEAD" || !responseStatus.mayHaveResponseBody {
            body = []
        }
        return (Array((head + "\r\n").utf8), body)
    }
}
