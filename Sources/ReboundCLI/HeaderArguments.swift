import ArgumentParser
import HTTPTypes

/// Reads `-H "Name: value"` arguments into header fields, as curl writes them.
enum HeaderArguments {
    /// The header fields, in the order given, repeats kept.
    ///
    /// Surrounding spaces and tabs of the value are dropped, as HTTP does; an empty value
    /// (`"X-Empty:"`) is kept.
    ///
    /// - Throws: A `ValidationError` about the first argument that is not `Name: value` with a
    ///   valid field name and value. It names the argument by its position (`the 2nd -H`), or by
    ///   its field name when only the value is wrong, and never quotes the argument: `-H` carries
    ///   tokens and passwords, and a value may hold line breaks and terminal escapes.
    static func fields(from arguments: [String]) throws(ValidationError) -> HTTPFields {
        var fields = HTTPFields()
        for (index, argument) in arguments.enumerated() {
            let position = "the \(ordinal(index + 1)) -H"
            guard let colon = argument.firstIndex(of: ":") else {
                throw ValidationError(
                    "Invalid header in \(position): expected 'Name: value', such as -H 'Accept: text/plain' (the argument is not shown, as it may hold a secret)."
                )
            }
            let nameText = String(argument[..<colon])
            let value = String(argument[argument.index(after: colon)...]).trimmingSpacesAndTabs
            guard let name = HTTPField.Name(nameText) else {
                throw ValidationError(
                    "Invalid header in \(position): the text before the first ':' is not a valid field name (letters, digits and !#$%&'*+-.^_`|~, no spaces; the argument is not shown, as it may hold a secret)."
                )
            }
            guard HTTPField.isValidValue(value) else {
                // A valid field name is a token: quoting it cannot leak a value or a control character.
                throw ValidationError(
                    "Invalid header '\(name.rawName)' (\(position)): the value holds characters a header cannot carry, such as control characters or line breaks."
                )
            }
            fields.append(HTTPField(name: name, value: value))
        }
        return fields
    }

    /// `1st`, `2nd`, `3rd`, `4th`, … `11th`, `12th`, `13th`, … `21st`.
    static func ordinal(_ number: Int) -> String {
        let suffix =
            switch (number % 10, number % 100) {
            case (_, 11...13): "th"
            case (1, _): "st"
            case (2, _): "nd"
            case (3, _): "rd"
            default: "th"
            }
        return "\(number)\(suffix)"
    }
}

extension String {
    fileprivate var trimmingSpacesAndTabs: String {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isBlank($0) }), let last = lastIndex(where: { !isBlank($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
