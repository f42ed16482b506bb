import Foundation

extension UntrustedText {
    /// `url` as a log line, an error message or a report may show it: without its user
    /// information and its secrets, with its control characters escaped, the rest as typed.
    ///
    /// URLs carry secrets in their query (`?access_token=…`, signed links), in their fragment
    /// (OAuth's `#access_token=…`) and in their path (`/reset/<token>`), so a tool that echoes a
    /// URL must not echo it as given:
    ///
    /// ```
    /// https://u:pw@api.example.com/v1/files/ya29a0AfH6SMBx3kQz9vLq8R7pN2cD4?access_token=abc&limit=20
    /// → https://***@api.example.com/v1/files/<redacted>?access_token=<redacted>&limit=20
    /// ```
    ///
    /// - **User information** goes, as everything from after `scheme://` (or from the start) up
    ///   to the last `@`, found without parsing: a URL too broken to parse may still hold a
    ///   password, and one with a `/`, `?` or `#` in its password would fool a parser. An `@` in a
    ///   path or a query hides more than the user information, which errs on the safe side.
    /// - **A parameter of the query, the fragment or a path segment** (`name=value`, separated by
    ///   `&` or `;`; `/app;jsessionid=…` in a path) loses its value when its name, percent-decoded
    ///   and without case or punctuation, names a credential (`namesCredential(_:value:)`),
    ///   whatever the value looks like.
    /// - **A value that is itself a URL or a query string** (`?next=/reset?token=…`, or the same
    ///   percent-encoded) is screened as one, to `nestingLimit` levels; deeper nesting is hidden
    ///   whole. A percent-encoded nested URL that holds anything to hide is hidden whole, since its
    ///   screened form could not be shown encoded as typed.
    /// - **A path segment, a parameter's name or value**, looked at as typed and percent-decoded,
    ///   is replaced whole by the redaction marker when `redactingLikelySecrets(_:)` finds
    ///   anything in it (a long token, a JWT, an e-mail address).
    /// - The scheme, host and port stay: they are not secrets, and a long host name would look
    ///   like a token. An authority that is not a plain host and port is screened as parameters.
    ///
    /// Screening what is already screened changes nothing.
    package static func url(_ url: String) -> String {
        screenedURL(Substring(url), depth: 0).escapingControlCharacters
    }

    /// `text` with each `scheme://…` in it screened as `url(_:)` screens a URL (control
    /// characters left to the caller); the rest as it is.
    ///
    /// A URL ends at a space, a quote, a backtick or a control character: what servers put
    /// around a URL in prose and JSON. One pass: the search for the next `://` starts after the
    /// last URL, and the look back for its scheme stops at the `:` or `/` of the one before.
    package static func screeningURLs(in text: String) -> String {
        var shown = ""
        var copied = text.startIndex
        var searchStart = text.startIndex
        while let separator = text[searchStart...].range(of: "://") {
            var start = separator.lowerBound
            while start > copied, isSchemeCharacter(text[text.index(before: start)]) {
                start = text.index(before: start)
            }
            while start < separator.lowerBound, !(text[start].isASCII && text[start].isLetter) {
                start = text.index(after: start)
            }
            let end = text[separator.upperBound...].firstIndex(where: endsURLInText) ?? text.endIndex
            searchStart = start == separator.lowerBound ? separator.upperBound : end
            guard start < separator.lowerBound else { continue }
            shown += text[copied..<start]
            shown += screenedURL(text[start..<end], depth: 0)
            copied = end
        }
        return shown + text[copied...]
    }

    /// Whether `character` ends a URL found in text.
    private static func endsURLInText(_ character: Character) -> Bool {
        character.isWhitespace || "\"'`".contains(character)
            || character.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// Whether `character` may be part of a URL scheme.
    private static func isSchemeCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || "+-.".contains(character))
    }

    /// How deep values that are URLs or query strings are screened as such. Each level looks at
    /// a value typed and percent-decoded, so the cost is at most 2^limit passes over the text:
    /// linear, and small. Real redirect chains nest once or twice.
    static let nestingLimit = 3

    /// `url` screened as `url(_:)` describes, without escaping control characters; `depth` is
    /// how deep inside another URL's parameter value it is.
    private static func screenedURL(_ url: Substring, depth: Int) -> String {
        var shown = ""
        var rest = url
        var hasAuthority = false
        if let separator = url.range(of: "://"), isScheme(url[..<separator.lowerBound]) {
            shown += url[..<separator.upperBound]
            rest = url[separator.upperBound...]
            hasAuthority = true
        }
        if let at = rest.lastIndex(of: "@") {
            shown += "***@"
            rest = rest[rest.index(after: at)...]
            hasAuthority = true
        }
        if hasAuthority {
            let end = rest.firstIndex { "/?#".contains($0) } ?? rest.endIndex
            let authority = rest[..<end]
            shown +=
                authority.allSatisfy(isAuthorityCharacter)
                ? String(authority) : screenedParameters(authority, depth: depth)
            rest = rest[end...]
        }
        let fragmentStart = rest.firstIndex(of: "#")
        let beforeFragment = rest[..<(fragmentStart ?? rest.endIndex)]
        let queryStart = beforeFragment.firstIndex(of: "?")
        shown += beforeFragment[..<(queryStart ?? beforeFragment.endIndex)]
            .split(separator: "/", omittingEmptySubsequences: false)
            .map { screenedSegment($0, depth: depth) }
            .joined(separator: "/")
        if let queryStart {
            shown += "?" + screenedParameters(beforeFragment[beforeFragment.index(after: queryStart)...], depth: depth)
        }
        if let fragmentStart {
            shown += "#" + screenedParameters(rest[rest.index(after: fragmentStart)...], depth: depth)
        }
        return shown
    }

    /// Whether a parameter called `name` carries a credential: its name, percent-decoded,
    /// lowercased and without punctuation (`access_token`, `X-Amz-Signature`, `client%5Fsecret`),
    /// contains one of `credentialNameParts`, ends in `key` (`api_key`, `subscription-key`) or is
    /// one of `credentialNames`; or it is OAuth's authorization `code`, unless `value` is a
    /// status or error number of at most three digits (`code=404`), which no code grant is.
    ///
    /// Deliberately eager, as all screening here: a hidden `author=` costs a look at the command
    /// line, a shown `auth=` costs a credential. `state` is not on the list: OAuth's `state` only
    /// binds a callback to the browser that asked for it, and `state=open` is a common filter.
    static func namesCredential(_ name: Substring, value: Substring) -> Bool {
        let decoded = String(name).removingPercentEncoding ?? String(name)
        let word = String(decoded.lowercased().filter { $0.isLetter || $0.isNumber })
        if word == "code" { return !(1...3).contains(value.count) || !value.allSatisfy { $0.isASCII && $0.isNumber } }
        return word.hasSuffix("key") || credentialNames.contains(word)
            || credentialNameParts.contains { word.contains($0) }
    }

    /// Parts of parameter names that name a credential wherever they appear in the name.
    static let credentialNameParts = [
        "token", "secret", "passw", "passphrase", "signature", "credential", "auth", "session", "sessid",
        "cookie", "jwt", "bearer",
    ]

    /// Short parameter names that name a credential only on their own.
    static let credentialNames: Set<String> = ["pass", "pwd", "pw", "pin", "otp", "sig", "sid"]

    /// `text`, a query, a fragment or a path segment's parameters, with each `&`- or
    /// `;`-separated parameter screened.
    private static func screenedParameters(_ text: Substring, depth: Int) -> String {
        var shown = ""
        var start = text.startIndex
        for index in text.indices where text[index] == "&" || text[index] == ";" {
            shown += screenedParameter(text[start..<index], depth: depth)
            shown.append(text[index])
            start = text.index(after: index)
        }
        return shown + screenedParameter(text[start...], depth: depth)
    }

    /// A path segment: its text before the first `;` screened as a component, its parameters
    /// (`/app;jsessionid=…`) as parameters.
    private static func screenedSegment(_ segment: Substring, depth: Int) -> String {
        guard let semicolon = segment.firstIndex(of: ";") else { return screenedComponent(segment) }
        return screenedComponent(segment[..<semicolon]) + ";"
            + screenedParameters(segment[segment.index(after: semicolon)...], depth: depth)
    }

    /// One `name=value` parameter, or a bare word, screened.
    private static func screenedParameter(_ parameter: Substring, depth: Int) -> String {
        guard let equals = parameter.firstIndex(of: "=") else { return screenedValue(parameter, depth: depth) }
        let name = parameter[..<equals]
        let value = parameter[parameter.index(after: equals)...]
        let shownValue =
            namesCredential(name, value: value) && !value.isEmpty
            ? ErrorContext.Value.redactionMarker : screenedValue(value, depth: depth)
        return screenedComponent(name) + "=" + shownValue
    }

    /// A parameter's value: screened as a URL or a query string when it is one, as typed or
    /// percent-decoded (`next=/reset?token=…`, `next=https%3A%2F%2Fx%2Fcb%3Ftoken%3D…`), else as
    /// a component. Past `nestingLimit`, a nested value is hidden whole.
    private static func screenedValue(_ value: Substring, depth: Int) -> String {
        let decoded = String(value).removingPercentEncoding ?? String(value)
        let typedIsNested = isNested(value)
        let decodedIsNested = decoded != value && isNested(decoded[...])
        guard typedIsNested || decodedIsNested else { return screenedComponent(value) }
        guard depth < nestingLimit else { return ErrorContext.Value.redactionMarker }
        if decodedIsNested && screenedNested(decoded[...], depth: depth + 1) != decoded {
            return ErrorContext.Value.redactionMarker
        }
        return typedIsNested ? screenedNested(value, depth: depth + 1) : screenedComponent(value)
    }

    /// Whether `text`, a parameter's value, is itself a URL or a query string.
    private static func isNested(_ text: Substring) -> Bool {
        text.contains { $0 == "?" || $0 == "=" } || text.contains("://")
    }

    /// `text`, a URL or a query string found in a parameter's value, screened as one.
    private static func screenedNested(_ text: Substring, depth: Int) -> String {
        text.contains("?") || text.contains("://") || text.first == "/"
            ? screenedURL(text, depth: depth) : screenedParameters(text, depth: depth)
    }

    /// A path segment, a name or a value: as typed, or the redaction marker if it holds anything
    /// that looks secret, as typed or percent-decoded (percent-encoding cuts a token into runs too
    /// short to look like one).
    private static func screenedComponent(_ component: Substring) -> String {
        let typed = String(component)
        let decoded = typed.removingPercentEncoding ?? typed
        let looksClean = redactingLikelySecrets(typed) == typed && redactingLikelySecrets(decoded) == decoded
        return looksClean ? typed : ErrorContext.Value.redactionMarker
    }

    /// Whether `character` belongs in a plain authority: a host name, an IPv4 or bracketed IPv6
    /// address, a port.
    private static func isAuthorityCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || "-._~%:[]".contains(character))
    }

    /// Whether `text` has the syntax of a URL scheme (RFC 3986: a letter, then letters, digits,
    /// `+`, `-` and `.`).
    private static func isScheme(_ text: Substring) -> Bool {
        guard let first = text.first, first.isASCII, first.isLetter else { return false }
        return text.allSatisfy(isSchemeCharacter)
    }

    /// Whether `text` starts with a URL scheme and `://`, such as `https://` or `ftp://`.
    package static func startsWithURLScheme(_ text: String) -> Bool {
        guard let separator = text.range(of: "://") else { return false }
        return isScheme(text[..<separator.lowerBound])
    }
}
