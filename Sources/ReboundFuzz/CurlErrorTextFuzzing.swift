import Rebound
import ReboundCurl

/// `CurlErrorText.redactingCredentials` on libcurl's error text about a proxy whose URL holds a
/// secret in its user information, and on the input itself as text.
///
/// The input's first byte picks the message around the URL and the URL's scheme, its second the
/// shape of the user information and the proxy's host, its third how many times the secret
/// repeats (so that short inputs make secrets longer than libcurl's text); the rest, read as
/// UTF-8, is the secret: any characters but NUL, which no C string holds, from no more bytes
/// than libcurl's text holds. The message is cut at `CurlErrorText.longestText` bytes, as
/// libcurl's buffer cuts it, and read as `String(cString:)` reads it.
///
/// Contract: no piece of the secret of ``pieceLength`` bytes comes out, unless the text with the
/// user information redacted holds it too; a message that was not cut keeps its words around the
/// URL and the proxy's host; and text with no `@` that is shorter than libcurl's longest comes
/// back unchanged.
enum CurlErrorTextFuzzing {
    /// Where libcurl 7.88 copies a proxy it cannot use (`parse_proxy` in `lib/url.c`): between
    /// single quotes, with a space or a quote or an `@` in the secret kept as they are. The last
    /// is a URL among words, which no message of libcurl's has but which the screening handles
    /// too: its secret has no space and no quote.
    static let messages: [(before: String, after: String, quoted: Bool)] = [
        ("Unsupported proxy syntax in '", "': Port number was not a decimal number", true),
        ("Unsupported proxy scheme for '", "'", true),
        ("Unsupported proxy '", "', libcurl is built without the HTTPS-proxy support.", true),
        ("Could not reach ", " today", false),
    ]

    static let schemes = ["http://", "https://", "socks5h://", "ftp://", ""]

    /// The user information around the secret, `{S}`: a password, a token as the user name, a
    /// password with no user name. A URL without a scheme always has a user name, so that a
    /// `://` in the secret cannot read as a scheme.
    static let userInformations = ["user:{S}", "{S}", ":{S}"]

    static let hosts = ["proxy.test:99999", "127.0.0.1:3128", "[::1", "", "proxy.test:8080/path?q=1"]

    /// The shortest piece of a secret the contract checks for.
    static let pieceLength = 4

    static func violations(_ input: [UInt8]) -> [String] {
        var violations = unchangedWithoutAtSign(input)
        guard input.count >= 3 else { return violations }
        let message = messages[Int(input[0]) % messages.count]
        let scheme = schemes[Int(input[0]) / messages.count % schemes.count]
        let host = hosts[Int(input[1]) / userInformations.count % hosts.count]
        let userInformation =
            scheme.isEmpty ? userInformations[0] : userInformations[Int(input[1]) % userInformations.count]
        let secret = String(
            repeating: secretCharacters(input.dropFirst(3).prefix(CurlErrorText.longestText), quoted: message.quoted),
            count: 1 + Int(input[2]) % 32)

        let whole =
            message.before + scheme + userInformation.replacing("{S}", with: secret) + "@" + host + message.after
        let text = String(decoding: whole.utf8.prefix(CurlErrorText.longestText), as: UTF8.self)
        let redacted = CurlErrorText.redactingCredentials(text)

        // What the screening may show: the message with the user information redacted, after the
        // scheme, a `user://` read as one, or no scheme.
        let marked = [scheme, "user://", ""].map {
            message.before + $0 + ErrorContext.Value.redactionMarker + "@" + host + message.after
        }
        let shown = pieces(of: redacted.utf8).subtracting(marked.flatMap { pieces(of: $0.utf8) })
        if !shown.isDisjoint(with: pieces(of: secret.utf8.prefix(CurlErrorText.longestText))) {
            violations.append("\(redacted.debugDescription) shows some of the secret \(secret.debugDescription)")
        }
        if whole.utf8.count < CurlErrorText.longestText,
            !redacted.utf8.starts(with: message.before.utf8)
                || !redacted.utf8.reversed().starts(with: ("@" + host + message.after).utf8.reversed())
        {
            violations.append(
                "\(text.debugDescription) lost its words or the proxy's host: \(redacted.debugDescription)")
        }
        return violations
    }

    /// `bytes` as UTF-8 without NUL, and without spaces and quotes (each an `_`) for a URL that
    /// is not between quotes.
    static func secretCharacters(_ bytes: ArraySlice<UInt8>, quoted: Bool) -> String {
        var secret = String.UnicodeScalarView()
        for scalar in String(decoding: bytes, as: UTF8.self).unicodeScalars where scalar != "\0" {
            secret.append(!quoted && (scalar == " " || scalar == "'") ? "_" : scalar)
        }
        return String(secret)
    }

    /// The input as text, if it has no `@` and libcurl could have written it whole, comes back as
    /// it was.
    static func unchangedWithoutAtSign(_ input: [UInt8]) -> [String] {
        let text = String(decoding: input, as: UTF8.self)
        let redacted = CurlErrorText.redactingCredentials(text)
        guard !input.contains(UInt8(ascii: "@")), text.utf8.count < CurlErrorText.longestText,
            !redacted.utf8.elementsEqual(text.utf8)
        else { return [] }
        return ["\(text.debugDescription) has no @ but became \(redacted.debugDescription)"]
    }

    /// Every run of four bytes (``pieceLength``) in `bytes`, each as one number.
    static func pieces(of bytes: some Collection<UInt8>) -> Set<UInt32> {
        var pieces: Set<UInt32> = []
        var piece: UInt32 = 0
        for (count, byte) in bytes.enumerated() {
            piece = piece << 8 | UInt32(byte)
            if count >= pieceLength - 1 { pieces.insert(piece) }
        }
        return pieces
    }
}
