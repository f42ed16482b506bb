import Foundation

/// The committed seed inputs of the fuzz targets, and reading inputs from files.
enum FuzzCorpus {
    /// `Fuzz/Corpus/<target>` in the package, found from this file's path.
    static func directory(of target: FuzzTarget, packageRoot: String) -> String {
        "\(packageRoot)/Fuzz/Corpus/\(target.rawValue)"
    }

    /// `path` itself if it is a file, else the files in it (not in its subdirectories), sorted.
    static func files(at path: String) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return [path] }
        guard isDirectory.boolValue else { return [path] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { "\(path)/\($0)" }
    }

    static func contents(of file: String) -> [UInt8]? {
        FileManager.default.contents(atPath: file).map { [UInt8]($0) }
    }

    /// Writes `message` and a line break to standard error.
    static func printError(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}
