import CCurl
import HTTPTypes
import Rebound
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One request on its way through libcurl.
///
/// A transfer is prepared on the caller's thread (URL, header list, body, options: the work that
/// can run in parallel), then handed to the ``CurlMultiLoop``, which alone touches it while libcurl
/// runs it, and finally handed back through the continuation, after which only the caller reads it.
/// The hand-offs go through a lock and a continuation, which order the accesses; that is why this
/// class can be `@unchecked Sendable`.
final class CurlTransfer: @unchecked Sendable {
    /// What the loop reports when a transfer ends.
    enum Outcome {
        case completed(CURLcode, Completion)
        case stalled
        case cancelled
        case unavailable(String)
        /// The queue of transfers waiting for a connection held this many already.
        case queueFull(Int)
    }

    /// Facts read from the easy handle on the loop thread before it is reused.
    struct Completion {
        var status: Int
        var httpVersion: Int
        var newConnections: Int
        /// Time until the request could be sent: zero when no connection was ever ready. (The
        /// connect time alone is zero on a reused connection too.)
        var pretransferMicroseconds: Int64
        var timings: TransferTimings
        var errorMessage: String?
    }

    let options: TransportOptions
    let easy: CurlEasyHandle
    let stallTimeoutNanoseconds: UInt64
    /// How long it may wait for its turn to connect: its connect timeout, or its total timeout if
    /// shorter.
    let waitLimitNanoseconds: UInt64
    /// Scheme, host and port: the transfers of one origin share its connection limit.
    let origin: String
    private let headerList: RequestHeaderList
    private let requestBody: UnsafeMutableRawBufferPointer?

    /// Set by the caller before submission; resumed exactly once by the loop.
    var continuation: UnsafeContinuation<Outcome, Never>?
    /// Whether the caller's task runs on the loop's own executor, set before submission: such a
    /// caller is resumed at once, since that only queues it for the loop's next turn.
    var resumesOnLoop = false
    /// Set from any thread when the caller's task is cancelled.
    let cancellation = Atomic<Bool>(false)
    /// Set by the loop when it is done with the transfer, read by the caller before it reads the
    /// buffers: an explicit release/acquire pair, so that the hand-back is ordered for every
    /// observer (the thread sanitizer included), not only through the continuation's resumption.
    private let handedBack = Atomic<Bool>(false)

    // Loop-thread state while the transfer runs; the caller reads the receiver after completion.
    var receiver: ResponseReceiver
    var isActive = false
    /// Where the loop keeps it while it is active.
    var activeIndex = 0
    /// The loop's multi handle that runs it, while it is active.
    var shard = 0
    var lastProgressBytes = -1
    var lastProgressTime: UInt64 = 0
    /// When it joined the queue of transfers waiting for a connection, if it waits.
    var queuedAt: UInt64?
    /// Its origin's share of the connections, while it runs or waits.
    var originState: WaitingTransfers.Origin?

    /// Prepares a transfer for `request` on `easy`, which must not be in use elsewhere.
    init(
        request: HTTPRequest,
        body: Data?,
        options: TransportOptions,
        easy: CurlEasyHandle
    ) throws(NetworkError) {
        let settings = try TransferSettings(request: request, hasBody: body != nil, options: options)
        self.options = options
        self.easy = easy
        stallTimeoutNanoseconds = options.stallTimeout.clampedNanoseconds
        waitLimitNanoseconds = min(options.connectTimeout, options.timeout).clampedNanoseconds
        origin = "\(request.scheme ?? "")://\(request.authority ?? "")".lowercased()
        receiver = ResponseReceiver(answersHead: request.method == .head, maxBodySize: options.maxResponseBodySize)
        if let body {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(body.count, 1), alignment: 1)
            body.copyBytes(to: buffer.bindMemory(to: UInt8.self), count: body.count)
            requestBody = UnsafeMutableRawBufferPointer(rebasing: buffer[..<body.count])
        } else {
            requestBody = nil
        }
        headerList = RequestHeaderList(request.headerFields, sendsBody: settings.sendsBody)
        try settings.apply(
            to: easy, requestBody: requestBody, headerList: headerList.head,
            context: Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        requestBody?.deallocate()
    }

    /// A new easy handle wired to the transfer callbacks.
    static func makeHandle(
        certificateAuthorityFile: String?, share: CurlShare?, usesProxyEnvironment: Bool
    ) -> CurlEasyHandle? {
        guard
            let handle = CurlEasyHandle(
                writeBody: curlWriteBody, writeHeader: curlWriteHeader, share: share,
                usesProxyEnvironment: usesProxyEnvironment)
        else {
            return nil
        }
        if let certificateAuthorityFile, handle.set(CURLOPT_CAINFO, certificateAuthorityFile) != CURLE_OK {
            return nil
        }
        return handle
    }

    /// Records, from any thread, that the caller's task was cancelled, for a transfer not yet started.
    func markCancelled() {
        cancellation.store(true, ordering: .releasing)
    }

    /// Called by the loop after its last touch of the transfer, before resuming the caller.
    func markHandedBack() {
        handedBack.store(true, ordering: .releasing)
    }

    /// Whether the caller's task was cancelled.
    var isCancelled: Bool {
        cancellation.load(ordering: .acquiring)
    }

    // MARK: - Loop thread

    /// Reads what the caller will need from the easy handle, before the loop reuses it.
    func completion() -> Completion {
        Completion(
            status: easy.info(long: CURLINFO_RESPONSE_CODE),
            httpVersion: easy.info(long: CURLINFO_HTTP_VERSION),
            newConnections: easy.info(long: CURLINFO_NUM_CONNECTS),
            pretransferMicroseconds: easy.info(offset: CURLINFO_PRETRANSFER_TIME_T),
            timings: TransferTimings(
                nameLookup: .microseconds(easy.info(offset: CURLINFO_NAMELOOKUP_TIME_T)),
                connect: .microseconds(easy.info(offset: CURLINFO_CONNECT_TIME_T)),
                tlsHandshake: .microseconds(easy.info(offset: CURLINFO_APPCONNECT_TIME_T)),
                firstByte: .microseconds(easy.info(offset: CURLINFO_STARTTRANSFER_TIME_T)),
                total: .microseconds(easy.info(offset: CURLINFO_TOTAL_TIME_T))
            ),
            errorMessage: easy.errorMessage
        )
    }

    /// Uploaded bytes so far, which count as progress for the stall limit.
    func bytesUploaded() -> Int {
        requestBody == nil ? 0 : Int(easy.info(offset: CURLINFO_SIZE_UPLOAD_T))
    }

    // MARK: - Finishing (caller's thread)

    /// Turns the loop's outcome into a response or a network error.
    func result(of outcome: Outcome) -> Result<TransportResponse, NetworkError> {
        _ = handedBack.load(ordering: .acquiring)
        switch outcome {
        case .completed(let code, let completion) where code == CURLE_OK:
            return .success(response(completion))
        case .completed(let code, let completion):
            return .failure(error(for: code, completion))
        case .stalled:
            return .failure(
                NetworkError(
                    .stalled,
                    reason: "No bytes moved for \(options.stallTimeout).",
                    context: ["stallTimeout": "\(options.stallTimeout)"]
                )
            )
        case .cancelled:
            return .failure(NetworkError(.cancelled, reason: "The request's task was cancelled."))
        case .unavailable(let why):
            return .failure(NetworkError(.transportUnavailable, reason: why))
        case .queueFull(let limit):
            return .failure(
                NetworkError(
                    .queueFull,
                    reason: "\(limit) requests were already waiting for a connection, as many as the transport queues.",
                    context: ["maxQueuedRequests": "\(limit)"]
                )
            )
        }
    }

    private func response(_ completion: Completion) -> TransportResponse {
        let version: String
        switch completion.httpVersion {
        case Int(CURL_HTTP_VERSION_1_0): version = "1.0"
        case Int(CURL_HTTP_VERSION_2_0): version = "2"
        case Int(CURL_HTTP_VERSION_3): version = "3"
        default: version = "1.1"
        }
        return receiver.response(
            status: completion.status,
            info: TransferInfo(
                httpVersion: version, newConnections: completion.newConnections, timings: completion.timings)
        )
    }

    private func error(for code: CURLcode, _ completion: Completion) -> NetworkError {
        NetworkError(
            curlCode: code,
            message: completion.errorMessage,
            receiverFailure: receiver.failure,
            connected: completion.pretransferMicroseconds > 0 || receiver.bytesReceived > 0,
            options: options
        )
    }
}

/// libcurl's body callback: appends to the transfer's buffer, or refuses past the size limit.
private let curlWriteBody: curl_write_callback = { pointer, size, count, userData in
    let length = size * count
    guard length > 0, let pointer else { return 0 }
    // The transfer is alive while libcurl runs it: the loop holds it.
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userData!).takeUnretainedValue()
    let action = transfer.receiver.receiveBody(UnsafeRawBufferPointer(start: pointer, count: length))
    // Less than `length` makes libcurl abort the transfer with CURLE_WRITE_ERROR.
    return action == .proceed ? length : 0
}

/// libcurl's header callback: one whole header line per call.
private let curlWriteHeader: curl_write_callback = { pointer, size, count, userData in
    let length = size * count
    guard length > 0, let pointer else { return length }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userData!).takeUnretainedValue()
    let action = transfer.receiver.receiveHeaderLine(UnsafeRawBufferPointer(start: pointer, count: length))
    return action == .proceed ? length : 0
}
