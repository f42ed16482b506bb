/// Making text that came from a server fit to keep in an error.
///
/// Errors are logged, reported and shown to developers, so what a server wrote into a status line
/// or an error payload is bounded in size and screened for what looks like a credential or an
/// e-mail address before it is copied into one.
enum UntrustedText {
    /// The longest text kept from a server's code, reason or field name: enough for any real
    /// identifier, too short to smuggle a document into reports.
    static let identifierLimit = 200

    /// The longest message kept from a server: a few sentences.
    static let messageLimit = 500

    /// `text`, cut to `limit` characters with an ellipsis if it is longer.
    ///
    /// Counts no further than the limit, so a megabyte of text costs no more than a short one.
    static func bounded(_ text: String, to limit: Int = messageLimit) -> String {
        let head = text.prefix(limit + 1)
        return head.count <= limit ? text : String(head.dropLast()) + "…"
    }

    /// A code, reason or name from a server, bounded and screened for secrets.
    static func identifier(_ text: String) -> String {
        redactingLikelySecrets(bounded(text, to: identifierLimit))
    }

    /// A message from a server, bounded and screened for secrets.
    static func message(_ text: String) -> String {
        redactingLikelySecrets(bounded(text, to: messageLimit))
    }

    /// `text` with every word that looks like a secret replaced by the redaction marker.
    ///
    /// A heuristic, and deliberately eager: a redacted request identifier costs little, a leaked
    /// token in a crash report costs a lot. Words are runs of non-whitespace; whitespace is kept.
    static func redactingLikelySecrets(_ text: String) -> String {
        var result = ""
        var word = ""
        func flush() {
            result += redactedWord(word)
            word = ""
        }
        for character in text {
            if character.isWhitespace {
                flush()
                result.append(character)
            } else {
                word.append(character)
            }
        }
        flush()
        return result
    }

    /// `word` with its core replaced by the redaction marker if it looks like a secret; the quotes,
    /// brackets and punctuation around it are kept so that the sentence still reads.
    private static func redactedWord(_ word: String) -> String {
        var core = Substring(word)
        while let first = core.first, quoting.contains(first) { core.removeFirst() }
        while let last = core.last, quoting.contains(last) { core.removeLast() }
        guard looksSecret(core) else { return word }
        return word[..<core.startIndex] + ErrorContext.Value.redactionMarker + word[core.endIndex...]
    }

    /// Whether a word, without the punctuation around it, looks like a token, a key or an e-mail address.
    static func looksSecret(_ core: Substring) -> Bool {
        if core.isEmpty { return false }
        // An e-mail address: personal data.
        if let at = core.firstIndex(of: "@"), at != core.startIndex, core[at...].contains(".") { return true }
        // A JSON Web Token: base64url of `{"`, then two more dot-separated parts.
        if core.hasPrefix("eyJ") && core.filter({ $0 == "." }).count >= 2 { return true }
        // A long run of letters and digits in a token alphabet: an API key, a session id, a hash.
        guard core.count >= 24 else { return false }
        return core.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || tokenPunctuation.contains($0)) }
            && core.contains(where: \.isNumber) && core.contains(where: \.isLetter)
    }

    /// Characters that wrap a word in prose: quotes, brackets, trailing punctuation.
    private static let quoting: Set<Character> = [
        "\"", "'", "`", "(", ")", "[", "]", "{", "}", "<", ">", ",", ";", ":", ".",
    ]

    /// The punctuation of base64, base64url and common token formats.
    private static let tokenPunctuation: Set<Character> = ["+", "/", "=", "_", "-", ".", "~"]
}
