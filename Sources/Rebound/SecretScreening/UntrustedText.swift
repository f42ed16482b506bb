/// Making text that came from a server fit to keep in an error.
///
/// Errors are logged, reported and shown to developers, so what a server wrote into a status line
/// or an error payload is bounded in size and screened for what looks like a credential or an
/// e-mail address before it is copied into one.
package enum UntrustedText {
    /// The longest text kept from a server's code, reason or field name: enough for any real
    /// identifier, too short to smuggle a document into reports.
    package static let identifierLimit = 200

    /// The longest message kept from a server: a few sentences.
    package static let messageLimit = 500

    /// `text`, cut to `limit` characters with an ellipsis if it is longer.
    ///
    /// Counts no further than the limit, so a megabyte of text costs no more than a short one.
    static func bounded(_ text: String, to limit: Int = messageLimit) -> String {
        let head = text.prefix(limit + 1)
        return head.count <= limit ? text : String(head.dropLast()) + "…"
    }

    /// How far past a limit the text is screened before it is cut there: a token across the
    /// limit is seen whole, or long enough to look like one, rather than as a piece too short to.
    static let screeningMargin = 64

    /// A code, reason or name from a server, bounded and screened for secrets: each `scheme://…`
    /// in it as ``message(_:)`` screens one.
    package static func identifier(_ text: String) -> String {
        let screened = redactingLikelySecrets(screeningURLs(in: String(text.prefix(identifierLimit + screeningMargin))))
        return bounded(screened, to: identifierLimit)
    }

    /// A message from a server, bounded and screened for secrets.
    ///
    /// Each `scheme://…` in it (up to a space, a quote or a control character) is screened as
    /// ``url(_:)`` screens a URL first, so that a credential the heuristics cannot see, a short
    /// `?token=k7Qp2x` or `&sig=9f8e7d`, goes by its name, as it would on the command line.
    package static func message(_ text: String) -> String {
        let screened = redactingLikelySecrets(screeningURLs(in: String(text.prefix(messageLimit + screeningMargin))))
        return bounded(screened, to: messageLimit)
    }

    /// `text` with everything that looks like a secret replaced by the redaction marker.
    ///
    /// A heuristic, and deliberately eager: a redacted request identifier costs little, a leaked
    /// token in a crash report costs a lot. Servers put secrets not only between spaces but inside
    /// JSON (`{"token":"…"}`), URLs (`?access_token=…&`) and `key:value` pairs, so the text is cut
    /// into runs of the characters a token, a key or an e-mail address is made of; everything
    /// else (spaces, quotes, `:`, `?`, `&`, `,`, brackets) separates runs and is kept as it is.
    /// A run is then looked at in pieces so that only the secret goes, not the words around it:
    ///
    /// ```
    /// https://api.example.com/cb?access_token=ya29a0AfH6SMBx3kQz9vLq8R7pN2cD4&x=1
    ///       └────── run ───────┘ └────────────────── run ───────────────────┘ └─┘
    /// → https://api.example.com/cb?access_token=<redacted>&x=1
    /// ```
    ///
    /// - A run is cut at `=` into pieces (a key and its value; base64 padding is left as `==`).
    /// - A piece with a dot and a `/` is a URL (a host, a path): each `/`-separated segment that
    ///   looks secret is redacted. A piece with a `/` but no dot is a bare path or a base64 secret,
    ///   which may hold `/` itself, so it is redacted whole if it or any of its segments looks
    ///   secret. Any other piece is redacted if it looks secret.
    package static func redactingLikelySecrets(_ text: String) -> String {
        var result = ""
        var run = ""
        for character in text {
            if isRunCharacter(character) {
                run.append(character)
            } else {
                result += redactedRun(run)
                run = ""
                result.append(character)
            }
        }
        result += redactedRun(run)
        return result
    }

    /// Whether `character` can be part of a token, a key or an e-mail address.
    private static func isRunCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || runPunctuation.contains(character))
    }

    /// A run of token characters with each `=`-separated piece screened.
    private static func redactedRun(_ run: String) -> String {
        guard !run.isEmpty else { return run }
        return run.split(separator: "=", omittingEmptySubsequences: false).map(redactedPiece).joined(separator: "=")
    }

    /// A piece of a run, without `=`, with its secret `/`-separated segments redacted, or all of it
    /// if it is not a URL.
    private static func redactedPiece(_ piece: Substring) -> String {
        let segments = piece.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count > 1 else { return looksSecret(trimmed(in: piece)) ? redacted(piece) : String(piece) }
        if piece.contains(".") {
            return segments.map { looksSecret(trimmed(in: $0)) ? redacted($0) : String($0) }.joined(separator: "/")
        }
        let isSecret = looksSecret(trimmed(in: piece)) || segments.contains { looksSecret(trimmed(in: $0)) }
        return isSecret ? redacted(piece) : String(piece)
    }

    /// `text` without the dots and dashes around it: the full stop after an address is prose.
    private static func trimmed(in text: Substring) -> Substring {
        var core = text
        while let first = core.first, edges.contains(first) { core.removeFirst() }
        while let last = core.last, edges.contains(last) { core.removeLast() }
        return core
    }

    /// `text` with its core, without the dots and dashes around it, replaced by the redaction marker.
    private static func redacted(_ text: Substring) -> String {
        let core = trimmed(in: text)
        return text[..<core.startIndex] + ErrorContext.Value.redactionMarker + text[core.endIndex...]
    }

    /// Whether a word, without the punctuation around it, looks like a token, a key or an e-mail address.
    static func looksSecret(_ core: Substring) -> Bool {
        if core.isEmpty { return false }
        if let at = core.firstIndex(of: "@") {
            // An e-mail address: personal data.
            if at != core.startIndex, core[at...].contains(".") { return true }
            // Not an address: a token glued to an `@` (`KEY@v2`) is still a token.
            if core.split(separator: "@").contains(where: looksSecret) { return true }
        }
        // A JSON Web Token: base64url of `{"`, then two more dot-separated parts, wherever it starts.
        if let jwt = firstJWTStart(in: core), core[jwt...].filter({ $0 == "." }).count >= 2 { return true }
        // A long run of letters and digits in a token alphabet: an API key, a session id, a hash.
        guard core.count >= 24 else { return false }
        return core.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || tokenPunctuation.contains($0)) }
            && core.contains(where: \.isNumber) && core.contains(where: \.isLetter)
    }

    /// Where the first `eyJ`, the base64url of `{"` that opens a JSON Web Token, starts in `text`.
    private static func firstJWTStart(in text: Substring) -> Substring.Index? {
        var index = text.startIndex
        while let e = text[index...].firstIndex(of: "e") {
            if text[e...].hasPrefix("eyJ") { return e }
            index = text.index(after: e)
        }
        return nil
    }

    /// Characters around a run's core that belong to the prose, not to the secret.
    private static let edges: Set<Character> = [".", "-"]

    /// Characters that, with ASCII letters and digits, make up runs: the token punctuation, and
    /// `@` for e-mail addresses.
    private static let runPunctuation: Set<Character> = tokenPunctuation.union(["@"])

    /// The punctuation of base64, base64url and common token formats.
    private static let tokenPunctuation: Set<Character> = ["+", "/", "=", "_", "-", ".", "~"]
}
