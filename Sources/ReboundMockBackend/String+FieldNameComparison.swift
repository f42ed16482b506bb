extension String {
    /// Whether the two strings are equal ignoring case, the way HTTP compares field names and tokens.
    package func caseInsensitiveEquals(_ other: String) -> Bool {
        lowercased() == other.lowercased()
    }
}
