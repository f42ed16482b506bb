import NIOCore

/// Carries out a ``LoopbackReply`` on a connection: waits in its task, writes on the event loop.
///
/// Delays and pauses are `Task.sleep` calls in the reply's task, so they are cancelled with it when the
/// connection closes. Every write hops to the connection's event loop and is awaited, which keeps a
/// slow reader from piling up chunks in memory and stops the reply as soon as a write fails. If any
/// step fails, the connection is closed: the response on it can no longer be completed.
struct LoopbackReplyPerformer: Sendable {
    /// The handler of the connection, usable only on its event loop.
    let connection: NIOLoopBound<LoopbackConnectionHandler>
    /// The connection's event loop.
    let eventLoop: any EventLoop

    /// Carries out `reply` to the connection's current request.
    func perform(_ reply: LoopbackReply) async {
        do {
            try await carryOut(reply.replacingUnsendableHead())
        } catch {
            try? await onConnection { $0.closeConnection() }
        }
    }

    private func carryOut(_ reply: LoopbackReply) async throws {
        switch reply {
        case .respond(let status, let headers, let body):
            try await onConnection { connection in
                connection.writeHead(status: status, headers: headers, framing: .lengthUnlessGiven(body.count))
                connection.writeBody(body, flush: false)
                return connection.finishResponse()
            }

        case .stream(let status, let headers, let chunks, let pause):
            let firstChunk = chunks.first ?? []
            try await onConnection { connection in
                connection.writeHead(status: status, headers: headers, framing: .chunkedUnlessGiven)
                return connection.writeBody(firstChunk, flush: true)
            }
            for chunk in chunks.dropFirst() {
                if pause > .zero {
                    try await Task.sleep(for: pause)
                }
                try await onConnection { $0.writeBody(chunk, flush: true) }
            }
            try await onConnection { $0.finishResponse() }

        case .closeMidBody(let status, let headers, let declaredLength, let partialBody):
            try await onConnection { connection in
                connection.writeHead(status: status, headers: headers, framing: .declaredLength(declaredLength))
                return connection.writeBody(partialBody, flush: true)
            }
            try await onConnection { $0.closeConnection() }

        case .stallMidBody(let status, let headers, let declaredLength, let partialBody):
            // Once the bytes are out, doing nothing more is the stall: the connection stays busy with
            // this request until it closes.
            try await onConnection { connection in
                connection.writeHead(status: status, headers: headers, framing: .declaredLength(declaredLength))
                return connection.writeBody(partialBody, flush: true)
            }

        case .stall:
            // Nothing to do: the request stays current, so the connection never answers again.
            break

        case .closeWithoutResponse:
            try await onConnection { $0.closeConnection() }

        case .delayed(let delay, let reply):
            try await Task.sleep(for: delay)
            try await carryOut(reply)

        case .raw(let chunks, let pause, let ending):
            for (index, chunk) in chunks.enumerated() {
                if index > 0, pause > .zero {
                    try await Task.sleep(for: pause)
                }
                try await onConnection { $0.writeRaw(chunk) }
            }
            try await onConnection { $0.finishRawReply(then: ending) }
        }
    }

    /// Runs `step` on the event loop with the connection's handler and waits for the future it returns.
    private func onConnection(
        _ step: @escaping @Sendable (LoopbackConnectionHandler) -> EventLoopFuture<Void>
    ) async throws {
        let connection = self.connection
        try await eventLoop.flatSubmit { step(connection.value) }.get()
    }
}

extension LoopbackReply {
    /// The statuses a response can carry: a status line has exactly three digits.
    static let validStatuses = 100...999

    /// The reply itself, or `500 Internal Server Error` with a plain-text reason if its head (or that of
    /// the reply it delays) cannot be sent: a status outside ``validStatuses``, or a header field that
    /// no response may carry.
    ///
    /// A route or a scripted failure with a status such as `-3` or `1000`, or a header with a CR or LF
    /// in its value, is a mistake in the test; answering it with a 500 shows the mistake without
    /// crashing the server, putting a status line on the wire that no client can parse, or letting a
    /// value inject headers (NIO would refuse such a head and the connection would close without a byte).
    func replacingUnsendableHead() -> LoopbackReply {
        let status: Int
        let headers: [(String, String)]
        switch self {
        case .respond(let code, let fields, _), .stream(let code, let fields, _, _),
            .closeMidBody(let code, let fields, _, _), .stallMidBody(let code, let fields, _, _):
            (status, headers) = (code, fields)
        case .stall, .closeWithoutResponse, .raw:
            return self
        case .delayed(let delay, let reply):
            return .delayed(delay, reply.replacingUnsendableHead())
        }
        guard Self.validStatuses.contains(status) else {
            return .text(
                "Invalid status \(status) in a scripted reply: a status has three digits, 100 to 999.\n", status: 500)
        }
        if let (name, _) = headers.first(where: { !Self.isSendableField(name: $0.0, value: $0.1) }) {
            return .text(
                "Invalid header field \(name.debugDescription) in a scripted reply: a name is a token (letters, "
                    + "digits, !#$%&'*+-.^_`|~) and a value holds no control character but a tab.\n",
                status: 500
            )
        }
        return self
    }

    /// Whether a header field may go on the wire, by RFC 9110's rules as SwiftNIO enforces them; an
    /// empty name, which NIO would let through, is refused too.
    private static func isSendableField(name: String, value: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy(isTokenCharacter) && isSendableFieldValue(value)
    }

    /// Whether `value` may be a header field's value: it holds no control character but a tab.
    static func isSendableFieldValue(_ value: String) -> Bool {
        value.utf8.allSatisfy { $0 == UInt8(ascii: "\t") || ($0 >= 0x20 && $0 != 0x7F) }
    }

    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "A")...UInt8(ascii: "Z"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
