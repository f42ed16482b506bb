#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The tool's output: data and JSON on stdout, everything meant for a person on stderr.
///
/// Everything is written with `write(2)`, unbuffered, so that stdout and stderr keep their order
/// relative to each other and bytes that are not UTF-8 (a binary body) reach stdout unchanged.
enum StandardStreams {
    /// Writes `data` to stdout as it is.
    static func writeOutput(_ data: Data) {
        write(data, to: STDOUT_FILENO)
    }

    /// Writes `line` and a newline to stdout.
    static func writeOutput(line: String) {
        writeOutput(Data((line + "\n").utf8))
    }

    /// Writes `text` and a newline to stderr.
    static func writeError(_ text: String) {
        write(Data((text + "\n").utf8), to: STDERR_FILENO)
    }

    /// Writes all of `data` to `descriptor`, going on after a partial write or an interruption;
    /// a stream that fails (a closed pipe) loses the rest, as there is nowhere to report it.
    private static func write(_ data: Data, to descriptor: Int32) {
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                #if canImport(Glibc)
                    let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                #else
                    let written = Darwin.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                #endif
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }
}
