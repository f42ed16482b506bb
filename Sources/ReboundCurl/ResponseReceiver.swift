import HTTPTypes
package import Rebound

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// Turns what libcurl hands a transfer, header lines and body bytes, into a response's head and
/// body: a pure state machine, without libcurl.
///
/// ```
///  status line ─► head fields ─► empty line ─┬─ 1xx: the next status line starts a new head
///                  (folded lines unfolded)    └─ else: body bytes, then trailers (dropped)
/// ```
///
/// libcurl's header callback hands over one whole line per call: a status line, a field, the
/// empty line that ends a head, or, after a chunked body, a trailer field. Its body callback
/// hands over the decoded body. libcurl follows no redirect (``RedirectFollower`` does), so a
/// transfer receives one response, after any number of interim (1xx) ones.
///
/// - An interim head is forgotten when the next head starts; the final head is kept whole, as
///   the bytes of its lines, and parsed only when someone reads its fields.
/// - Trailer fields are dropped: they are not header fields (RFC 9110, section 6.5.1); taken for
///   them, they added to what the head said after the body, or, shaped like a status line,
///   replaced the head whole.
/// - A field folded onto the next line (obs-fold) is unfolded into one line, its line break
///   replaced by a space (RFC 9112, section 5.2); a folded line before the first field has no
///   field to belong to and is dropped.
/// - A head whose `Content-Length` fields disagree (`5` and `7`, or `5, 7`) ends the transfer:
///   libcurl would take one of them, and which one the server, or a proxy between, meant is
///   unknowable, and so is where the next response on the connection starts (RFC 9112, section
///   6.3). Not for a head that frames no body: the answer to a HEAD, a 1xx, 204 or 304.
/// - A body past the size limit ends the transfer.
package struct ResponseReceiver {
    /// Why the receiver ended the transfer.
    package enum Failure: Equatable {
        /// The head's `Content-Length` fields disagree.
        case conflictingLengths
        /// The body grew past the size limit.
        case bodyTooLarge
    }

    /// What the transfer does after a header line or body bytes.
    package enum Action: Equatable {
        case proceed
        /// End the transfer; ``failure`` says why.
        case abort
    }

    private enum Phase {
        /// No line received yet.
        case awaitingHead
        /// Receiving a head: an interim one (1xx), or one whose `Content-Length` frames a body.
        case head(interim: Bool, framesBody: Bool)
        /// The head's empty line came: after an interim head, the next head; after the final
        /// one, the body and trailers.
        case ended(interim: Bool)
    }

    /// The bytes of the final head (or of the interim one being received), from its status line
    /// to its empty line, folded fields unfolded.
    package private(set) var head: [UInt8] = []
    package private(set) var body = Data()
    /// Bytes of heads, trailers and body received, which count as progress for the stall limit.
    package private(set) var bytesReceived = 0
    /// Set when the receiver ended the transfer.
    package private(set) var failure: Failure?
    /// The status code of the head kept, 0 when it had no status line the receiver could read.
    package private(set) var statusCode = 0

    /// Whether the request is a HEAD, whose answer has no body whatever its head says.
    private let answersHead: Bool
    private let maxBodySize: Int
    private var phase = Phase.awaitingHead
    /// Whether the head being received has a field line yet, which a folded line continues.
    private var headHasField = false
    /// The length the head being received announced, once a `Content-Length` came.
    private var announcedLength: Int64?

    /// Room for a typical head at once (nginx: about 250 bytes; a CDN's: 1–2 KiB), so that
    /// receiving one grows the buffer once or not at all.
    private static let initialHeadCapacity = 1024
    /// The most a body's buffer is given before its bytes arrive; a longer body grows it as it
    /// comes.
    static let maxUpfrontBodyCapacity = 4 * 1024 * 1024

    /// - Parameters:
    ///   - answersHead: Whether the request is a HEAD.
    ///   - maxBodySize: The largest body accepted, in bytes.
    package init(answersHead: Bool, maxBodySize: Int) {
        self.answersHead = answersHead
        self.maxBodySize = maxBodySize
    }

    /// Takes one line from libcurl's header callback, its line break included.
    package mutating func receiveHeaderLine(_ line: UnsafeRawBufferPointer) -> Action {
        bytesReceived &+= line.count
        guard let first = line.first else { return .proceed }
        switch phase {
        case .awaitingHead:
            head.reserveCapacity(Self.initialHeadCapacity)
            startHead(status: ResponseHeadParser.statusCode(ofStatusLine: line) ?? 0)
        case .ended(interim: true):
            guard let status = ResponseHeadParser.statusCode(ofStatusLine: line) else { return .proceed }
            head.removeAll(keepingCapacity: true)
            startHead(status: status)
        case .ended(interim: false):
            return .proceed
        case .head(_, let framesBody):
            if first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
                unfold(line)
                return .proceed
            }
            if framesBody, let length = ResponseHeadParser.announcedLength(inFieldLine: line) {
                if length == ResponseHeadParser.conflictingLengths || (announcedLength ?? length) != length {
                    failure = .conflictingLengths
                    return .abort
                }
                announcedLength = length
            }
            headHasField = true
        }
        head.append(contentsOf: line.assumingMemoryBound(to: UInt8.self))
        // libcurl hands the empty line that ends a head over on its own.
        if Self.isLineEnd(first), case .head(let interim, _) = phase { phase = .ended(interim: interim) }
        return .proceed
    }

    /// Takes bytes from libcurl's body callback.
    package mutating func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Action {
        if body.count + bytes.count > maxBodySize {
            failure = .bodyTooLarge
            return .abort
        }
        if body.isEmpty, let announcedLength, announcedLength > bytes.count {
            // Allocated once, as long as the head announced, up to a few MiB: the length is the
            // server's word, and a limit as high as `.max` must not let it ask for any amount.
            body.reserveCapacity(Int(min(announcedLength, Int64(maxBodySize), Int64(Self.maxUpfrontBodyCapacity))))
        }
        body.append(bytes.assumingMemoryBound(to: UInt8.self))
        bytesReceived &+= bytes.count
        return .proceed
    }

    /// The response received, once libcurl ended the transfer without an error.
    ///
    /// The header fields are parsed only when someone reads them: the status is all that most
    /// callers look at.
    ///
    /// - Parameters:
    ///   - status: The status code as libcurl read it.
    ///   - info: What libcurl says of the transfer.
    package func response(status: Int, info: TransferInfo) -> TransportResponse {
        let status = HTTPResponse.Status(code: status, reasonPhrase: ResponseHeadParser.reasonPhrase(in: head))
        return TransportResponse(
            deferredHead: DeferredResponseHead(status: status, raw: head, parser: Self.parseHead), body: body,
            info: info)
    }

    private static let parseHead: DeferredResponseHead.Parser = { raw, status in
        HTTPResponse(status: status, headerFields: ResponseHeadParser.fields(in: raw))
    }

    /// Starts a head with `status`. (A proxy's answer to CONNECT never reaches the header
    /// callback: `CURLOPT_SUPPRESS_CONNECT_HEADERS`.)
    private mutating func startHead(status: Int) {
        let interim = (100..<200).contains(status)
        statusCode = status
        headHasField = false
        announcedLength = nil
        phase = .head(interim: interim, framesBody: !answersHead && !interim && status != 204 && status != 304)
    }

    /// Continues the last field line with `line`, which starts with a space or a tab: the line
    /// break between them becomes one space.
    private mutating func unfold(_ line: UnsafeRawBufferPointer) {
        guard headHasField else { return }
        while let last = head.last, Self.isLineEnd(last) { head.removeLast() }
        head.append(UInt8(ascii: " "))
        head.append(contentsOf: line.drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") })
    }

    private static func isLineEnd(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n")
    }
}
