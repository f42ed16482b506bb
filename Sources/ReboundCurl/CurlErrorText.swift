import CCurl
import Rebound

/// libcurl's error text, made safe to keep in an error.
///
/// libcurl 7.88 copies a proxy it cannot use into its text whole, credentials included
/// (`Unsupported proxy syntax in 'http://user:password@proxy:99999'`), and the proxy comes from
/// the environment (`http_proxy` and the others). What libcurl writes becomes a `NetworkError`'s
/// reason and context, which go into descriptions, logs and reports, so the user information of
/// every URL in it (what comes before the last `@`) is replaced with
/// ``ErrorContext/Value/redactionMarker`` first. Text without an `@` that libcurl did not cut
/// (shorter than ``longestText`` bytes) is kept as it is.
package enum CurlErrorText {
    /// `text` with the user information of every URL in it redacted.
    ///
    /// libcurl puts what it was given between single quotes: from the first quote to the last is
    /// taken as one value, so that a space, a quote or an `@` in a password hides none of it.
    /// Outside the quotes, each word is taken on its own.
    ///
    /// libcurl cuts its text at ``longestText`` bytes, and a long password (a token) takes the
    /// `@` and the closing quote with it. So in a text that long, all that follows the first
    /// quote is one value whose end is lost, or without a quote the last word is, and all of it
    /// after its scheme is redacted.
    package static func redactingCredentials(_ text: String) -> String {
        if text.utf8.count >= longestText {
            let cut =
                text.firstRange(of: " '")?.upperBound ?? text.lastIndex(of: " ").map(text.index(after:))
                ?? text.startIndex
            return redactingWords(text[..<cut]) + redactingAfterScheme(text[cut...])
        }
        guard text.contains("@") else { return text }
        guard let open = text.firstIndex(of: "'"), let close = text.lastIndex(of: "'"), open < close else {
            return redactingWords(text[...])
        }
        let quoted = text[text.index(after: open)..<close]
        return redactingWords(text[..<open]) + "'" + redactingUserInfo(quoted) + "'"
            + redactingWords(text[text.index(after: close)...])
    }

    private static func redactingWords(_ text: Substring) -> String {
        guard text.contains("@") else { return String(text) }
        return text.split(separator: " ", omittingEmptySubsequences: false).map(redactingUserInfo).joined(
            separator: " ")
    }

    /// The value with what stands between its scheme (`http://`, if it starts with one) and its
    /// last `@` redacted.
    private static func redactingUserInfo(_ value: Substring) -> String {
        guard let at = value.lastIndex(of: "@") else { return String(value) }
        let start = afterScheme(value)
        guard start < at else { return String(value) }
        return String(value[..<start]) + ErrorContext.Value.redactionMarker + String(value[at...])
    }

    /// The value with all that follows its scheme (`http://`, if it starts with one) redacted.
    private static func redactingAfterScheme(_ value: Substring) -> String {
        let start = afterScheme(value)
        return start == value.endIndex ? String(value) : value[..<start] + ErrorContext.Value.redactionMarker
    }

    /// Where the value's scheme and `://` end; its start if it has none.
    private static func afterScheme(_ value: Substring) -> Substring.Index {
        guard let colon = value.firstIndex(of: ":"), value[colon...].hasPrefix("://"),
            value[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return value.startIndex }
        return value.index(colon, offsetBy: 3)
    }

    /// The longest text libcurl writes: its error buffer, less the terminating NUL.
    package static let longestText = Int(CURL_ERROR_SIZE) - 1
}
