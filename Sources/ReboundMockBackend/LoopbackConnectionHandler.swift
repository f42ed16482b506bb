import NIOCore
import NIOHTTP1

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Serves the requests of one connection, one at a time and in the order they arrived.
///
/// The handler keeps reading while a reply is under way, so it notices a client that goes away even
/// while a reply stalls; complete requests that arrive meanwhile wait in a queue. Once the queue holds
/// ``LoopbackServer/Limits/maxQueuedRequests`` requests, the handler holds back the channel's reads
/// until a response completes (NIO still reports the end of input), so an endless pipeline waits in
/// the socket buffers rather than in memory. Answering a request takes three steps:
///
/// 1. On the event loop, the handler takes the next request and starts a `Task` for it.
/// 2. In the task, the route handler (or a fault the server's ``LoopbackFaults`` chose) decides the reply and ``LoopbackReplyPerformer`` waits out any
///    delays and pauses.
/// 3. The performer hops back to the event loop for every write, through the methods in the extension
///    below, and the last one (``finishResponse()``) starts the next request.
///
/// Nothing but the event loop touches the handler's state. When the connection closes, the running
/// task is cancelled and the queue dropped. When only the client's side ends (a half-close, or a
/// client that left: the two look the same until a write fails), the requests received so far are
/// still answered, and the connection closes after the last response.
final class LoopbackConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// How a response head marks where its body ends.
    enum BodyFraming {
        /// `Content-Length` of the given length, unless the reply's headers already frame the body.
        case lengthUnlessGiven(Int)
        /// `Transfer-Encoding: chunked`, unless the reply's headers already frame the body.
        case chunkedUnlessGiven
        /// `Content-Length` of the given length, replacing whatever framing the reply's headers have.
        case declaredLength(Int)
    }

    /// A complete request waiting to be answered.
    private struct ReceivedRequest {
        var request: LoopbackRequest
        var head: HTTPRequestHead
    }

    /// What the connection has to answer, in the order it arrived.
    private enum PendingWork {
        /// A well-formed request.
        case request(ReceivedRequest)
        /// Bytes that are not HTTP (`400 Bad Request`), a request over a limit (`413 Content Too
        /// Large`) or whose body came too slowly (`408 Request Timeout`), answered with the status and
        /// the end of the connection.
        case refusal(HTTPResponseStatus)
    }

    private let connectionNumber: Int
    private let routes: [LoopbackRoute]
    private let faults: LoopbackFaults
    private let limits: LoopbackServer.Limits
    private let registry: LoopbackConnectionRegistry
    private let eventLoop: any EventLoop

    private var context: ChannelHandlerContext?
    /// The context of the HTTP response encoder, the handler nearest the socket: bytes written from
    /// it reach the socket unencoded, for ``LoopbackReply/raw(chunks:pause:then:)``.
    private var rawOutput: ChannelHandlerContext?

    /// The head of the request being received, until its end arrives.
    private var incomingHead: HTTPRequestHead?
    /// The body received so far of the request being received.
    private var incomingBody = ByteBuffer()
    /// Whether the request being received asked for `100 Continue` and has not had it yet.
    private var incomingAwaitsContinue = false
    /// Complete requests waiting for the one being answered, perhaps ending with a refusal.
    private var waitingWork = CircularBuffer<PendingWork>()
    /// Whether a refusal is queued, after which input is ignored: the connection ends with it.
    private var ignoresInput = false
    /// Whether the channel asked to read while reads were held back (see ``read(context:)``).
    private var isReadHeldBack = false
    /// Whether the client has ended its side of the connection: no more requests will come.
    private var isInputClosed = false
    /// Closes the connection if no request head arrives in time; runs only while waiting for one.
    private var idleTimer: Scheduled<Void>?
    /// Refuses the request being received if its body does not arrive in time; runs only while
    /// receiving a body that the server reads and the client has been told to send.
    private var bodyTimer: Scheduled<Void>?
    /// Counts the body timers started, so that one cancelled just as it was due does nothing.
    private var bodyTimerGeneration = 0

    /// The request being answered, or `nil` between requests.
    private var currentRequest: ReceivedRequest?
    /// The task deciding and performing the reply to ``currentRequest``.
    private var replyTask: Task<Void, Never>?
    /// Whether body bytes of the current response go on the wire (not for `HEAD` or a status without body).
    private var sendsBody = false
    /// Whether the connection closes once the current response is complete.
    private var closesAfterResponse = false
    /// Whether the connection is closing or closed, after which nothing more is written.
    private var isClosing = false

    init(
        connectionNumber: Int,
        routes: [LoopbackRoute],
        faults: LoopbackFaults,
        limits: LoopbackServer.Limits,
        registry: LoopbackConnectionRegistry,
        eventLoop: any EventLoop
    ) {
        self.connectionNumber = connectionNumber
        self.routes = routes
        self.faults = faults
        self.limits = limits
        self.registry = registry
        self.eventLoop = eventLoop
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        rawOutput = try? context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        rawOutput = nil
        isClosing = true
        idleTimer?.cancel()
        stopBodyTimer()
        replyTask?.cancel()
    }

    func channelActive(context: ChannelHandlerContext) {
        startIdleTimer()
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        isClosing = true
        idleTimer?.cancel()
        stopBodyTimer()
        replyTask?.cancel()
        waitingWork.removeAll()
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            // A request cut short by the end of input can never be answered; the ones received whole
            // are, then the connection closes (see `startNextExchange` and `finishResponse`).
            isInputClosed = true
            incomingHead = nil
            incomingBody = ByteBuffer()
            incomingAwaitsContinue = false
            stopBodyTimer()
            startNextExchange()
            closeAfterIdleTimeoutEvenIfAnswering()
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !ignoresInput else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            // A length too large for `Int` is certainly too large; the decoder rejects non-numbers.
            if let declaredLength = head.headers["content-length"].first.map({ Int($0) ?? .max }),
                declaredLength > limits.maxRequestBodySize
            {
                refuseInput(with: .payloadTooLarge)
                return
            }
            idleTimer?.cancel()
            idleTimer = nil
            incomingHead = head
            incomingBody.clear()
            incomingAwaitsContinue =
                (head.version.major, head.version.minor) >= (1, 1)
                && head.headers["expect"].contains { $0.caseInsensitiveEquals("100-continue") }
            if head.headers.contains(name: "transfer-encoding")
                || head.headers["content-length"].contains(where: { $0 != "0" })
            {
                startBodyTimer()
            }
            sendContinueIfAwaited()
        case .body(var part):
            guard incomingBody.readableBytes + part.readableBytes <= limits.maxRequestBodySize else {
                refuseInput(with: .payloadTooLarge)
                return
            }
            incomingBody.writeBuffer(&part)
        case .end:
            guard let head = incomingHead else { return }
            incomingHead = nil
            stopBodyTimer()
            incomingAwaitsContinue = false
            let request = LoopbackRequest(
                method: head.method.rawValue,
                target: head.uri,
                headers: head.headers.map { (name: $0.name, value: $0.value) },
                body: Array(incomingBody.readableBytesView),
                connectionNumber: connectionNumber,
                httpVersion: "\(head.version.major).\(head.version.minor)"
            )
            incomingBody.clear()
            registry.requestReceived(path: request.path)
            waitingWork.append(.request(ReceivedRequest(request: request, head: head)))
            startNextExchange()
        }
    }

    /// Passes the channel's request to read on, unless the queue is full or input is ignored.
    ///
    /// With reads held back, the socket's buffers fill and the client's sends block: the backpressure
    /// that keeps an endless pipeline out of memory. ``startNextExchange()`` lets the read through once
    /// the queue has room.
    func read(context: ChannelHandlerContext) {
        if ignoresInput || waitingWork.count >= limits.maxQueuedRequests {
            isReadHeldBack = true
        } else {
            context.read()
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !isClosing else { return }
        guard error is HTTPParserError else {
            // The socket failed: nothing more can be sent or received.
            isClosing = true
            replyTask?.cancel()
            context.close(promise: nil)
            return
        }
        // The decoder cannot find where a next request would start, so the connection ends with a 400.
        guard !ignoresInput else { return }
        refuseInput(with: .badRequest)
    }

    /// Drops the request being received and queues `status` as the connection's last answer.
    ///
    /// Requests that arrived whole before still get their responses, in order; then the refusal is
    /// sent and the connection closes. Input from then on is ignored, and no longer read.
    private func refuseInput(with status: HTTPResponseStatus) {
        stopBodyTimer()
        incomingHead = nil
        incomingBody = ByteBuffer()
        incomingAwaitsContinue = false
        ignoresInput = true
        waitingWork.append(.refusal(status))
        startNextExchange()
    }

    /// Starts answering the next waiting request, if the connection is free and open.
    private func startNextExchange() {
        guard currentRequest == nil, !isClosing, let context else { return }
        let work = waitingWork.popFirst()
        if isReadHeldBack && !ignoresInput && waitingWork.count < limits.maxQueuedRequests {
            isReadHeldBack = false
            // The body could not arrive while the server did not read: its time starts again.
            if bodyTimer != nil { startBodyTimer() }
            context.read()
        }
        switch work {
        case nil where isInputClosed:
            // Everything received is answered, and nothing more can come.
            isClosing = true
            idleTimer?.cancel()
            context.close(promise: nil)
        case nil:
            sendContinueIfAwaited()
            if incomingHead == nil { startIdleTimer() }
        case .refusal(let status):
            answerRefusal(status, context: context)
        case .request(let next):
            currentRequest = next
            sendsBody = false
            closesAfterResponse = !next.head.isKeepAlive
            let handler = routes.first { $0.matches(next.request) }?.handler ?? Self.answerNoRoute
            let fault = faults.fault(for: next.request)
            let performer = LoopbackReplyPerformer(
                connection: NIOLoopBound(self, eventLoop: eventLoop),
                eventLoop: eventLoop
            )
            let request = next.request
            replyTask = Task {
                let reply =
                    if let fault {
                        await fault.reply(to: request, insteadOf: handler)
                    } else {
                        await handler(request)
                    }
                await performer.perform(reply)
            }
        }
    }

    /// Starts (again) the wait for a request head, which closes the connection after
    /// ``LoopbackServer/Limits/idleTimeout``.
    ///
    /// Only a connection with nothing to answer waits: the timer is cancelled when a head arrives and
    /// started again when the last queued response completes, so a reply that takes long (or stalls
    /// by design) never counts as idle.
    private func startIdleTimer() {
        idleTimer?.cancel()
        guard !isClosing, let context else { return }
        idleTimer = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(limits.idleTimeout)) {
            [self] in
            guard currentRequest == nil, waitingWork.isEmpty, incomingHead == nil, !isClosing else { return }
            isClosing = true
            self.context?.close(promise: nil)
        }
    }

    /// Closes the connection after ``LoopbackServer/Limits/idleTimeout``, replies under way or not.
    ///
    /// Used once the client's side has ended: a client that left looks the same as one that
    /// half-closed, and a stalled reply to it would otherwise hold the connection until shutdown.
    private func closeAfterIdleTimeoutEvenIfAnswering() {
        guard !isClosing, let context else { return }
        idleTimer?.cancel()
        idleTimer = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(limits.idleTimeout)) {
            [self] in
            guard !isClosing else { return }
            isClosing = true
            replyTask?.cancel()
            self.context?.close(promise: nil)
        }
    }

    /// Starts (again) the wait for the body of the request being received, which refuses it with
    /// `408 Request Timeout` after ``LoopbackServer/Limits/requestBodyTimeout``.
    ///
    /// Time in which the client could not send the body does not count: when the timer fires while the
    /// client still waits for `100 Continue` or the server holds back its reads, it starts again (and
    /// both sending the `100 Continue` and reading again restart it too).
    private func startBodyTimer() {
        stopBodyTimer()
        guard !isClosing, let context else { return }
        let generation = bodyTimerGeneration
        bodyTimer = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(limits.requestBodyTimeout)) {
            [self] in
            // A timer already due when it was cancelled (in the same turn of the event loop) still runs.
            guard generation == bodyTimerGeneration else { return }
            bodyTimer = nil
            guard incomingHead != nil, !ignoresInput, !isClosing else { return }
            if incomingAwaitsContinue || isReadHeldBack {
                startBodyTimer()
            } else {
                refuseInput(with: .requestTimeout)
            }
        }
    }

    private func stopBodyTimer() {
        bodyTimer?.cancel()
        bodyTimer = nil
        bodyTimerGeneration &+= 1
    }

    /// Sends `status` without a body and closes the connection once it is sent.
    private func answerRefusal(_ status: HTTPResponseStatus, context: ChannelHandlerContext) {
        isClosing = true
        let headers = HTTPHeaders([("Connection", "close"), ("Content-Length", "0")])
        let head = HTTPResponseHead(version: .http1_1, status: status, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }

    /// Tells a client waiting with `Expect: 100-continue` to send its body, once no earlier response is
    /// under way (an interim response must not land in the middle of another response).
    private func sendContinueIfAwaited() {
        guard incomingAwaitsContinue, currentRequest == nil, waitingWork.isEmpty, !isClosing, let context else {
            return
        }
        incomingAwaitsContinue = false
        let head = HTTPResponseHead(version: .http1_1, status: .continue)
        context.writeAndFlush(wrapOutboundOut(.head(head)), promise: nil)
        // The client sends its body only now, so its time starts now.
        if bodyTimer != nil { startBodyTimer() }
    }

    /// The reply to a request no route matches.
    private static let answerNoRoute: LoopbackServer.Handler = { request in
        .text("No route for \(request.method) \(request.path)\n", status: 404)
    }
}

// MARK: - Steps of a reply, called by LoopbackReplyPerformer on the event loop

extension LoopbackConnectionHandler {
    /// Writes, without flushing, the head of the response to the current request.
    ///
    /// Adds the framing header `framing` asks for, and `Connection: close` when the connection will
    /// close after the response (or `Connection: keep-alive` for an HTTP/1.0 client that asked to keep it).
    func writeHead(status code: Int, headers: [(String, String)], framing: BodyFraming) {
        guard let context, let currentRequest, !isClosing else { return }
        let status = HTTPResponseStatus(statusCode: code)
        let requestHead = currentRequest.head
        var fields = HTTPHeaders(headers)
        let isFramedByReply = fields.contains(name: "content-length") || fields.contains(name: "transfer-encoding")
        switch framing {
        case .lengthUnlessGiven(let length):
            if !isFramedByReply && status.mayHaveResponseBody {
                fields.add(name: "Content-Length", value: String(length))
            }
        case .chunkedUnlessGiven:
            if !isFramedByReply && status.mayHaveResponseBody {
                if (requestHead.version.major, requestHead.version.minor) >= (1, 1) {
                    fields.add(name: "Transfer-Encoding", value: "chunked")
                } else {
                    // An HTTP/1.0 client cannot read chunks: the end of the connection ends the body.
                    closesAfterResponse = true
                }
            }
        case .declaredLength(let length):
            fields.remove(name: "content-length")
            fields.remove(name: "transfer-encoding")
            fields.add(name: "Content-Length", value: String(length))
        }
        if fields["connection"].contains(where: { $0.caseInsensitiveEquals("close") }) {
            closesAfterResponse = true
        } else if !fields.contains(name: "connection") {
            if closesAfterResponse {
                fields.add(name: "Connection", value: "close")
            } else if (requestHead.version.major, requestHead.version.minor) < (1, 1) {
                fields.add(name: "Connection", value: "keep-alive")
            }
        }
        sendsBody = status.mayHaveResponseBody && requestHead.method != .HEAD
        let head = HTTPResponseHead(version: .http1_1, status: status, headers: fields)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
    }

    /// Writes body bytes of the current response, unless its body is not sent (`HEAD`, 204, 304).
    ///
    /// - Returns: A future that completes once the bytes are handed to the socket, if `flush` is set.
    @discardableResult
    func writeBody(_ bytes: [UInt8], flush: Bool) -> EventLoopFuture<Void> {
        guard let context, currentRequest != nil, !isClosing else {
            return eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel)
        }
        guard sendsBody else {
            if flush { context.flush() }
            return eventLoop.makeSucceededVoidFuture()
        }
        let part = HTTPServerResponsePart.body(.byteBuffer(context.channel.allocator.buffer(bytes: bytes)))
        return flush ? context.writeAndFlush(wrapOutboundOut(part)) : context.write(wrapOutboundOut(part))
    }

    /// Ends the current response, then closes the connection or starts answering the next request.
    ///
    /// - Returns: A future that completes once the response is handed to the socket.
    func finishResponse() -> EventLoopFuture<Void> {
        guard let context, currentRequest != nil, !isClosing else {
            return eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel)
        }
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        currentRequest = nil
        replyTask = nil
        if closesAfterResponse || (isInputClosed && waitingWork.isEmpty) {
            isClosing = true
            // Closing discards writes still queued, so wait until the response has left.
            written.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        } else {
            startNextExchange()
        }
        return written
    }

    /// Writes and flushes `bytes` as they are, past the HTTP encoder, as part of the current reply.
    ///
    /// - Returns: A future that completes once the bytes are handed to the socket.
    func writeRaw(_ bytes: [UInt8]) -> EventLoopFuture<Void> {
        guard let context, let rawOutput, currentRequest != nil, !isClosing else {
            return eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel)
        }
        return rawOutput.writeAndFlush(NIOAny(context.channel.allocator.buffer(bytes: bytes)))
    }

    /// Ends a raw reply to the current request as `ending` says.
    ///
    /// - Returns: A future that completes once the connection is ready for what comes next.
    func finishRawReply(then ending: LoopbackReply.Ending) -> EventLoopFuture<Void> {
        guard let context, currentRequest != nil, !isClosing else {
            return eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel)
        }
        switch ending {
        case .keepOpen:
            currentRequest = nil
            replyTask = nil
            if closesAfterResponse || (isInputClosed && waitingWork.isEmpty) {
                return closeConnection()
            }
            startNextExchange()
            return eventLoop.makeSucceededVoidFuture()
        case .close:
            return closeConnection()
        case .reset:
            isClosing = true
            // A zero linger time makes close(2) send an RST and drop whatever is still unsent.
            let channel = context.channel
            guard let options = channel as? any SocketOptionProvider else { return closeConnection() }
            return options.setSoLinger(linger(l_onoff: 1, l_linger: 0)).flatMap { channel.close() }
        case .stall:
            // Nothing more: the request stays current, so the connection never answers again.
            return eventLoop.makeSucceededVoidFuture()
        }
    }

    /// Closes the connection at once, whatever has been sent.
    func closeConnection() -> EventLoopFuture<Void> {
        isClosing = true
        context?.close(promise: nil)
        return eventLoop.makeSucceededVoidFuture()
    }
}
