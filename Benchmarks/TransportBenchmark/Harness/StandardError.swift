import Foundation

/// The name this executable was started as, such as `transport-benchmark`, for messages.
let programName = String(CommandLine.arguments.first?.split(separator: "/").last ?? "benchmark")

/// Writes one line to standard error, after the program's name, keeping standard output for the
/// JSON report alone.
func printToStandardError(_ message: String) {
    FileHandle.standardError.write(Data("\(programName): \(message)\n".utf8))
}
