#if OTel
    import Foundation
    import ReboundMockBackend
    import TestSupport

    /// A program a test starts and stops: the OTLP receiver or Prometheus. `make test` installs both
    /// (`scripts/setup.sh --tests`); without them the tests fail, saying what to run.
    ///
    /// Nothing changes after `init`, and a `ChildProcess` may be stopped from any thread.
    final class ExternalServer: Sendable {
        struct SetupError: Error, CustomStringConvertible { var description: String }

        /// The repository's root, where `scripts/` and `.build-venv/` are.
        static let repository = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

        /// A directory of its own, removed by ``stop()``.
        let directory: URL
        let port: Int
        private let process: ChildProcess

        /// Starts `executable` with the arguments `arguments(directory, port)` on a free loopback port
        /// (a port found free may be taken before the program binds it: then it is started again on
        /// another, up to 5 times), and waits until `isReady(port)` says it serves.
        static func start(
            _ name: String,
            executable: String,
            arguments: @escaping @Sendable (URL, Int) -> [String],
            isReady: @escaping @Sendable (Int) async -> Bool
        ) async throws -> ExternalServer {
            guard FileManager.default.isExecutableFile(atPath: executable) else {
                throw SetupError(description: "\(executable) is missing; run scripts/setup.sh --tests")
            }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "rebound-\(name)-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for _ in 1...5 {
                let port = try await unusedPort()
                let log = try FileHandle(forWritingTo: createdFile(directory.appendingPathComponent("\(name).log")))
                let process = try ChildProcess(
                    executable: executable, arguments: arguments(directory, port), standardError: .file(log))
                try log.close()
                // Python or Prometheus may take seconds to start on a busy machine; a minute is a hang.
                let deadline = ContinuousClock.now + .seconds(60)
                while process.isRunning && ContinuousClock.now < deadline {
                    if await isReady(port) {
                        return ExternalServer(directory: directory, port: port, process: process)
                    }
                    try await Task.sleep(for: .milliseconds(100))
                }
                process.signal(SIGTERM)
                process.waitUntilExit()
            }
            throw SetupError(description: "\(name) did not start; see \(directory.path)/\(name).log")
        }

        private init(directory: URL, port: Int, process: ChildProcess) {
            self.directory = directory
            self.port = port
            self.process = process
        }

        func stop() {
            process.signal(SIGTERM)
            process.waitUntilExit()
            try? FileManager.default.removeItem(at: directory)
        }

        /// A loopback port nothing listens on: a server's, once it shut down.
        static func unusedPort() async throws -> Int {
            let probe = try await LoopbackServer.start(routes: [])
            try await probe.shutdown()
            return probe.port
        }

        private static func createdFile(_ url: URL) -> URL {
            _ = FileManager.default.createFile(atPath: url.path, contents: nil)
            return url
        }
    }
#endif
