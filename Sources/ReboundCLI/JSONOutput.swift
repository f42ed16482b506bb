#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The tool's JSON on stdout: one object per line, so that a script can read it with one `read`.
enum JSONOutput {
    /// `value` as one line of JSON followed by a newline.
    ///
    /// Keys are sorted, so the same values always print the same bytes (`simulate --seed` output
    /// can be compared with `cmp`); slashes are not escaped, so URLs stay readable.
    static func line(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value) + Data("\n".utf8)
    }
}
