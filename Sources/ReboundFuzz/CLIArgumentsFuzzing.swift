import ReboundCLI

/// The `rebound` tool's command line, parsed and validated as the tool does before it runs a
/// command (`ReboundCommandLine.end(of:columns:)`), with a secret planted in it.
///
/// The input's first byte picks a secret and the arguments it is planted in (a URL's password or
/// query, a header's value, an option's value, a word on its own), its second where among the
/// arguments they go. The rest is cut at each NUL byte into the other arguments, in order, and
/// `NAME=value` entries of the environment, the pieces that start with the byte 1; the tool reads
/// `COLUMNS` from it, to wrap its help and messages.
///
/// Contract: no crash and no hang, whatever the arguments and `COLUMNS`; a command line that is
/// not valid ends with status 64 and a message, and help with status 0; the message is bounded,
/// holds no control character but line breaks when it is an error, and never the planted secret.
enum CLIArgumentsFuzzing {
    /// Secrets of the shapes people type into a command line: a short password, an API key, a
    /// JSON Web Token.
    static let secrets = [
        "hunter2Pw9",
        "sk9Qz4Lm2Wx7Rt5Vb8Nc3Hd6Jf1Kg0Pq",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlLXZhbHVl",
    ]

    /// Where a secret goes: the arguments that carry it, `{S}` standing for the secret. Each is a
    /// place the tool promises not to show: a URL's user information and its parameters that
    /// name a credential, a header's value, an argument that is neither a URL nor a header.
    static let plantings: [[String]] = [
        [],  // none: the command line as the fuzzer wrote it
        ["http://user:{S}@127.0.0.1:1/"],
        ["https://api.example.com/v1/tasks?access_token={S}&limit=2"],
        ["http://127.0.0.1:1/x?api_key={S}"],
        ["ftp://u:{S}@example.com/f?sig={S}"],
        ["u:{S}@example.com/"],
        ["-H", "Authorization: Bearer {S}"],
        ["-HAuthorization: Bearer {S}"],
        ["--header=Cookie: session={S}"],
        ["Authorization: Basic {S}"],
        ["{S}"],
        ["--deadline={S}"],
        ["--timeout", "{S}"],
        ["-X", "{S}"],
        ["-d", "{S}"],
        ["--idempotency-key", "{S}"],
        ["--baseline", "http://u:{S}@example.com/r.jsonl"],
        ["--Cookie: session={S}"],
        ["---x={S}"],
    ]

    /// The most a message may hold: the longest help, and per byte of input the most that
    /// screening and escaping may show for it (`\u{1B}` for one byte, a redaction marker for a
    /// word of one letter, each quoted more than once).
    static func messageLimit(inputCount: Int) -> Int {
        64 * 1024 + 64 * inputCount
    }

    static func violations(_ input: [UInt8]) -> [String] {
        guard input.count >= 2 else { return [] }
        let secret = secrets[Int(input[0]) % secrets.count]
        let planting = plantings[Int(input[0]) / secrets.count % plantings.count].map {
            $0.replacing("{S}", with: secret)
        }
        let (given, environment) = commandLine(input.dropFirst(2))
        var arguments = given
        arguments.insert(contentsOf: planting, at: min(Int(input[1]), arguments.count))
        guard let end = ReboundCommandLine.end(of: arguments, columns: environment["COLUMNS"]) else { return [] }

        var violations: [String] = []
        let shown = "\(arguments.debugDescription): \(end.message.debugDescription)"
        if end.status != 0 && end.status != 64 {
            violations.append("status \(end.status) for \(shown)")
        }
        if end.status == 64 && end.message.isEmpty {
            violations.append("status 64 without a message for \(arguments.debugDescription)")
        }
        if end.message.utf8.count > messageLimit(inputCount: input.count) {
            violations.append("a message of \(end.message.utf8.count) bytes for \(input.count) bytes of input")
        }
        if end.status != 0,
            end.message.unicodeScalars.contains(where: { $0 != "\n" && $0.properties.generalCategory == .control })
        {
            violations.append("a control character in \(shown)")
        }
        // The fuzzer may copy the secret into an argument of its own, where nothing hides it.
        let copied = given.contains { $0.contains(secret) } || environment.values.contains { $0.contains(secret) }
        if !copied && end.message.contains(secret) {
            violations.append("the secret \(secret.debugDescription) in \(shown)")
        }
        return violations
    }

    /// The arguments and the environment that `bytes` hold: pieces cut at NUL bytes, those that
    /// start with the byte 1 `NAME=value` entries of the environment, the others arguments.
    static func commandLine(_ bytes: ArraySlice<UInt8>) -> (arguments: [String], environment: [String: String]) {
        var arguments: [String] = []
        var environment: [String: String] = [:]
        for piece in bytes.split(separator: 0, omittingEmptySubsequences: false) {
            guard piece.first == 1 else {
                arguments.append(String(decoding: piece, as: UTF8.self))
                continue
            }
            let entry = String(decoding: piece.dropFirst(), as: UTF8.self)
            guard let equals = entry.firstIndex(of: "=") else { continue }
            environment[String(entry[..<equals])] = String(entry[entry.index(after: equals)...])
        }
        return (arguments, environment)
    }
}
