import Foundation

/// The tool's output: data and JSON on stdout, everything meant for a person on stderr.
///
/// Everything goes through `FileHandle`, unbuffered, so that stdout and stderr keep their order
/// relative to each other and bytes that are not UTF-8 (a binary body) reach stdout unchanged.
enum StandardStreams {
    /// Writes `data` to stdout as it is.
    static func writeOutput(_ data: Data) {
        try? FileHandle.standardOutput.write(contentsOf: data)
    }

    /// Writes `line` and a newline to stdout.
    static func writeOutput(line: String) {
        writeOutput(Data((line + "\n").utf8))
    }

    /// Writes `text` and a newline to stderr.
    static func writeError(_ text: String) {
        try? FileHandle.standardError.write(contentsOf: Data((text + "\n").utf8))
    }
}
