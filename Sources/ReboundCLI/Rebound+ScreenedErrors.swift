import ArgumentParser
import Foundation
import Rebound

extension Rebound {
    /// Runs the tool as ArgumentParser's own `main()` does, except that the message of an error
    /// shows the arguments it quotes screened.
    ///
    /// ArgumentParser quotes a misplaced argument as given (`Unexpected argument '…'`, `The value
    /// '…' is invalid for '--deadline <seconds>'`), and the argument may be a URL that carries a
    /// secret, or hold control characters. The tool's own messages already quote URLs screened.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            let message = screening(fullMessage(for: error), arguments: Array(CommandLine.arguments.dropFirst()))
            if !message.isEmpty {
                // As ArgumentParser does: help on stdout, errors on stderr.
                if code.isSuccess {
                    StandardStreams.writeOutput(line: message)
                } else {
                    StandardStreams.writeError(message)
                }
            }
            Foundation.exit(code.rawValue)
        }
    }

    /// `message` with every argument, and every value of a `--name=value` argument, replaced by
    /// what `UntrustedText.url` shows of it, where that differs: its user information, secrets
    /// and control characters hidden or escaped.
    static func screening(_ message: String, arguments: [String]) -> String {
        var quotable = arguments
        for argument in arguments where argument.hasPrefix("-") {
            if let equals = argument.firstIndex(of: "=") { quotable.append(String(argument[equals...].dropFirst())) }
        }
        var screened = message
        // Longest first, so that an argument inside another is not screened on its own first.
        for argument in quotable.sorted(by: { $0.count > $1.count }) where !argument.isEmpty {
            let shown = UntrustedText.url(argument)
            if shown != argument { screened = screened.replacingOccurrences(of: argument, with: shown) }
        }
        return screened
    }
}
