import Foundation
import Glibc
import TestSupport

/// An nginx on loopback that speaks TLS with HTTP/2, with a certificate made for the test run.
///
/// The mock backend speaks plain HTTP/1.1; this covers what only TLS shows: HTTP/2 negotiated by
/// ALPN, certificate checks, and redirects from https down to http. `scripts/setup.sh` installs
/// nginx and openssl; without them the tests that need this fixture are skipped, visibly.
///
/// Nothing changes after `init`, and a `ChildProcess` may be stopped from any thread.
final class TLSServerFixture: Sendable {
    struct SetupError: Error, CustomStringConvertible { var description: String }

    static var isAvailable: Bool { executable("nginx") != nil && executable("openssl") != nil }

    let directory: URL
    let tlsPort: Int
    let plainPort: Int
    /// HTTP/2 over TLS that ends every connection with a GOAWAY after 10 requests.
    let goawayPort: Int
    /// HTTP/1.1 over TLS 1.2 that closes every connection after one request and logs, per
    /// request, whether its TLS session was resumed. (With TLS 1.3, libcurl 7.88 got one session
    /// resumed on several connections that started at once only in part, from C too; the cause is
    /// not established, see docs/transport.md.)
    let sessionPort: Int
    /// The certificate the server presents, to trust in the transport.
    var certificateFile: String { directory.appendingPathComponent("cert.pem").path }
    private let process: ChildProcess

    /// Makes a certificate, starts nginx and waits until it listens, all on a thread of its own
    /// (openssl and nginx can take seconds on a busy machine).
    static func start() async throws -> TLSServerFixture {
        try await onOwnThread { try TLSServerFixture() }
    }

    private init() throws {
        guard let nginx = Self.executable("nginx"), let openssl = Self.executable("openssl") else {
            throw SetupError(description: "nginx and openssl are needed; run scripts/setup.sh")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("rebound-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("logs"), withIntermediateDirectories: true)
        try Self.run(
            openssl,
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
                "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
                "-keyout", directory.appendingPathComponent("key.pem").path,
                "-out", directory.appendingPathComponent("cert.pem").path,
            ])
        // A port found free may be taken by another test's server before nginx binds it; nginx
        // then retries for 2.5 s and exits, while that server answers in its place. So nginx is
        // trusted only once it wrote its pid file, which it does after binding and listening on
        // every port (so nothing more needs checking), and started again on other ports if it
        // exited first.
        var attempt = 1
        while true {
            let ports = try (0..<4).map { _ in try BlackholeListener.unusedPort() }
            let process = try Self.launch(nginx, directory: directory, ports: ports)
            if Self.waitUntilBound(process, pidFile: directory.appendingPathComponent("nginx.pid")) {
                (tlsPort, plainPort, goawayPort, sessionPort) = (ports[0], ports[1], ports[2], ports[3])
                self.process = process
                break
            }
            process.signal(SIGTERM)
            process.waitUntilExit()
            guard attempt < 5 else {
                throw SetupError(description: "nginx exited before listening, 5 times; see \(directory.path)/logs")
            }
            attempt += 1
        }
    }

    /// Starts nginx serving the fixture's servers on `ports` (TLS, plain, GOAWAY, sessions).
    private static func launch(_ nginx: String, directory: URL, ports: [Int]) throws -> ChildProcess {
        let (tlsPort, plainPort, goawayPort, sessionPort) = (ports[0], ports[1], ports[2], ports[3])
        let configuration = """
            daemon off;
            worker_processes 1;
            pid \(directory.path)/nginx.pid;
            error_log \(directory.path)/logs/error.log;
            events { worker_connections 64; }
            http {
                access_log off;
                log_format resumed '$ssl_session_reused';
                client_body_temp_path \(directory.path);
                proxy_temp_path \(directory.path);
                fastcgi_temp_path \(directory.path);
                uwsgi_temp_path \(directory.path);
                scgi_temp_path \(directory.path);
                server {
                    listen 127.0.0.1:\(tlsPort) ssl http2;
                    ssl_certificate \(directory.path)/cert.pem;
                    ssl_certificate_key \(directory.path)/key.pem;
                    location = /hello { return 200 "hello over TLS"; }
                    location = /to-plain { return 302 http://127.0.0.1:\(plainPort)/hello; }
                    location = /to-tls { return 302 https://127.0.0.1:\(tlsPort)/hello; }
                    location = /cookie { return 200 "[$http_cookie]"; }
                    location = /to-encoded-host { return 302 "https://ev%69l.test/hello"; }
                    location = /large-head {
            \(Self.largeHeadFields)
                        return 200 "a large head";
                    }
                }
                server {
                    listen 127.0.0.1:\(plainPort);
                    location = /hello { return 200 "hello in clear text"; }
                    location = /up-and-back { return 302 https://127.0.0.1:\(tlsPort)/to-plain; }
                    location = /up { return 302 https://127.0.0.1:\(tlsPort)/hello; }
                }
                server {
                    listen 127.0.0.1:\(goawayPort) ssl http2;
                    ssl_certificate \(directory.path)/cert.pem;
                    ssl_certificate_key \(directory.path)/key.pem;
                    keepalive_requests 10;
                    location = /hello { return 200 "hello before goodbye"; }
                    location = /to-other-port { return 302 https://127.0.0.1:\(tlsPort)/cookie; }
                }
                server {
                    listen 127.0.0.1:\(sessionPort) ssl;
                    ssl_certificate \(directory.path)/cert.pem;
                    ssl_certificate_key \(directory.path)/key.pem;
                    keepalive_timeout 0;
                    ssl_protocols TLSv1.2;
                    ssl_session_cache shared:sessions:1m;
                    access_log \(directory.path)/logs/sessions.log resumed;
                    location = /hello { return 200 "one request per connection"; }
                }
            }
            """
        let configurationFile = directory.appendingPathComponent("nginx.conf")
        try configuration.write(to: configurationFile, atomically: true, encoding: .utf8)
        return try ChildProcess(executable: nginx, arguments: ["-c", configurationFile.path, "-p", directory.path])
    }

    /// Waits, at most 30 seconds, until nginx has written `pidFile` (true) or exited (false).
    private static func waitUntilBound(_ process: ChildProcess, pidFile: URL) -> Bool {
        for _ in 0..<3000 {
            if FileManager.default.fileExists(atPath: pidFile.path) { return process.isRunning }
            if !process.isRunning { return false }
            usleep(10_000)
        }
        return false
    }

    /// How many fields `/large-head` answers with, each of ``largeHeadFieldSize`` bytes of value:
    /// about 160 KiB in all, past the 128 KiB libcurl 7.88 keeps of an HTTP/2 head and within the
    /// 300 KiB it keeps of an HTTP/1.1 one.
    static let largeHeadFieldCount = 40
    static let largeHeadFieldSize = 4000

    private static var largeHeadFields: String {
        let value = String(repeating: "v", count: largeHeadFieldSize)
        return (0..<largeHeadFieldCount).map { "add_header X-Large-\($0) \"\(value)\" always;" }
            .joined(separator: "\n")
    }

    /// For each request to `sessionPort` so far, in order: `r` when its connection resumed an
    /// earlier TLS session, `.` when it made a full handshake. Waits, at most 30 seconds, until
    /// nginx has logged `count` requests.
    func sessionLog(count: Int) async throws -> [String] {
        let file = directory.appendingPathComponent("logs/sessions.log")
        var lines: [String] = []
        for _ in 0..<3000 {
            let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
            lines = text.split(separator: "\n").map(String.init)
            if lines.count >= count { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        return lines
    }

    /// Stops nginx and removes its directory. This waits, but only the few milliseconds nginx
    /// takes to exit; waiting elsewhere could let the test process end first and leave the
    /// directory behind.
    func stop() {
        process.signal(SIGTERM)
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

    private static func executable(_ name: String) -> String? {
        for directory in ["/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin", "/sbin", "/bin"] {
            let path = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    private static func run(_ executable: String, _ arguments: [String]) throws {
        let termination = try ChildProcess(executable: executable, arguments: arguments).waitUntilExit()
        guard termination == .exit(0) else {
            throw SetupError(description: "\(executable) \(arguments.first ?? "") failed with \(termination)")
        }
    }
}
