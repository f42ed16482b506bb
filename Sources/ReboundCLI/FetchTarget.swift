import ArgumentParser
import Foundation
import Rebound

/// A URL from the command line, split the way ``APIDataManager`` takes it: the base URL
/// (`scheme://authority`) and the endpoint's path and query under it.
///
/// ```
/// https://api.example.com:8443/v1/tasks?limit=20#top
/// └──────── baseURL ────────┘└── pathAndQuery ──┘   (the fragment is never sent)
/// ```
struct FetchTarget: Hashable {
    /// `scheme://authority`, such as `https://api.example.com:8443`.
    var baseURL: String
    /// The path and query, percent-encoded as given, such as `/v1/tasks?limit=20`; at least `/`.
    var pathAndQuery: String

    /// Splits `url`, or explains why it cannot be sent.
    ///
    /// The explanation quotes `url` as ``redacted(_:)`` shows it: without its user information and
    /// with its control characters escaped.
    ///
    /// - Throws: A `ValidationError` when `url` holds control characters, is not an http(s) URL
    ///   with a host, carries credentials, or has a port out of range.
    init(_ url: String) throws(ValidationError) {
        let shown = Self.redacted(url)
        guard !url.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ValidationError(
                "'\(shown)' holds control characters, which a URL cannot carry; percent-encode them, such as %0A for a line feed."
            )
        }
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased() else {
            throw ValidationError(
                "'\(shown)' is not a URL; give an http or https URL, such as https://example.com/path.")
        }
        guard scheme == "http" || scheme == "https" else {
            throw ValidationError("'\(shown)' is a \(scheme) URL; only http and https URLs can be fetched.")
        }
        guard let host = components.percentEncodedHost, !host.isEmpty else {
            throw ValidationError("'\(shown)' has no host; give one, such as https://example.com/path.")
        }
        guard components.percentEncodedUser == nil, components.percentEncodedPassword == nil else {
            throw ValidationError(
                "'\(shown)' carries credentials, which would end up in logs; send them in a header instead, such as -H 'Authorization: Bearer …'."
            )
        }
        var authority = host
        if let port = components.port {
            guard (1...65_535).contains(port) else {
                throw ValidationError("'\(shown)' has port \(port); a port is from 1 to 65535.")
            }
            authority += ":\(port)"
        }
        baseURL = "\(scheme)://\(authority)"
        pathAndQuery = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { pathAndQuery += "?" + query }
    }

    /// `url` as an error message may quote it: its user information replaced by `***` and its
    /// control characters escaped, so that neither a password nor a terminal escape reaches the
    /// terminal or a CI log.
    ///
    /// ```
    /// http://user:pa55@example.com:8080/x   ─►  http://***@example.com:8080/x
    /// user:pa55@example.com/x               ─►  ***@example.com/x
    /// ```
    ///
    /// The user information is found without parsing, as everything from after `scheme://` (or
    /// from the start) up to the last `@`: a URL too broken to parse may still hold a password,
    /// and one with a `/`, `?` or `#` in its password would fool a parser. An `@` in a path or a
    /// query hides more than the user information, which errs on the safe side.
    static func redacted(_ url: String) -> String {
        guard let at = url.lastIndex(of: "@") else { return url.escapingControlCharacters }
        var start = url.startIndex
        if let separator = url.range(of: "://"), separator.upperBound <= at,
            Self.isScheme(url[..<separator.lowerBound])
        {
            start = separator.upperBound
        }
        return (url[..<start] + "***" + url[at...]).escapingControlCharacters
    }

    /// Whether `text` has the syntax of a URL scheme (RFC 3986: a letter, then letters, digits,
    /// `+`, `-` and `.`), so that it can be quoted without hiding anything.
    private static func isScheme(_ text: Substring) -> Bool {
        guard let first = text.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else { return false }
        return text.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII
                && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                    || "+-.".unicodeScalars.contains(scalar))
        }
    }
}
