/// One failure as the chain of errors that caused it, outermost first, as plain values.
///
/// Each layer wraps the error from the layer below as its cause, so a failure reads from what the
/// person was doing down to what broke:
///
/// ```
/// short:  US14-LO43-AP7-NE2
/// full:   UserError.connectionIssue - LogicError.loginFailed - APIError.getTokenFailed - NetworkError.timeout
/// ```
///
/// Both renderings are built only from domains, short names, code numbers and code names, so they
/// are identical across builds, runs and machines: the short form is the failure's identity for
/// grouping reports and the code people read out to support.
///
/// A chain is a snapshot: sensitive context values are already redacted in it, so it can be
/// logged, encoded as JSON and sent anywhere. Errors that are not ``LayeredError``s (a
/// `DecodingError`, a `POSIXError`, anything else) appear as leaf links with a fixed rendering;
/// see <doc:ErrorModel>.
public struct ErrorChain: Hashable, Sendable, Codable {
    /// The most links a chain holds; deeper causes are cut off (and ``isTruncated`` says so), so
    /// that a pathological cause graph cannot make rendering unbounded.
    public static let maximumDepth = 64

    /// The links, outermost first.
    public var links: [Link]
    /// Whether causes beyond ``maximumDepth`` were left out.
    public var isTruncated: Bool

    init(links: [Link], isTruncated: Bool = false) {
        self.links = links
        self.isTruncated = isTruncated
    }

    private enum CodingKeys: String, CodingKey {
        case links, isTruncated
    }

    /// A chain read back (from a report, say) keeps to ``maximumDepth`` links too: past it, the
    /// deeper ones are cut off and ``isTruncated`` is set.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let links = try container.decode([Link].self, forKey: .links)
        self.links = Array(links.prefix(Self.maximumDepth))
        isTruncated = try container.decode(Bool.self, forKey: .isTruncated) || links.count > Self.maximumDepth
    }

    /// The chain of `error` and its causes.
    public init(_ error: any Error) {
        var links: [Link] = []
        var current: (any Error)? = error
        while let error = current, links.count < Self.maximumDepth {
            links.append(Link(error))
            current = Self.cause(of: error)
        }
        self.init(links: links, isTruncated: current != nil)
    }

    /// The error that `error` wraps, if it wraps one.
    static func cause(of error: any Error) -> (any Error)? {
        if let layered = error as? any LayeredError { return layered.cause }
        return foreignCause(of: error)
    }

    /// The error that `error`, which is not a ``LayeredError``, wraps, if it wraps one.
    static func foreignCause(of error: any Error) -> (any Error)? {
        if let decoding = error as? DecodingError { return decoding.decodingContext?.underlyingError }
        return nil
    }

    /// The short form: each link's short name and code, joined by `-`, such as `US14-LO43-AP7-NE2`.
    public var short: String {
        links.map(\.short).joined(separator: "-")
    }

    /// The full form: each link's domain and code name, joined by ` - `, nested codes in parentheses.
    public var full: String {
        links.map(\.full).joined(separator: " - ")
    }

    /// Whether any link has `code`, as its own code or as its nested code.
    public func contains<Code: ErrorCode>(_ code: Code) -> Bool {
        links.contains { $0.matches(code) }
    }

    /// The first link of the layer of `Code`, outermost first.
    public func firstLink<Code: ErrorCode>(in layer: Code.Type) -> Link? {
        links.first { $0.domain == Code.domain }
    }

    /// The innermost link: the root cause.
    public var root: Link? { links.last }
}

extension ErrorChain: CustomStringConvertible {
    public var description: String { short }
}
