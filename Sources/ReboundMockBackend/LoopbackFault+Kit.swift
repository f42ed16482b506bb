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
    func wireResponse(to request: LoopbackRequest) -> (head: [UInt8], body: [UInt8])? {
        let status: Int
        let headers: [(String, String)]
        var body: [UInt8]
        switch replacingUnsendableHead() {
        case .respond(let code, let fields, let bytes):
            (status, headers, body) = (code, fields, bytes)
        case .stream(let code, let fields, let chunks, _):
            (status, headers, body) = (code, fields, chunks.flatMap { $0 })
        case .delayed(_, let reply):
            return reply.wireResponse(to: request)
        case .closeMidBody, .stallMidBody, .stall, .closeWithoutResponse, .raw:
            return nil
        }
        let responseStatus = HTTPResponseStatus(statusCode: status)
        var head = "HTTP/1.1 \(status) \(responseStatus.reasonPhrase)\r\n"
        for (name, value) in headers
        where !name.caseInsensitiveEquals("content-length") && !name.caseInsensitiveEquals("transfer-encoding") {
            head += "\(name): \(value)\r\n"
        }
        if responseStatus.mayHaveResponseBody {
            head += "Content-Length: \(body.count)\r\n"
        }
        if request.method == "HEAD" || !responseStatus.mayHaveResponseBody {
            body = []
        }
        return (Array((head + "\r\n").utf8), body)
    }
}
