import ArgumentParser
import HTTPTypes

/// Reads `-H "Name: value"` arguments into header fields, as curl writes them.
enum HeaderArguments {
    /// The header fields, in the order given, repeats kept.
    ///
    /// Surrounding spaces and tabs of the value are dropped, as HTTP does; an empty value
    /// (`"X-Empty:"`) is kept.
    ///
    /// - Throws: A `ValidationError` naming the first argument that is not `Name: value` with a
    ///   valid field name and value.
    static func fields(from arguments: [String]) throws(ValidationError) -> HTTPFields {
        var fields = HTTPFields()
        for argument in arguments {
            guard let colon = argument.firstIndex(of: ":") else {
                throw ValidationError(
                    "Invalid header '\(argument)': expected 'Name: value', such as -H 'Accept: text/plain'.")
            }
            let nameText = String(argument[..<colon])
            let value = String(argument[argument.index(after: colon)...]).trimmingSpacesAndTabs
            guard let name = HTTPField.Name(nameText) else {
                throw ValidationError(
                    "Invalid header '\(argument)': '\(nameText)' is not a valid field name (letters, digits and !#$%&'*+-.^_`|~, no spaces)."
                )
            }
            guard HTTPField.isValidValue(value) else {
                throw ValidationError("Invalid header '\(argument)': the value holds characters a header cannot carry.")
            }
            fields.append(HTTPField(name: name, value: value))
        }
        return fields
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
