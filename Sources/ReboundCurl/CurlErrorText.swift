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
    /// `text` with the user information of every URL in it redacted, then each URL screened as
    /// `UntrustedText.url` screens one: a credential in a proxy URL's query or path goes too. The
    /// words around the URLs stay as libcurl wrote them (`nghttp2_session_mem_recv() returned
    /// -902`): they name what failed, and the transport reads some of them.
    package static func screened(_ text: String) -> String {
        UntrustedText.screeningURLs(in: redactingCredentials(text))
    }

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
    ///
    /// The text is read as UTF-8 bytes: the quotes, `@`, spaces and `://` it looks for are ASCII,
    /// and are found even where a character next to one joins it into one `Character` (U+0600
    /// before an `@`, a combining accent after it).
    package static func redactingCredentials(_ text: String) -> String {
        let bytes = Array(text.utf8)[...]
        if bytes.count < longestText, !bytes.contains(at) { return text }
        return String(decoding: redactingCredentials(bytes), as: UTF8.self)
    }

    private static func redactingCredentials(_ text: ArraySlice<UInt8>) -> [UInt8] {
        if text.count >= longestText {
            let cut =
                text.firstRange(of: [space, quote])?.upperBound ?? text.lastIndex(of: space).map { $0 + 1 }
                ?? text.startIndex
            return redactingWords(text[..<cut]) + redactingAfterScheme(text[cut...])
        }
        guard let open = text.firstIndex(of: quote), let close = text.lastIndex(of: quote), open < close else {
            return redactingWords(text)
        }
        return redactingWords(text[..<open]) + [quote] + redactingUserInfo(text[(open + 1)..<close]) + [quote]
            + redactingWords(text[(close + 1)...])
    }

    private static let at = UInt8(ascii: "@")
    private static let quote = UInt8(ascii: "'")
    private static let space = UInt8(ascii: " ")
    private static let marker = Array(ErrorContext.Value.redactionMarker.utf8)

    private static func redactingWords(_ text: ArraySlice<UInt8>) -> [UInt8] {
        guard text.contains(at) else { return Array(text) }
        return Array(
            text.split(separator: space, omittingEmptySubsequences: false).map(redactingUserInfo).joined(
                separator: [space]))
    }

    /// The value with what stands between its scheme (`http://`, if it starts with one) and its
    /// last `@` redacted.
    private static func redactingUserInfo(_ value: ArraySlice<UInt8>) -> [UInt8] {
        guard let at = value.lastIndex(of: at) else { return Array(value) }
        let start = afterScheme(value)
        guard start < at else { return Array(value) }
        return value[..<start] + marker + value[at...]
    }

    /// The value with all that follows its scheme (`http://`, if it starts with one) redacted.
    private static func redactingAfterScheme(_ value: ArraySlice<UInt8>) -> [UInt8] {
        let start = afterScheme(value)
        return start == value.endIndex ? Array(value) : value[..<start] + marker
    }

    /// Where the value's scheme and `://` end; its start if it has none.
    private static func afterScheme(_ value: ArraySlice<UInt8>) -> Int {
        guard let colon = value.firstIndex(of: UInt8(ascii: ":")), value[colon...].starts(with: "://".utf8),
            value[..<colon].allSatisfy(isInScheme)
        else { return value.startIndex }
        return colon + 3
    }

    /// Whether the byte is what a scheme is made of: an ASCII letter or digit, `+`, `-` or `.`.
    private static func isInScheme(_ byte: UInt8) -> Bool {
        let character = Character(Unicode.Scalar(byte))
        return byte < 0x80 && (character.isLetter || character.isNumber || "+-.".contains(character))
    }

    /// The longest text libcurl writes: its error buffer, less the terminating NUL.
    package static let longestText = Int(CURL_ERROR_SIZE) - 1
}
