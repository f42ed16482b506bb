#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension NonFatalReporter.Configuration {
    /// The longest host a report keeps: 253 characters, DNS's longest name.
    static let maximumHostLength = 253

    /// This machine's host name, as `gethostname(2)` gives it; `nil` if it has none.
    ///
    /// The default ``host``: what a fleet's machines are told apart by. A container's host name is
    /// its own (a pod's name, a container id), which is what a report from it should name.
    public static func localHost() -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return nil }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? nil : name
    }

    /// `host` as a report keeps it, or `nil` if nothing of it is left.
    ///
    /// A host is configuration, which may come from anywhere (an environment variable that held
    /// something else), and it goes into every report, so it is screened like a server's text:
    /// control and format characters go, it is cut to ``maximumHostLength`` characters (the last
    /// an ellipsis), and each dot-separated label that looks like a token is redacted, as is the
    /// whole of one holding an `@` (an e-mail address). Labels are screened one by one so that a long but ordinary name,
    /// `ip-10-0-12-34.eu-west-1.compute.internal`, stays whole.
    static func screenedHost(_ host: String) -> String? {
        var printable = String.UnicodeScalarView()
        printable.append(
            contentsOf: host.unicodeScalars.filter {
                $0.properties.generalCategory != .control && $0.properties.generalCategory != .format
            })
        var bounded = String(printable)
        if bounded.count > maximumHostLength { bounded = bounded.prefix(maximumHostLength - 1) + "…" }
        guard !bounded.isEmpty else { return nil }
        guard !bounded.contains("@") else { return ErrorContext.Value.redactionMarker }
        return bounded.split(separator: ".", omittingEmptySubsequences: false)
            .map { UntrustedText.redactingLikelySecrets(String($0)) }
            .joined(separator: ".")
    }
}
