public import HTTPTypes
import Synchronization

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A whole HTTP response as a transport returns it.
public struct TransportResponse: Sendable {
    /// The status and header fields. Repeated fields are kept in order; lookup is case-insensitive.
    ///
    /// A transport may hand the head over as it was received and leave parsing the header fields
    /// to the first read of this property (``status`` never needs them), so a caller that looks
    /// at the status and the body only never pays for them.
    public var head: HTTPResponse {
        get {
            switch storage {
            case .parsed(let head): head
            case .deferred(let head): head.response
            }
        }
        set {
            storage = .parsed(newValue)
            statusCode = newValue.status.code
        }
    }
    /// The body, already decoded from any `Content-Encoding` the transport understands.
    public var body: Data
    /// How the response was obtained.
    public var info: TransferInfo {
        get { infoBox.info }
        set { infoBox = InfoBox(newValue) }
    }

    private var storage: HeadStorage
    /// The status code, read once: a parsed head's status is parsed again on every read.
    package private(set) var statusCode: Int
    /// The transfer's facts, behind one reference: a response is handed from step to step of a
    /// call, and with them inline it would be three times the size.
    private var infoBox: InfoBox

    public init(head: HTTPResponse, body: Data = Data(), info: TransferInfo = TransferInfo()) {
        storage = .parsed(head)
        statusCode = head.status.code
        self.body = body
        infoBox = InfoBox(info)
    }

    /// A response whose header fields are parsed when ``head`` is first read.
    package init(deferredHead: DeferredResponseHead, body: Data, info: TransferInfo) {
        storage = .deferred(deferredHead)
        statusCode = deferredHead.status.code
        self.body = body
        infoBox = InfoBox(info)
    }

    /// The status of the response.
    public var status: HTTPResponse.Status {
        switch storage {
        case .parsed(let head): head.status
        case .deferred(let head): head.status
        }
    }

    /// Whether a header field's name may contain `fragment` (lowercase ASCII): `false` when none
    /// does. A head the transport deferred is searched as received, whole and ignoring case, and
    /// stays unparsed; a match may then lie in a value.
    package func mayHaveHeaderField(nameContaining fragment: StaticString) -> Bool {
        switch storage {
        case .parsed(let head): head.headerFields.contains { $0.name.canonicalName.contains(fragment.description) }
        case .deferred(let head): head.rawContains(fragment)
        }
    }

    private enum HeadStorage: Sendable {
        case parsed(HTTPResponse)
        case deferred(DeferredResponseHead)
    }

    /// Immutable: setting ``info`` puts a new box in place, so copies never share a change.
    private final class InfoBox: Sendable {
        let info: TransferInfo
        init(_ info: TransferInfo) { self.info = info }
    }
}

/// A response head kept as a transport received it: the status at hand, the header fields parsed
/// the first time someone asks for them, once, whichever thread asks.
///
/// `@unchecked Sendable` because of the one mutable part, the pointer to the parsed response: it
/// changes once, from `nil`, by compare-and-exchange, and what it points to is immutable.
package final class DeferredResponseHead: @unchecked Sendable {
    /// Turns the raw head into the response; called at most once per head that is read (twice
    /// only if two threads read it at the same moment, and then one result is kept).
    package typealias Parser = @Sendable (_ raw: [UInt8], _ status: HTTPResponse.Status) -> HTTPResponse

    package let status: HTTPResponse.Status
    private let raw: [UInt8]
    private let parser: Parser
    /// The parsed response, retained (an `Unmanaged<ParsedHead>`), once it exists.
    private let parsed = Atomic<UnsafeMutableRawPointer?>(nil)

    package init(status: HTTPResponse.Status, raw: [UInt8], parser: @escaping Parser) {
        self.status = status
        self.raw = raw
        self.parser = parser
    }

    deinit {
        if let parsed = parsed.load(ordering: .acquiring) {
            Unmanaged<ParsedHead>.fromOpaque(parsed).release()
        }
    }

    package var response: HTTPResponse {
        if let parsed = parsed.load(ordering: .acquiring) {
            return Unmanaged<ParsedHead>.fromOpaque(parsed).takeUnretainedValue().response
        }
        let made = ParsedHead(parser(raw, status))
        let pointer = Unmanaged.passRetained(made).toOpaque()
        let (stored, current) = parsed.compareExchange(
            expected: nil, desired: pointer, ordering: .acquiringAndReleasing)
        if !stored, let current {
            // Another thread parsed it first: keep theirs, so every reader sees the same value.
            Unmanaged<ParsedHead>.fromOpaque(pointer).release()
            return Unmanaged<ParsedHead>.fromOpaque(current).takeUnretainedValue().response
        }
        return made.response
    }

    /// Whether the raw head holds `fragment` (lowercase ASCII), in any case.
    package func rawContains(_ fragment: StaticString) -> Bool {
        fragment.withUTF8Buffer { wanted in
            raw.withUnsafeBufferPointer { raw in
                guard let first = wanted.first, raw.count >= wanted.count else { return wanted.isEmpty }
                // Setting bit 5 makes an ASCII capital its small letter (and may join a few other
                // bytes to a letter: a false "may", never a missed field).
                for start in 0...(raw.count - wanted.count) where raw[start] | 0x20 == first {
                    var matched = 1
                    while matched < wanted.count, raw[start + matched] | 0x20 == wanted[matched] { matched += 1 }
                    if matched == wanted.count { return true }
                }
                return false
            }
        }
    }

    private final class ParsedHead {
        let response: HTTPResponse
        init(_ response: HTTPResponse) { self.response = response }
    }
}

/// Facts about one transfer that help explain it and test it.
public struct TransferInfo: Hashable, Sendable {
    /// The HTTP version the response came over, such as `"1.1"` or `"2"`.
    public var httpVersion: String
    /// How many redirects were followed.
    public var redirectCount: Int
    /// How many new connections the transfer had to open (0 when it reused one).
    public var newConnections: Int
    /// How long its phases took (DNS, connect, TLS, first byte, total), when the transport
    /// measures them: `CurlTransport` does, a scripted transport does not (`nil`).
    public var timings: TransferTimings?

    public init(
        httpVersion: String = "1.1", redirectCount: Int = 0, newConnections: Int = 0, timings: TransferTimings? = nil
    ) {
        self.httpVersion = httpVersion
        self.redirectCount = redirectCount
        self.newConnections = newConnections
        self.timings = timings
    }
}
