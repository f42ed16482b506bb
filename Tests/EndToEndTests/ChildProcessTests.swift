import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The test runner's own way of starting processes (every end-to-end test goes through it).
@Suite struct ChildProcessTests {
    @Test func anExitStatusAndAKillingSignalAreToldApart() async throws {
        let exiting = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "exit 3"])
        #expect(await onOwnThread { exiting.waitUntilExit() } == .exit(3))

        let sleeping = try ChildProcess(executable: "/bin/sleep", arguments: ["60"])
        #expect(sleeping.isRunning)
        #expect(sleeping.waitUntilExit(within: .milliseconds(20)) == nil)
        sleeping.signal(SIGKILL)
        #expect(await onOwnThread { sleeping.waitUntilExit() } == .signal(SIGKILL))
        #expect(!sleeping.isRunning)
    }

    @Test func theChildGetsItsEnvironmentAndInputAndTheTestItsOutput() async throws {
        let child = try ChildProcess(
            executable: "/bin/sh", arguments: ["-c", "echo \"$GREETING\"; cat; echo oops >&2"],
            environment: ["GREETING": "hello"], standardInput: .pipe, standardOutput: .pipe, standardError: .pipe)
        try child.standardInput!.write(contentsOf: Data("from stdin\n".utf8))
        try child.standardInput!.close()

        let output = await onOwnThread { child.standardOutput!.readDataToEndOfFile() }
        let errors = await onOwnThread { child.standardError!.readDataToEndOfFile() }
        #expect(String(decoding: output, as: UTF8.self) == "hello\nfrom stdin\n")
        #expect(String(decoding: errors, as: UTF8.self) == "oops\n")
        #expect(await onOwnThread { child.waitUntilExit() } == .exit(0))
    }

    /// A descriptor of the test process that is not close-on-exec (libcurl's and the loopback
    /// servers' sockets) stays out of the child, which would otherwise hold connections open.
    @Test func theChildInheritsNoDescriptorButItsStandardStreams() async throws {
        let inheritable = open("/dev/null", O_RDONLY)
        try #require(inheritable > 2)
        defer { close(inheritable) }

        let child = try ChildProcess(
            executable: "/bin/sh", arguments: ["-c", "ls /proc/$$/fd"], standardOutput: .pipe)
        let output = await onOwnThread { child.standardOutput!.readDataToEndOfFile() }
        let descriptors = String(decoding: output, as: UTF8.self).split(separator: "\n")
        #expect(!descriptors.contains("\(inheritable)"[...]), "\(descriptors)")
        #expect(Set(descriptors).isSuperset(of: ["0", "1", "2"]))
        #expect(await onOwnThread { child.waitUntilExit() } == .exit(0))
    }

    @Test func aMissingExecutableIsAnErrorNotAChild() {
        #expect(throws: ChildProcess.SpawnError.self) {
            try ChildProcess(executable: "/nonexistent/rebound-test", arguments: [])
        }
    }
}
