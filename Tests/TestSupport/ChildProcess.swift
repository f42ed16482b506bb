public import Foundation
import Glibc

/// A child process started with `posix_spawn`, for the tests that run the package's executables
/// and the servers they test against (nginx, Prometheus, the OTLP receiver).
///
/// The tests do not use Foundation's `Process`: on Linux its `run()` lists `/proc/self/fd` to find
/// the descriptors to close in the child, and copies each directory entry's whole 256-byte name
/// field past the end of the entry (swift-corelibs-foundation#5472, Swift 6.3.1). When an entry
/// sits at the end of the directory buffer and the next page is unmapped, the test process dies of
/// SIGSEGV; a test process with thousands of sockets open did, about one run in three. Here the
/// child closes every descriptor above 2 with `posix_spawn_file_actions_addclosefrom_np`, starts
/// with the default signal handlers and an empty signal mask, and inherits only what is asked.
///
/// ```swift
/// let child = try ChildProcess(executable: "/bin/echo", arguments: ["hello"], standardOutput: .pipe)
/// let output = child.standardOutput!.readDataToEndOfFile()
/// let termination = child.waitUntilExit()
/// ```
public final class ChildProcess: @unchecked Sendable {
    /// Where one of the child's standard streams goes.
    public enum Stream {
        /// `/dev/null`.
        case null
        /// A pipe whose other end is this process's (``standardInput``, ``standardOutput`` or
        /// ``standardError``).
        case pipe
        /// An open file; the child gets a copy of the descriptor.
        case file(FileHandle)
    }

    /// How the child ended.
    public enum Termination: Equatable, Sendable {
        /// It exited with this status.
        case exit(Int32)
        /// A signal killed it.
        case signal(Int32)

        /// The exit status, or the number of the signal that killed it.
        public var status: Int32 {
            switch self {
            case .exit(let status), .signal(let status): status
            }
        }
    }

    public struct SpawnError: Error, CustomStringConvertible {
        public var description: String
    }

    /// The child's process identifier.
    public let processIdentifier: pid_t
    /// This process's end of the child's stdin, when it is a ``Stream/pipe``.
    public let standardInput: FileHandle?
    /// This process's end of the child's stdout, when it is a ``Stream/pipe``.
    public let standardOutput: FileHandle?
    /// This process's end of the child's stderr, when it is a ``Stream/pipe``.
    public let standardError: FileHandle?

    private let lock = NSLock()
    private var termination: Termination?

    /// Starts `executable` with `arguments`.
    ///
    /// - Parameters:
    ///   - executable: The executable's path.
    ///   - arguments: Its arguments, without the executable's name.
    ///   - environment: Its whole environment; `nil` inherits this process's.
    ///   - standardInput: Where its stdin comes from.
    ///   - standardOutput: Where its stdout goes.
    ///   - standardError: Where its stderr goes.
    /// - Throws: ``SpawnError`` when a pipe or the spawn fails (no such executable, say).
    public init(
        executable: String,
        arguments: [String],
        environment: [String: String]? = nil,
        standardInput: Stream = .null,
        standardOutput: Stream = .null,
        standardError: Stream = .null
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // The child's ends of the pipes, closed here once the child has its copies.
        var childEnds: [Int32] = []
        defer { for descriptor in childEnds { close(descriptor) } }

        func connect(_ stream: Stream, to target: Int32, childReads: Bool) throws -> FileHandle? {
            switch stream {
            case .null:
                let mode = childReads ? O_RDONLY : O_WRONLY
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", mode, 0)
                return nil
            case .file(let handle):
                posix_spawn_file_actions_adddup2(&actions, handle.fileDescriptor, target)
                return nil
            case .pipe:
                var ends: [Int32] = [0, 0]
                guard pipe(&ends) == 0 else {
                    throw SpawnError(description: "pipe failed: \(String(cString: strerror(errno)))")
                }
                let (childEnd, ownEnd) = childReads ? (ends[0], ends[1]) : (ends[1], ends[0])
                childEnds.append(childEnd)
                // No other child keeps this process's end (and so the pipe) open.
                _ = fcntl(ownEnd, F_SETFD, FD_CLOEXEC)
                posix_spawn_file_actions_adddup2(&actions, childEnd, target)
                return FileHandle(fileDescriptor: ownEnd, closeOnDealloc: true)
            }
        }
        self.standardInput = try connect(standardInput, to: STDIN_FILENO, childReads: true)
        self.standardOutput = try connect(standardOutput, to: STDOUT_FILENO, childReads: false)
        self.standardError = try connect(standardError, to: STDERR_FILENO, childReads: false)
        _ = Self.addCloseFrom?(&actions, 3)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var everySignal = sigset_t()
        sigfillset(&everySignal)
        posix_spawnattr_setsigdefault(&attributes, &everySignal)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        let environmentLines = environment.map { $0.map { "\($0.key)=\($0.value)" } }
        let envp = environmentLines.map { $0.map { strdup($0) } + [nil] }
        defer { for line in envp ?? [] { free(line) } }

        var pid = pid_t()
        let status: Int32 =
            if let envp {
                posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
            } else {
                posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
            }
        guard status == 0 else {
            throw SpawnError(description: "cannot start \(executable): \(String(cString: strerror(status)))")
        }
        processIdentifier = pid
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's Glibc
    /// module leaves out; without it the child inherits this process's descriptors that are not
    /// close-on-exec.
    private static let addCloseFrom: AddCloseFrom? = dlsym(
        UnsafeMutableRawPointer(bitPattern: 0),  // RTLD_DEFAULT
        "posix_spawn_file_actions_addclosefrom_np"
    ).map { unsafeBitCast($0, to: AddCloseFrom.self) }
    private typealias AddCloseFrom =
        @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    deinit {
        // A child nobody waited for is reaped, not left a zombie.
        if !isRunning { return }
        kill(processIdentifier, SIGKILL)
        _ = waitUntilExit()
    }

    /// Whether the child has not exited yet.
    public var isRunning: Bool { reap(blocking: false) == nil }

    /// Sends the child `signal`, SIGTERM unless told, unless it has already exited.
    public func signal(_ signal: Int32 = SIGTERM) {
        lock.withLock {
            // Once reaped, its identifier may be another process's.
            if termination == nil { kill(processIdentifier, signal) }
        }
    }

    /// Waits until the child has exited and says how. Blocks the thread: call it from
    /// `onOwnThread`.
    @discardableResult
    public func waitUntilExit() -> Termination {
        // Waits without reaping, so that another thread's `isRunning` never finds the child gone
        // before its termination is recorded.
        var info = siginfo_t()
        while waitid(P_PID, id_t(processIdentifier), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
        guard let termination = reap(blocking: false) ?? reap(blocking: true) else {
            preconditionFailure("child \(processIdentifier) was reaped by someone else")
        }
        return termination
    }

    /// Waits at most `timeLimit` for the child to exit and says how it did, or `nil` if it is still
    /// running. Blocks the thread: call it from `onOwnThread`.
    public func waitUntilExit(within timeLimit: Duration) -> Termination? {
        let deadline = ContinuousClock.now + timeLimit
        var pause = Duration.milliseconds(1)
        while true {
            if let termination = reap(blocking: false) { return termination }
            let now = ContinuousClock.now
            if now >= deadline { return nil }
            // Polls: Swift imports no pidfd_open to wait on. Up to 10 ms late, which no test minds.
            Thread.sleep(forTimeInterval: min(pause, deadline - now) / .seconds(1))
            pause = min(pause * 2, .milliseconds(10))
        }
    }

    /// How the child ended, once it has; reaps it the first time.
    private func reap(blocking: Bool) -> Termination? {
        lock.withLock {
            if let termination { return termination }
            var status: Int32 = 0
            var result: pid_t
            repeat {
                result = waitpid(processIdentifier, &status, blocking ? 0 : WNOHANG)
            } while result == -1 && errno == EINTR
            guard result == processIdentifier else { return nil }
            // WIFEXITED and friends are macros Swift does not import.
            let signal = status & 0x7f
            termination = signal == 0 ? .exit((status >> 8) & 0xff) : .signal(signal)
            return termination
        }
    }
}
