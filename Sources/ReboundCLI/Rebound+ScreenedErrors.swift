import ArgumentParser
import CommandLineWidth
import Rebound

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Rebound {
    /// Runs the tool as ArgumentParser's own `main()` does, except that the message of an error
    /// shows the arguments it quotes screened, and help and messages are wrapped to a width with
    /// room for them (`MessageWidth`).
    ///
    /// ArgumentParser quotes a misplaced argument as given (`Unexpected argument '…'`, `The value
    /// '…' is invalid for '--deadline <seconds>'`), and the argument may be a URL that carries a
    /// secret, or hold control characters. The tool's own messages already quote URLs screened.
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        // ArgumentParser reads `COLUMNS` wherever it wraps text, `exitCode(for:)` included: the
        // tool gives it a width with room, its own process's setting.
        let width = MessageWidth.applyToEnvironment()
        do {
            var command = try parseAsRoot(arguments)
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            let end = end(for: error, arguments: arguments, width: width)
            if !end.message.isEmpty {
                // As ArgumentParser does: help on stdout, errors on stderr.
                if end.isSuccess {
                    StandardStreams.writeOutput(line: end.message)
                } else {
                    StandardStreams.writeError(end.message)
                }
            }
            #if canImport(Glibc)
                Glibc.exit(end.status)
            #else
                Darwin.exit(end.status)
            #endif
        }
    }

    /// How the tool ends after `error`, thrown by parsing `arguments` or by running their
    /// command: ArgumentParser's status and message for it, the message wrapped to `width`
    /// columns and screened.
    static func end(for error: any Error, arguments: [String], width: Int) -> ReboundCommandLine.End {
        let code = exitCode(for: error)
        return ReboundCommandLine.End(
            status: code.rawValue,
            message: screening(fullMessage(for: error, columns: width), arguments: arguments)
        )
    }

    /// `message` with every argument it quotes, and every value of a `--name=value` argument,
    /// replaced by what `ShownArgument` shows of it: a URL screened, a header field by its name,
    /// anything else not at all. Options and subcommand names are shown as typed; an option with
    /// its value attached (`-HAuthorization: …`) by its option and what is shown of the value.
    ///
    /// A URL or a header field is replaced wherever it appears; any other argument only where it
    /// is quoted (`'…'`, as ArgumentParser and the tool quote), or where ArgumentParser names an
    /// argument it cannot read as an option at all without quotes (`Invalid option: ---x=…`,
    /// `Invalid option: -=…`), since a short word such as `1` may also be part of the message's
    /// own text.
    static func screening(_ message: String, arguments: [String]) -> String {
        let commandNames = Set(configuration.subcommands.compactMap { $0.configuration.commandName })
        // Each quoted text, what to show instead, and whether to replace it unquoted too.
        var replacements: [(text: String, shown: String, anywhere: Bool)] = []
        func add(_ text: String, shownAs shown: String) {
            guard !text.isEmpty, shown != text else { return }
            let anywhere = ShownArgument.isURL(text) || ShownArgument.headerName(text) != nil
            replacements.append((text, shown, anywhere))
        }
        for argument in arguments {
            if argument.hasPrefix("-") {
                if let equals = argument.firstIndex(of: "="), ShownArgument.isOptionName(argument[..<equals]) {
                    let value = String(argument[argument.index(after: equals)...])
                    guard !value.isEmpty else { continue }
                    add(value, shownAs: ShownArgument.shown(value))
                    add(argument, shownAs: argument[...equals] + ShownArgument.shown(value))
                } else if !ShownArgument.isOptionName(argument[...]) {
                    add(argument, shownAs: ShownArgument.shownAfterDashes(argument))
                    // ArgumentParser reads what comes before a `=` as the option's name, and
                    // quotes that alone.
                    if let equals = argument.firstIndex(of: "=") {
                        let name = String(argument[..<equals])
                        add(name, shownAs: ShownArgument.shownAfterDashes(name))
                    }
                }
            } else if !commandNames.contains(argument) {
                add(argument, shownAs: ShownArgument.shown(argument))
            }
        }
        var screened = message
        // Longest first, so that an argument inside another is not screened on its own first.
        for replacement in replacements.sorted(by: { $0.text.count > $1.text.count }) {
            if replacement.anywhere {
                screened = screened.replacing(replacement.text, with: replacement.shown)
            } else {
                screened = screened.replacing("'\(replacement.text)'", with: "'\(replacement.shown)'")
                screened = screened.replacing(
                    "Invalid option: \(replacement.text)", with: "Invalid option: \(replacement.shown)")
            }
        }
        return screened
    }
}
