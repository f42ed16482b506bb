import Rebound

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One open input of the reader: a file, a pipe, a character device or standard input.
struct ReportInput {
    /// The name the reader reports it by: its path, or `-` for standard input.
    let path: String
    let descriptor: Int32
    /// Its size when it is a regular file, for progress.
    let size: Int?

    /// The name `rebound report` and the reader give standard input.
    static let standardInputName = "-"

    /// Closes it, unless it is standard input, which the process keeps.
    func close() {
        guard descriptor != STDIN_FILENO else { return }
        _ = Glibc.close(descriptor)
    }

    /// A read failure of `path` with `errno` `code`: its cause the `POSIXError`, its reason the
    /// system's words for it.
    static func failure(_ path: String, _ code: Int32) -> ReportingError {
        ReportingError(
            .cannotReadFile,
            cause: POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO),
            reason: String(cString: strerror(code)),
            context: ["path": "\(path)"]
        )
    }

    /// Opens `path` for reading, without waiting for a writer if it is a pipe.
    ///
    /// - Throws: `cannotReadFile` if it cannot be opened, is a directory, or is neither a regular
    ///   file, a pipe nor a character device (a socket, a block device).
    static func open(_ path: String) throws(ReportingError) -> ReportInput {
        let descriptor: Int32
        if path == standardInputName {
            descriptor = STDIN_FILENO
        } else {
            // Opening a pipe for reading waits until something opens it for writing, which may be
            // never: open without waiting, and decide by the file's type what to read.
            descriptor = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            guard descriptor >= 0 else { throw failure(path, errno) }
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let code = errno
            if descriptor != STDIN_FILENO { _ = Glibc.close(descriptor) }
            throw failure(path, code)
        }
        let input = ReportInput(
            path: path, descriptor: descriptor, size: info.st_mode & S_IFMT == S_IFREG ? Int(info.st_size) : nil)
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            return input
        case S_IFIFO, S_IFCHR:
            // A pipe (`<(cat f)` hands one over) is read to its end; reads wait for a writer that
            // is still writing, and a pipe that no one writes to reads as empty at once. A
            // character device is read the same way: `/dev/null` is an empty input, and a
            // terminal is read until its end of file.
            guard descriptor != STDIN_FILENO else { return input }
            let flags = fcntl(descriptor, F_GETFL)
            guard flags >= 0, fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) == 0 else {
                let code = errno
                input.close()
                throw failure(path, code)
            }
            return input
        case S_IFDIR:
            input.close()
            throw failure(path, EISDIR)
        default:
            input.close()
            // A socket or a block device holds no report file.
            throw ReportingError(
                .cannotReadFile,
                reason: "Not a regular file, a pipe or a character device.",
                context: ["path": "\(path)"]
            )
        }
    }

    // MARK: - Arguments to files

    /// The deepest a directory is searched for report files: far deeper than any log layout, and
    /// a bound on a tree that links back into itself.
    static let maximumDirectoryDepth = 32

    /// The files that `arguments` name, in order: a file (or `-`) as it is, a directory as the
    /// `.jsonl` files in it and in its subdirectories (sorted by path), and an argument that names
    /// nothing but holds `*`, `?` or `[` as the files its glob pattern matches (sorted), so that a
    /// pattern the shell did not expand (quoted, or too many files for a command line) works.
    ///
    /// - Throws: `cannotReadFile` (cause `ENOENT`) for a directory without report files and for a
    ///   pattern that matches nothing; with the cause the system gave, for a directory (or one of
    ///   its subdirectories) that cannot be read. A file that does not exist is left to
    ///   ``open(_:)``, so that its error comes in its turn.
    static func files(in arguments: [String]) throws(ReportingError) -> [String] {
        var files: [String] = []
        for argument in arguments {
            if argument == standardInputName {
                files.append(argument)
                continue
            }
            var info = stat()
            if stat(argument, &info) == 0 {
                guard info.st_mode & S_IFMT == S_IFDIR else {
                    files.append(argument)
                    continue
                }
                let found = try reportFiles(inDirectory: argument, depth: 0).sorted()
                guard !found.isEmpty else {
                    throw ReportingError(
                        .cannotReadFile,
                        cause: POSIXError(.ENOENT),
                        reason: "The directory holds no report files (*.jsonl).",
                        context: ["path": "\(argument)"]
                    )
                }
                files += found
            } else if argument.contains(where: { "*?[".contains($0) }) {
                let matches = globbed(argument)
                guard !matches.isEmpty else {
                    throw ReportingError(
                        .cannotReadFile,
                        cause: POSIXError(.ENOENT),
                        reason: "No file matches the pattern.",
                        context: ["path": "\(argument)"]
                    )
                }
                for match in matches {
                    var matched = stat()
                    if stat(match, &matched) == 0, matched.st_mode & S_IFMT == S_IFDIR {
                        files += try reportFiles(inDirectory: match, depth: 0).sorted()
                    } else {
                        files.append(match)
                    }
                }
            } else {
                files.append(argument)
            }
        }
        return files
    }

    /// The `.jsonl` files under `directory`; symbolic links to directories are not followed, and a
    /// link named `.jsonl` that leads to no file it could read (it dangles, or leads to a
    /// directory) is no report file.
    ///
    /// - Throws: `cannotReadFile` for a directory that cannot be read: its reports would be missed
    ///   without a word otherwise.
    private static func reportFiles(inDirectory directory: String, depth: Int) throws(ReportingError) -> [String] {
        guard depth <= maximumDirectoryDepth else { return [] }
        guard let stream = opendir(directory) else { throw failure(directory, errno) }
        defer { closedir(stream) }
        var files: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name != ".", name != ".." else { continue }
            let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                files += try reportFiles(inDirectory: path, depth: depth + 1)
            case S_IFREG:
                if name.hasSuffix(".jsonl") { files.append(path) }
            case S_IFLNK:
                var target = stat()
                guard name.hasSuffix(".jsonl"), stat(path, &target) == 0, target.st_mode & S_IFMT != S_IFDIR else {
                    continue
                }
                files.append(path)
            default:
                continue
            }
        }
        return files
    }

    /// The paths `pattern` matches, sorted; none if it matches nothing or cannot be expanded.
    private static func globbed(_ pattern: String) -> [String] {
        var result = glob_t()
        defer { globfree(&result) }
        guard glob(pattern, 0, nil, &result) == 0 else { return [] }
        return (0..<Int(result.gl_pathc)).compactMap { index in
            result.gl_pathv[index].map { String(cString: $0) }
        }
    }
}
