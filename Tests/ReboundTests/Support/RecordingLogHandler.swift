import Logging
import Rebound

/// A swift-log handler that keeps every line with its metadata.
final class RecordingLogHandler: LogHandler, @unchecked Sendable {
    struct Line {
        var level: Logger.Level
        var message: String
        var metadata: Logger.Metadata
    }

    let lines = Locked<[Line]>([])
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        lines.withLock {
            $0.append(Line(level: event.level, message: "\(event.message)", metadata: event.metadata ?? [:]))
        }
    }

    /// Every line as text, metadata sorted by key.
    var rendered: [String] {
        lines.withLock { lines in
            lines.map { line in
                "\(line.level) \(line.message) "
                    + line.metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            }
        }
    }
}
