/// What a request's reply becomes when a ``LoopbackFaultRule`` picks it: a fault of the server or of
/// the network between it and the client.
///
/// A fault is a function of the request and of the route that would have answered it, so it can
/// replace the reply (a reset before any byte), wrap it (a delay) or spoil it (its body cut short).
/// The kit's own faults are static members (``resetBeforeAnswer``, ``cutMidBody(then:)``, …); a test
/// builds one of its own, or the kit a new one, with ``init(_:reply:)`` out of any ``LoopbackReply``,
/// raw bytes included:
///
/// ```swift
/// extension LoopbackFault {
///     /// A captive portal's login page instead of the API's answer: HTML, and a 200.
///     static let captivePortal = LoopbackFault("captive-portal") { _, _ in
///         .respond(status: 200, headers: [("Content-Type", "text/html")], body: Array("<html>Sign in</html>".utf8))
///     }
/// }
/// ```
public struct LoopbackFault: Sendable, CustomStringConvertible {
    /// Makes the reply to `request` from the reply `route` would give, which it may ask for or not.
    public typealias Reply =
        @Sendable (_ request: LoopbackRequest, _ route: LoopbackServer.Handler) async -> LoopbackReply

    /// The fault's name, such as `reset-before-answer`, under which ``LoopbackFaults/injected`` counts it.
    public let description: String
    private let makeReply: Reply

    /// Creates a fault.
    ///
    /// - Parameters:
    ///   - description: The fault's name, for counts and messages.
    ///   - reply: Makes the reply to a request the fault picked; it runs off the event loop, as a
    ///     route's handler does, and may suspend.
    public init(_ description: String, reply: @escaping Reply) {
        self.description = description
        makeReply = reply
    }

    /// The reply to `request` under this fault, where `route` is what would have answered it.
    public func reply(to request: LoopbackRequest, insteadOf route: LoopbackServer.Handler) async -> LoopbackReply {
        await makeReply(request, route)
    }
}
