public import HTTPTypes
#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Reads a backend's error payload out of a failed response.
///
/// Every backend spells its errors its own way; a parser turns one way into a ``BackendError``
/// (or any other ``LayeredError``), so that handlers and reports see the same codes whatever the
/// backend. ``JSONBackendErrorParser`` reads the common JSON shapes; write your own for anything
/// else. The pipeline asks the parser only about responses it already judged to be failures, so a
/// parser need not look at the status.
///
/// A parser reads bytes an attacker may control: it must not crash, hang or copy secrets into the
/// error, whatever the body. It is synchronous because the body is already in memory and parsing
/// it is quick, bounded work.
public protocol BackendErrorParser: Sendable {
    /// The error the body describes, or `nil` when the body is not in this backend's error format.
    ///
    /// - Parameters:
    ///   - response: The response head; the error should keep its status in the chain (usually as
    ///     an ``HTTPError`` cause).
    ///   - body: The whole response body.
    /// - Returns: The backend's error, or `nil` to let the pipeline report the status alone.
    func parse(_ response: HTTPResponse, body: Data) -> (any LayeredError)?
}
