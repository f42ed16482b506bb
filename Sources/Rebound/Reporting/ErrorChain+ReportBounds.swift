extension ErrorChain {
    /// The longest reason, context key or context value a report keeps, in characters: 500, the
    /// limit a foreign error's description already has (``Link/init(foreign:)``), and a few
    /// sentences, enough for any message meant for developers.
    ///
    /// A call site may put a response body or a whole document into a reason or the context; cut,
    /// it cannot make one report megabytes long, nor a full queue of them.
    static let reportedTextLimit = UntrustedText.messageLimit

    /// This chain with every link's reason and context keys and values cut to
    /// ``reportedTextLimit`` characters, ending in `…` where they were cut.
    ///
    /// Codes, names and places are the code's own and stay whole, so the short and full
    /// renderings, the grouping key, do not change.
    func boundedForReport() -> ErrorChain {
        var bounded = self
        for index in bounded.links.indices {
            bounded.links[index].reason = bounded.links[index].reason.map {
                UntrustedText.bounded($0, to: Self.reportedTextLimit)
            }
            bounded.links[index].context = bounded.links[index].context.map { $0.boundedForReport() }
        }
        return bounded
    }
}

extension ErrorChain.Link.ContextEntry {
    /// This entry with its key and value cut to ``ErrorChain/reportedTextLimit`` characters.
    func boundedForReport() -> Self {
        Self(
            key: UntrustedText.bounded(key, to: ErrorChain.reportedTextLimit),
            value: UntrustedText.bounded(value, to: ErrorChain.reportedTextLimit),
            isSensitive: isSensitive
        )
    }
}
