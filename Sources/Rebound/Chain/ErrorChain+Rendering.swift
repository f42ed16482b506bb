extension ErrorChain: CustomDebugStringConvertible {
    /// A multi-line rendering for logs: one link per line, indented by depth, with the link's
    /// reason, context (sensitive values redacted) and where it was created.
    ///
    /// It is what `String(reflecting:)`, `debugPrint` and debuggers show; `description` and string
    /// interpolation give the short chain.
    ///
    /// ```
    /// UserError.connectionIssue [US14] at App/LoginView.swift:40
    ///   LogicError.loginFailed [LO43] at App/LoginInteractor.swift:18
    ///     APIError.getTokenFailed [AP7] — token request failed {endpoint: /v1/token} at App/API.swift:77
    ///       NetworkError.timeout [NE2] — The request took longer than 60 seconds. {curlCode: 28}
    /// ```
    public var debugDescription: String {
        var lines: [String] = []
        for (depth, link) in links.enumerated() {
            var line = String(repeating: "  ", count: depth) + "\(link.full) [\(link.short)]"
            if let reason = link.reason, !reason.isEmpty { line += " — \(reason.singleLine)" }
            if !link.context.isEmpty {
                line += " {" + link.context.map { "\($0.key): \($0.value.singleLine)" }.joined(separator: ", ") + "}"
            }
            if let file = link.file, let lineNumber = link.line { line += " at \(file):\(lineNumber)" }
            lines.append(line)
        }
        if isTruncated {
            lines.append(String(repeating: "  ", count: links.count) + "… deeper causes left out")
        }
        return lines.joined(separator: "\n")
    }
}

extension String {
    /// The text on one line, so that one link stays one line of a log.
    fileprivate var singleLine: String {
        guard contains(where: \.isNewline) else { return self }
        return split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
