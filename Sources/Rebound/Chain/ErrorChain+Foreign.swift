import Foundation

extension ErrorChain.Link {
    /// The short name of an error type that is not a Rebound layer and has no rendering of its own.
    static let foreignShortName = "XX"

    /// A link for an error that is not a ``LayeredError``.
    ///
    /// Well-known error types get a fixed short name and their own stable codes:
    ///
    /// | type | short | code | name |
    /// |---|---|---|---|
    /// | `DecodingError` | `DE` | typeMismatch 1, valueNotFound 2, keyNotFound 3, dataCorrupted 4 | the case |
    /// | `EncodingError` | `EE` | invalidValue 1 | the case |
    /// | `CancellationError` | `CA` | 1 | `cancelled` |
    /// | `POSIXError` | `PX` | the `errno` value | such as `ECONNRESET` |
    /// | `CocoaError` | `CO` | its code | its code |
    /// | any other `NSError` | `NS` | its code | its code |
    ///
    /// Any other type renders as its module-qualified type name with short name `XX` and code 0,
    /// and an enum case's name as its code name: Swift's own error codes follow the order of the
    /// cases and would change when a case moves, so they are never used. Declare a layer to give
    /// such an error a code of its own. The error's description becomes the link's reason.
    init(foreign error: any Error) {
        switch error {
        case let error as DecodingError:
            self.init(decoding: error)
        case let error as EncodingError:
            let reason: String
            switch error {
            case .invalidValue(_, let context): reason = Self.screened(context.debugDescription)
            @unknown default: reason = Self.screened(String(describing: error))
            }
            self.init(domain: "EncodingError", shortName: "EE", code: 1, codeName: "invalidValue", reason: reason)
        case is CancellationError:
            self.init(domain: "CancellationError", shortName: "CA", code: 1, codeName: "cancelled")
        case let error as POSIXError:
            self.init(
                domain: "POSIXError",
                shortName: "PX",
                code: Int(error.code.rawValue),
                codeName: String(describing: error.code),
                reason: String(cString: strerror(error.code.rawValue))
            )
        // Checked before CocoaError: on Linux any NSError casts to CocoaError.
        case _ where type(of: error) is NSError.Type:
            let error = error as NSError
            self.init(
                domain: error.domain,
                shortName: "NS",
                code: error.code,
                codeName: "\(error.code)",
                reason: Self.screened(error.localizedDescription)
            )
        case let error as CocoaError:
            self.init(
                domain: "CocoaError",
                shortName: "CO",
                code: error.code.rawValue,
                codeName: "\(error.code.rawValue)",
                reason: Self.screened(error.localizedDescription)
            )
        default:
            self.init(
                domain: Self.stableTypeName(of: error),
                shortName: Self.foreignShortName,
                code: 0,
                codeName: Self.caseName(of: error) ?? "error",
                reason: Self.screened(String(describing: error))
            )
        }
    }

    private init(decoding error: DecodingError) {
        let (code, name, context): (Int, String, DecodingError.Context?)
        switch error {
        case .typeMismatch(_, let c): (code, name, context) = (1, "typeMismatch", c)
        case .valueNotFound(_, let c): (code, name, context) = (2, "valueNotFound", c)
        case .keyNotFound(_, let c): (code, name, context) = (3, "keyNotFound", c)
        case .dataCorrupted(let c): (code, name, context) = (4, "dataCorrupted", c)
        @unknown default: (code, name, context) = (0, "unknown", nil)
        }
        var entries: [ContextEntry] = []
        if let path = context.map({ DecodingError.renderedPath($0.codingPath) }), !path.isEmpty {
            entries.append(ContextEntry(key: "codingPath", value: path, isSensitive: false))
        }
        self.init(
            domain: "DecodingError",
            shortName: "DE",
            code: code,
            codeName: name,
            reason: context.map { Self.screened($0.debugDescription) },
            context: entries
        )
    }

    /// The module-qualified type name without the parts that vary between builds: a private or
    /// local type's name carries `(unknown context at $10a3b4c)` or `(Foo in _6A3B…)`.
    private static func stableTypeName(of error: any Error) -> String {
        String(reflecting: type(of: error))
            .split(separator: ".")
            .filter { !$0.hasPrefix("(") }
            .map { component in
                // Generic arguments may carry such parts too; keep only what precedes them.
                component.split(separator: "(", maxSplits: 1).first.map(String.init) ?? String(component)
            }
            .joined(separator: ".")
    }

    /// The case name of an enum value, with or without associated values.
    ///
    /// A case without values has no label to read, and `String(describing:)` gives its name only
    /// when the type describes itself no other way: a description of its own (which may carry a
    /// user, a time, a translation) is never taken for the name, since the chain is the failure's
    /// identity. Such a case is `nil` (the caller's generic name); its text goes to the reason.
    private static func caseName(of error: any Error) -> String? {
        let mirror = Mirror(reflecting: error)
        guard mirror.displayStyle == .enum else { return nil }
        if let label = mirror.children.first?.label { return label }
        // Asked of `Any`: asked of `any Error`, the compiler takes every error for describable
        // (Foundation bridges errors to NSError) and warns that the test is always true, which it
        // is not at run time.
        let value: Any = error
        guard !(value is any CustomStringConvertible), !(value is any CustomDebugStringConvertible),
            !(value is any TextOutputStreamable)
        else { return nil }
        return String(describing: error)
    }

    /// A foreign error's text, which is not ours to trust: bounded in size and screened for what
    /// looks like a credential or an e-mail address, like a server's own text (a decoder's
    /// message quotes the value it could not read, and that value came from the server).
    private static func screened(_ text: String) -> String {
        UntrustedText.message(text)
    }
}

extension DecodingError {
    /// The context every case carries.
    var decodingContext: Context? {
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
            .dataCorrupted(let context):
            return context
        @unknown default:
            return nil
        }
    }

    /// A coding path as people write it: `tasks[3].price`.
    ///
    /// A key may be the server's text (a dictionary's key: an e-mail address, a token), so each is
    /// screened and bounded as a server's identifier is, and the path as a message is.
    static func renderedPath(_ path: [any CodingKey]) -> String {
        var rendered = ""
        for key in path {
            if let index = key.intValue, key.stringValue == "Index \(index)" || key.stringValue == "\(index)" {
                rendered += "[\(index)]"
            } else {
                let name = UntrustedText.identifier(key.stringValue)
                rendered += rendered.isEmpty ? name : ".\(name)"
            }
            if rendered.count > UntrustedText.messageLimit { break }
        }
        return UntrustedText.bounded(rendered, to: UntrustedText.messageLimit)
    }
}
