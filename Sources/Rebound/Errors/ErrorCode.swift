/// The codes of one error layer: an enum with explicit `Int` raw values, a domain and a short name.
///
/// A layer is declared in a few lines:
///
/// ```swift
/// enum APIErrorCode: Int, ErrorCode {
///     static let domain = "APIError"
///     static let shortName = "AP"
///
///     case getTokenFailed = 7
///     case listTasksFailed = 8
/// }
/// typealias APIError = LayerError<APIErrorCode>
/// ```
///
/// Codes are part of a failure's identity: reports are grouped by them and people quote them to
/// support. Give every case an explicit raw value, never reuse a retired one, and never derive a
/// code from the order of the cases (Swift's default `Error` code is the case index, which changes
/// whenever a case moves).
public protocol ErrorCode: RawRepresentable, Hashable, Sendable where RawValue == Int {
    /// The name of the layer's error type as it appears in a full chain, such as `"NetworkError"`.
    static var domain: String { get }

    /// Two letters (by convention upper case) that stand for the layer in a short chain, such as `"NE"`.
    static var shortName: String { get }

    /// The name of this code as it appears in a full chain, such as `"timeout"`.
    ///
    /// The default is the enum case's name.
    var name: String { get }
}

extension ErrorCode {
    public var name: String { String(describing: self) }
}
