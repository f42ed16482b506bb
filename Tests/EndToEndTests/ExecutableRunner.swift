import Foundation
import TestSupport

/// Runs an executable product of this package as a child process and collects what it printed.
///
/// The products are found as swift-argument-parser's own example tests find them: next to the
/// `.xctest` bundle, in the build's products directory, so any `--scratch-path` works; failing
/// that, next to the running test binary, and last in `.build/debug`.
///
/// A run never hangs a test: past its time limit the child gets SIGTERM, then SIGKILL, and the
/// result says it timed out. The blocking reads and waits run on threads of their own, never on
/// the cooperative pool or Dispatch's global queues (on Linux both are as wide as the machine
/// has cores): a loopback server in the same process runs its route handlers there, and would
/// stop answering the child if tests running in parallel blocked them all.
///
/// ```swift
/// let result = try await ExecutableRunner.run("rebound", ["simulate", "--seed", "7"])
/// #expect(result.status == 0)
/// ```
enum ExecutableRunner {
    /// What a run left behind.
    struct Result: Sendable {
        /// The exit status, or the signal number when the child was killed by one.
        var status: Int32
        /// Whether the child ended because it outlived its time limit.
        var timedOut: Bool
        var stdout: Data
        var stderr: Data

        var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
        var stderrText: String { String(decoding: stderr, as: UTF8.self) }
    }

    enum RunnerError: Error, CustomStringConvertible {
        case productNotFound(String, searched: [String])

        var description: String {
            switch self {
            case .productNotFound(let name, let searched):
                "No executable '\(name)' in \(searched.joined(separator: ", ")); build the package's products first."
            }
        }
    }

    /// The directories where the products may be, most likely first.
    static var candidateDirectories: [URL] {
        var directories: [URL] = []
        if let bundle = Bundle.allBundles.first(where: { $0.bundlePath.hasSuffix(".xctest") }) {
            directories.append(bundle.bundleURL.deletingLastPathComponent())
        }
        // On Linux the test binary is itself the `.xctest` file, in the products directory.
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        directories.append(binary.deletingLastPathComponent())
        directories.append(URL(fileURLWithPath: ".build/debug", isDirectory: true))
        return directories
    }

    /// The URL of the product `name`.
    static func executable(_ name: String) throws -> URL {
        let candidates = candidateDirectories.map { $0.appendingPathComponent(name) }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw RunnerError.productNotFound(name, searched: candidateDirectories.map(\.path))
        }
        return found
    }

    /// Runs the product `name` with `arguments` and returns what it printed and how it ended.
    ///
    /// The child inherits the environment without proxy settings (libcurl would send loopback
    /// requests to a proxy) plus `environment`, and reads `input` or, without it, an empty stdin.
    ///
    /// - Parameters:
    ///   - name: The product, such as `"rebound"`.
    ///   - arguments: Its arguments.
    ///   - environment: Variables to set in the child, over the inherited ones.
    ///   - input: What the child reads on stdin.
    ///   - timeLimit: How long the child may run before it is killed.
    static func run(
        _ name: String,
        _ arguments: [String],
        environment: [String: String] = [:],
        input: Data? = nil,
        timeLimit: Duration = .seconds(60)
    ) async throws -> Result {
        try await run(
            executableURL: try executable(name), arguments, environment: environment, input: input,
            timeLimit: timeLimit)
    }

    /// Runs the executable at `executableURL` (a shell, to test what a shell hands the products)
    /// as ``run(_:_:environment:input:timeLimit:)`` runs a product.
    ///
    /// - Parameters:
    ///   - executableURL: The executable, such as `/bin/bash`.
    ///   - arguments: Its arguments.
    ///   - environment: Variables to set in the child, over the inherited ones.
    ///   - input: What the child reads on stdin.
    ///   - timeLimit: How long the child may run before it is killed.
    static func run(
        executableURL: URL,
        _ arguments: [String],
        environment: [String: String] = [:],
        input: Data? = nil,
        timeLimit: Duration = .seconds(60)
    ) async throws -> Result {
        var childEnvironment = ProcessInfo.processInfo.environment
            .filter { !$0.key.lowercased().hasSuffix("_proxy") }
        childEnvironment.merge(environment) { _, given in given }
        let child = try ChildProcess(
            executable: executableURL.path, arguments: arguments, environment: childEnvironment,
            standardInput: .pipe, standardOutput: .pipe, standardError: .pipe)
        let writing = child.standardInput!
        Thread.detachNewThread {
            if let input { try? writing.write(contentsOf: input) }
            try? writing.close()
        }

        async let out = onOwnThread { child.standardOutput!.readDataToEndOfFile() }
        async let err = onOwnThread { child.standardError!.readDataToEndOfFile() }
        let (termination, timedOut) = await onOwnThread { () -> (ChildProcess.Termination, Bool) in
            if let termination = child.waitUntilExit(within: timeLimit) { return (termination, false) }
            child.signal(SIGTERM)
            if let termination = child.waitUntilExit(within: .seconds(2)) { return (termination, true) }
            child.signal(SIGKILL)
            return (child.waitUntilExit(), true)
        }
        return Result(
            status: termination.status, timedOut: timedOut, stdout: await out, stderr: await err)
    }
}
