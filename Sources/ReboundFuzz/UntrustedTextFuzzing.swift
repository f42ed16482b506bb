import Rebound

/// `UntrustedText`'s screening of server text, with secrets planted in it.
///
/// The input's first byte picks a secret and the text around it (a space, a quote, a `key=`, a
/// path, a URL's query), its second where in the text the secret goes; the rest is the text.
///
/// Contract: the planted secret never comes out of `identifier`, `message` or
/// `redactingLikelySecrets`, whatever text surrounds it; bounded text stays bounded (the
/// redaction marker may be longer than what it replaces, so within three times the bound).
enum UntrustedTextFuzzing {
    /// Secrets of the shapes the screening promises to catch: an API key, an e-mail address, a
    /// JSON Web Token, a long hex hash.
    static let secrets = [
        "sk9Qz4Lm2Wx7Rt5Vb8Nc3Hd6Jf1Kg0Pq",
        "jane.doe@example.com",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlLXZhbHVl",
        "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    ]

    /// What stands before and after a secret: separators and the places servers put tokens.
    static let surroundings: [(String, String)] = [
        (" ", " "), ("\"", "\""), ("'", "'"), (":", ","), ("=", "&"), ("token=", " "), ("?access_token=", "&x=1"),
        ("/", "/"), ("(", ")"), ("<", ">"), ("\n", "\n"), ("\t", "."), ("Bearer ", "."), ("[", "]"),
    ]

    static func violations(_ input: [UInt8]) -> [String] {
        guard input.count >= 2 else { return [] }
        let secret = secrets[Int(input[0]) % secrets.count]
        let (before, after) = surroundings[Int(input[0]) / secrets.count % surroundings.count]
        let text = String(decoding: input.dropFirst(2), as: UTF8.self)
        let characters = Array(text)
        let position = min(Int(input[1]), characters.count)
        let planted =
            String(characters[..<position]) + before + secret + after + String(characters[position...])
        var violations: [String] = []
        let screenings: [(String, (String) -> String, Int?)] = [
            ("identifier", UntrustedText.identifier, UntrustedText.identifierLimit),
            ("message", UntrustedText.message, UntrustedText.messageLimit),
            ("redactingLikelySecrets", UntrustedText.redactingLikelySecrets, nil),
        ]
        for (name, screen, limit) in screenings {
            let screened = screen(planted)
            if screened.contains(secret) {
                violations.append("\(name) kept \(secret.debugDescription) in \(screened.debugDescription)")
            }
            // The marker may be longer than what it replaces ("a@.b"), by less than three times.
            if let limit, screened.count > 3 * (limit + 1) {
                violations.append("\(name) of \(planted.count) characters gave \(screened.count)")
            }
        }
        return violations
    }
}
