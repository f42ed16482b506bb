import ArgumentParser
import CommandLineWidth

/// The `rebound` tool's command line, for its executable and for the fuzz target
/// `cli-arguments`, which parses command lines in process.
package enum ReboundCommandLine {
    /// How the tool ends when it does not run a command to its end: the exit status and what it
    /// prints.
    package struct End: Equatable, Sendable {
        /// The exit status: 0 after help, 64 (`EX_USAGE`) for arguments that are not valid.
        package var status: Int32
        /// The help (on stdout) or the error message (on stderr), arguments it quotes screened;
        /// empty when there is nothing to print.
        package var message: String

        /// Whether the tool ends well (help or a version asked for), its message on stdout.
        package var isSuccess: Bool { status == 0 }
    }

    /// Runs the tool on the process's arguments: parses and validates them, runs the command,
    /// and exits with the command's status, or with the status and message of `end(of:columns:)`.
    package static func main() async {
        await Rebound.main()
    }

    /// How the tool ends for `arguments` without running a command: what it prints and its
    /// status when they ask for help or are not valid; `nil` when they name a command to run.
    ///
    /// Parsing and validation only: nothing is sent, no file is read, nothing is printed.
    ///
    /// - Parameters:
    ///   - arguments: The arguments after the tool's name.
    ///   - columns: The value of `COLUMNS`, which sets the width of help and messages.
    package static func end(of arguments: [String], columns: String?) -> End? {
        do {
            var command = try Rebound.parseAsRoot(arguments)
            let commandType = ObjectIdentifier(type(of: command))
            if !Rebound.configuration.subcommands.contains(where: { ObjectIdentifier($0) == commandType }) {
                // ArgumentParser's own `help` command, which does nothing but throw the help.
                try command.run()
            }
            return nil
        } catch {
            return Rebound.end(
                for: error, arguments: arguments, width: MessageWidth.width(columns: columns, terminalColumns: nil))
        }
    }
}
