import Rebound

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads an input to its end a block at a time and hands over its lines, one by one, without
/// ever holding more than one line of at most `maximumLineLength` bytes and one block.
///
/// ```
///  buffer: [ rest of a line | newly read block ......................... ]
///            └ moved to the front after each block; a rest longer than the limit is an
///              over-long line, dropped up to its newline
/// ```
struct LineSplitter {
    let maximumLineLength: Int
    /// The most bytes read before the input is refused.
    let limit: Int
    /// The bytes read so far.
    private(set) var bytesRead = 0

    init(maximumLineLength: Int, limit: Int) {
        self.maximumLineLength = maximumLineLength
        self.limit = limit
    }

    /// Reads `input` to its end.
    ///
    /// - Parameters:
    ///   - input: What to read.
    ///   - line: Called with each line without its newline (the bytes are valid only during the
    ///     call) and its number from 1; with `nil` for a line longer than the limit, which is
    ///     not read.
    ///   - progress: Called after each block with the bytes read so far.
    /// - Throws: `cannotReadFile` if reading fails or passes `limit`.
    mutating func read(
        _ input: ReportInput,
        line: (UnsafeRawBufferPointer?, Int) -> Void,
        progress: (Int) -> Void
    ) throws(ReportingError) {
        let capacity = maximumLineLength + JSONLinesReportReader.blockSize
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 1)
        defer { buffer.deallocate() }
        let base = buffer.baseAddress!
        var filled = 0
        var number = 0
        // Inside a line already counted as over-long: bytes are dropped up to its newline.
        var skipping = false
        while true {
            let count = Glibc.read(input.descriptor, base + filled, capacity - filled)
            if count < 0 {
                if errno == EINTR { continue }
                throw ReportInput.failure(input.path, errno)
            }
            if count == 0 { break }
            guard count <= limit - bytesRead else { throw tooLarge(input.path) }
            bytesRead += count
            var start = 0
            var scanFrom = filled
            filled += count
            while let newline = memchr(base + scanFrom, Int32(UInt8(ascii: "\n")), filled - scanFrom) {
                let end = base.distance(to: UnsafeMutableRawPointer(newline))
                if skipping {
                    skipping = false
                } else {
                    number += 1
                    let length = end - start
                    line(
                        length > maximumLineLength ? nil : UnsafeRawBufferPointer(start: base + start, count: length),
                        number)
                }
                start = end + 1
                scanFrom = start
            }
            if skipping {
                filled = 0
            } else if filled - start > maximumLineLength {
                // No newline within the limit: the line is over-long whatever follows.
                number += 1
                line(nil, number)
                skipping = true
                filled = 0
            } else {
                filled -= start
                if start > 0, filled > 0 { memmove(base, base + start, filled) }
            }
            progress(bytesRead)
        }
        if !skipping, filled > 0 {
            number += 1
            line(UnsafeRawBufferPointer(start: base, count: filled), number)
        }
    }

    private func tooLarge(_ path: String) -> ReportingError {
        ReportingError(
            .cannotReadFile,
            reason: "The file is larger than \(limit) bytes, the reader's limit.",
            context: ["path": "\(path)", "maximumFileSize": "\(limit)"]
        )
    }
}
