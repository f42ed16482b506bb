import ArgumentParser
import Rebound
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

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
    /// The URL as the tool shows it, on stderr and in its JSON: screened by `UntrustedText.url`,
    /// without user information, secrets or control characters, such as
    /// `https://api.example.com:8443/v1/tasks?access_token=<redacted>&limit=20#top`.
    var shown: String

    /// Splits `url`, or explains why it cannot be sent.
    ///
    /// The explanation quotes `url` as `ShownArgument` does: a URL without its user information
    /// and secrets, with its control characters escaped; a header field by its name; anything
    /// else not at all.
    ///
    /// - Throws: A `ValidationError` when `url` holds control characters, is not an http(s) URL
    ///   with a host, carries credentials, or has a port out of range.
    init(_ url: String) throws(ValidationError) {
        let shown = ShownArgument.shown(url)
        guard !url.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ValidationError(
                "'\(shown)' holds control characters, which a URL cannot carry; percent-encode them, such as %0A for a line feed."
            )
        }
        guard ShownArgument.isURL(url), let components = URLComponents(string: url),
            let scheme = components.scheme?.lowercased()
        else {
            throw ValidationError(
                "'\(shown)' is not a URL; give an http or https URL, such as https://example.com/path.")
        }
        guard scheme == "http" || scheme == "https" else {
            throw ValidationError(
                "'\(shown)' is a URL of the \(scheme) scheme; only http and https URLs can be fetched.")
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
        self.shown = shown
        baseURL = "\(scheme)://\(authority)"
        pathAndQuery = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { pathAndQuery += "?" + query }
    }
}
