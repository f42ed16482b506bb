import Foundation
import HTTPTypes
import Rebound

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
