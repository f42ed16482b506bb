import Foundation
import Glibc
import Logging

/// Prints the pipeline's log lines readably: one line per attempt and handler decision, and
/// one per change of the circuit breaker's state.
///
/// The pipeline never logs secrets (only methods, paths without queries, statuses, chains,
/// handler names and delays), so the lines can go to a terminal as they are.
struct ConsoleLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let fields = (event.metadata ?? [:]).merging(metadata) { event, _ in event }
        func field(_ key: String) -> String? { fields[key].map { "\($0)" } }
        if let key = field("key"), let from = field("from"), let to = field("to") {
            Console.write(
                "      · circuit \(key): \(from) → \(to)" + (field("break").map { ", for \(Self.seconds($0))" } ?? ""))
            return
        }
        var line = "      · "
        if let endpoint = field("endpoint") { line += endpoint }
        if let attempt = field("attempt") { line += " attempt \(attempt)" }
        if let chain = field("chain"), !chain.isEmpty { line += ": \(chain)" }
        line += " — \(event.message)"
        if let handler = field("handler") { line += " by \(handler)" }
        if let delay = field("delay"), delay != "0.000 s" { line += ", waiting \(delay)" }
        if let age = field("age") { line += ", \(age) old" }
        Console.write(line)
    }

    /// A `Duration` as the logger gives it (`1.176119134 seconds`), in milliseconds' precision.
    private static func seconds(_ duration: String) -> String {
        guard let value = duration.split(separator: " ").first.flatMap({ Double($0) }) else { return duration }
        return String(format: "%.3f s", value)
    }
}

/// Where the example writes: standard output, flushed line by line so that logs and results
/// interleave in order, and a second process reading the output sees each line at once.
enum Console {
    static func write(_ line: String) {
        emit(line + "\n")
    }

    /// Writes without a line end, for a prompt.
    static func prompt(_ text: String) {
        emit(text)
    }

    /// One write(2) per call: unbuffered, so order is kept across threads, and a closed pipe
    /// (`task-client | head`) ends the program as it does any command-line tool, without a crash report.
    private static func emit(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes {
                Glibc.write(STDOUT_FILENO, $0.baseAddress! + offset, $0.count - offset)
            }
            guard written > 0 else { return }
            offset += written
        }
        bytes.removeAll()
    }
}
