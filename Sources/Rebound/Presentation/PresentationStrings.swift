#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Every word Rebound shows to people, by key, in one language.
///
/// Keys are `<message>.title` and `<message>.message` for each ``UserMessage/Key``,
/// `action.<kind>` for each ``SuggestedAction/Kind``, and the labels `label.errorCode`,
/// `label.technicalDetails` and `label.build`. Placeholders are written `{name}`.
///
/// To translate, provide a table with the same keys (in code, or as a JSON object in a file); a
/// key the table lacks falls back to English, so a partial translation never shows a raw key.
public struct PresentationStrings: Hashable, Sendable {
    /// The language of the table, as a BCP 47 tag such as `"en"` or `"de-CH"`.
    public var language: String
    /// The strings by key.
    public var table: [String: String]

    public init(language: String, table: [String: String]) {
        self.language = language
        self.table = table
    }

    /// Reads a table from a JSON object of key to string.
    ///
    /// - Throws: `DecodingError` when the file is not a JSON object of strings, or the error of reading it.
    public init(language: String, contentsOf url: URL) throws {
        let data = try Data(contentsOf: url)
        self.init(language: language, table: try JSONDecoder().decode([String: String].self, from: data))
    }

    /// The table with `overrides` replacing or adding keys: for an app's own messages.
    public func merging(_ overrides: [String: String]) -> PresentationStrings {
        PresentationStrings(language: language, table: table.merging(overrides) { $1 })
    }

    /// The string for `key` with `{placeholders}` filled in; English when this table lacks the key,
    /// and the key itself when English lacks it too.
    public func string(_ key: String, _ arguments: KeyValuePairs<String, String> = [:]) -> String {
        var text = table[key] ?? Self.english.table[key] ?? key
        for (name, value) in arguments {
            text = text.replacing("{\(name)}", with: value)
        }
        return text
    }
}
