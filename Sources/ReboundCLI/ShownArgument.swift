import HTTPTypes
import Rebound
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What the tool shows of an argument from its command line when a message quotes it.
///
/// Arguments carry secrets: a URL with a token, a header typed where a URL belongs (`rebound
/// fetch 'Authorization: Basic …'`), a password split off a header by a missing quote. And what
/// the tool prints ends up in terminals, CI logs and scripts' files. So a message quotes an
/// argument as much as is safe, by what the argument looks like:
///
/// ```
/// https://h/x?access_token=abc    → https://h/x?access_token=<redacted>   a URL: UntrustedText.url
/// Authorization: Basic YWxpY2U6   → Authorization: <redacted>             a header field: its name
/// hunter2                         → <redacted>                            anything else: nothing
/// -HAuthorization: Basic YWxpY2U6 → -HAuthorization: <redacted>           an option and a value: each
/// ```
///
/// A header field is shown as `-H` errors name one (`HeaderArguments`): by its name, never its
/// value. Anything that is neither a `scheme://` URL nor a header field is not shown at all: a
/// bare word cannot be told from a short password, and the person who typed it knows it.
enum ShownArgument {
    /// `argument` as a message may quote it.
    static func shown(_ argument: String) -> String {
        if isURL(argument) { return UntrustedText.url(argument) }
        if let name = headerName(argument) { return name + ": " + ErrorContext.Value.redactionMarker }
        return ErrorContext.Value.redactionMarker
    }

    /// `argument`, which starts with a dash but is not an option's name, as a message may quote it:
    /// its option (`-H`, or the dashes of a long one) as typed and the rest as ``shown(_:)`` shows
    /// it. ArgumentParser quotes such an argument whole (`Unknown option '-HAuthorization: …'`).
    /// A dash and a control character or a space, or a character outside ASCII, is no option: all
    /// of it is shown as ``shown(_:)`` shows it.
    static func shownAfterDashes(_ argument: String) -> String {
        let option = argument.prefix(2)  // `-H`, or `--`
        guard option.count < 2 || option == "--" || isOptionName(option) else { return shown(argument) }
        let rest = String(argument.dropFirst(2))
        return rest.isEmpty ? String(option) : option + shown(rest)
    }

    /// Whether `text` has the shape of an option's name: `-` and a visible ASCII character (`-H`),
    /// or `--` and lowercase letters, digits and dashes (`--max-attempts`). Only those are shown as
    /// typed: `-HBearer…` is a value attached to `-H`, not a cluster of flags (the tool has no
    /// flags one could cluster).
    static func isOptionName(_ text: Substring) -> Bool {
        if text.hasPrefix("--") {
            return text.dropFirst(2).allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
        }
        guard text.count == 2, text.first == "-", let value = text.last?.asciiValue else { return false }
        return (0x21...0x7E).contains(value)
    }

    /// Whether `argument` starts with a URL scheme and `://`, such as `https://` or `ftp://`.
    static func isURL(_ argument: String) -> Bool {
        UntrustedText.startsWithURLScheme(argument)
    }

    /// The field name of `argument` when it has the shape of a header field, `Name: value` or
    /// `Name:value`, with a valid HTTP field name; `nil` otherwise.
    static func headerName(_ argument: String) -> String? {
        guard let colon = argument.firstIndex(of: ":") else { return nil }
        let name = String(argument[..<colon])
        return HTTPField.Name(name) == nil ? nil : name
    }
}
