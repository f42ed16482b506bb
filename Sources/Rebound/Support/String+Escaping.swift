extension String {
    /// The string with every character that could move the cursor, clear the screen or hide text
    /// written as a Swift escape (`\u{1B}`, `\u{D}`), so that an error message may quote an
    /// argument without letting it rewrite the terminal or forge lines in a log.
    ///
    /// Escaped: control characters (C0, DEL, C1, so line breaks and ESC), format characters (such
    /// as the bidirectional overrides) and the Unicode line and paragraph separators.
    package var escapingControlCharacters: String {
        var escaped = ""
        for scalar in unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator:
                escaped += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default:
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
