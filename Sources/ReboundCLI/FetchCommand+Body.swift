import ArgumentParser
// FileHandle, and the words of a read error (`localizedDescription`), are in Foundation proper.
import Foundation
import Rebound

extension FetchCommand {
    /// The largest request body `--data` reads: the body is held in memory and sent whole, and
    /// `@/dev/zero` or an endless pipe must end with an error, not take all memory.
    static let maxBodySize = 64 * 1024 * 1024

    /// The bytes of `--data`: the text itself, a file's bytes for `@FILE`, or stdin for `@-`, up
    /// to ``maxBodySize``.
    static func readBody(_ argument: String) throws(ValidationError) -> Data {
        guard argument.hasPrefix("@") else { return Data(argument.utf8) }
        let path = String(argument.dropFirst())
        let source = path == "-" ? "standard input" : "'\(path.escapingControlCharacters)'"
        guard let handle = path == "-" ? FileHandle.standardInput : FileHandle(forReadingAtPath: path) else {
            throw ValidationError("Cannot read the request body from \(source): there is no readable file.")
        }
        var body = Data()
        do {
            // In pieces, so that the limit holds however much the source has.
            while let piece = try handle.read(upToCount: 1 << 20), !piece.isEmpty {
                body.append(piece)
                guard body.count <= maxBodySize else {
                    throw ValidationError(
                        "The request body from \(source) is larger than 64 MiB, the most rebound fetch sends.")
                }
            }
        } catch let error as ValidationError {
            throw error
        } catch {
            throw ValidationError("Cannot read the request body from \(source): \(error.localizedDescription)")
        }
        return body
    }
}
