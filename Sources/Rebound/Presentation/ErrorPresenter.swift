/// Turns any error into what a person should see.
///
/// The message comes from, in order:
/// 1. the outermost link whose code is a ``PresentableErrorCode`` with a message (the app's user layer);
/// 2. the first of ``rules`` that matches the chain (``PresentationRule/standard`` by default);
/// 3. ``UserMessage/generic``: not recoverable, with the error code.
///
/// A message's `{name}` placeholders are filled from the chain's context, the outermost link
/// first: the open circuit's message says "try again in {retryAfterSeconds} s".
///
/// ```swift
/// let presenter = ErrorPresenter(build: BuildIdentity(version: "2.4.1", revision: "3f9c2ab"))
/// let shown = presenter.present(error, includeTechnicalDetails: true)
/// print(presenter.text(of: shown))
/// // Something went wrong. Try again a little later. If the error repeats, send its code to support.
/// // Error code: US4-LO43-AP7-JS3
/// // Technical details: UserError.generalServer - LogicError.loginFailed - APIError.getTokenFailed - JSONError.keyNotFound
/// // Build: 2.4.1 (3f9c2ab)
/// ```
public struct ErrorPresenter: Sendable {
    /// The words to use.
    public var strings: PresentationStrings
    /// The rules asked when no link of the chain has a message of its own.
    public var rules: [PresentationRule]
    /// The build, for technical details.
    public var build: BuildIdentity?

    public init(
        strings: PresentationStrings = .english,
        rules: [PresentationRule] = PresentationRule.standard,
        build: BuildIdentity? = nil
    ) {
        self.strings = strings
        self.rules = rules
        self.build = build
    }

    /// The presenter that `localizedDescription` of Rebound's errors uses: English, standard rules.
    public static let standard = ErrorPresenter()

    /// What a person should see about `error`.
    ///
    /// - Parameters:
    ///   - error: Any error; Rebound's layers give the best results.
    ///   - includeTechnicalDetails: Whether to add the full chain and the build.
    public func present(_ error: any Error, includeTechnicalDetails: Bool = false) -> ErrorPresentation {
        let chain = ErrorChain(error)
        let own = error.causalChain.lazy.compactMap { ($0 as? any UserMessageProviding)?.userMessage }.first
        return present(chain, message: own ?? message(for: chain), includeTechnicalDetails: includeTechnicalDetails)
    }

    /// What a person should see about a chain, for example one decoded from a report.
    public func present(_ chain: ErrorChain, includeTechnicalDetails: Bool = false) -> ErrorPresentation {
        present(chain, message: message(for: chain), includeTechnicalDetails: includeTechnicalDetails)
    }

    /// The presentation as plain text: the message; for an unrecoverable failure the error code;
    /// then the technical details if present. For terminals, logs and `localizedDescription`.
    public func text(of presentation: ErrorPresentation) -> String {
        var lines = [presentation.message]
        if !presentation.isRecoverable {
            lines.append(strings.string("label.errorCode", ["code": presentation.errorCode]))
        }
        if let details = presentation.technicalDetails { lines.append(details) }
        return lines.joined(separator: "\n")
    }

    /// `text` with each `{name}` that names a context entry of the chain (the outermost first)
    /// replaced by its value: an open circuit's `{retryAfterSeconds}`, say. Sensitive entries are
    /// redacted in a chain, so a secret can never be shown this way.
    private static func filling(_ text: String, from chain: ErrorChain) -> String {
        guard text.contains("{") else { return text }
        var text = text
        for link in chain.links {
            for entry in link.context where !entry.isSensitive {
                text = text.replacing("{\(entry.key)}", with: entry.value)
            }
        }
        return text
    }

    private func message(for chain: ErrorChain) -> UserMessage {
        rules.first { $0.matches(chain) }?.message ?? .generic
    }

    private func present(
        _ chain: ErrorChain,
        message: UserMessage,
        includeTechnicalDetails: Bool
    ) -> ErrorPresentation {
        var details: String?
        if includeTechnicalDetails {
            var lines = [strings.string("label.technicalDetails", ["chain": chain.full])]
            if let build { lines.append(strings.string("label.build", ["build": build.description])) }
            details = lines.joined(separator: "\n")
        }
        return ErrorPresentation(
            messageKey: message.key,
            isRecoverable: message.isRecoverable,
            title: strings.string("\(message.key).title"),
            message: Self.filling(strings.string("\(message.key).message"), from: chain),
            actions: message.actions.map { SuggestedAction(kind: $0, title: strings.string("action.\($0)")) },
            errorCode: chain.short,
            technicalDetails: details
        )
    }
}
