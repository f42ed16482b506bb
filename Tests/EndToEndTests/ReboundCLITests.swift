import Foundation
import ReboundMockBackend
import TestSupport
import Testing

/// The built `rebound` binary, run as a user runs it, against loopback servers in this process.
@Suite(.timeLimit(.minutes(3)))
struct ReboundCLITests {
    // MARK: - fetch

    @Test func fetchWritesTheBodyToStdoutAndOneLinePerAttemptToStderr() async throws {
        try await withServer([Self.replies("/flaky", [.respond(status: 503), .respond(status: 503), .text("hello")])]) {
            server in
            let result = try await Self.rebound(["fetch", server.url("/flaky")] + Self.quickRetries)

            #expect(result.status == 0)
            #expect(result.stdoutText == "hello")
            let log = result.stderrText.split(separator: "\n").map(String.init)
            let attempts = log.filter { $0.range(of: #"^\s*\d+\s+(\d{3}|-)\s"#, options: .regularExpression) != nil }
            #expect(attempts.count == 3, "stderr:\n\(result.stderrText)")
            #expect(attempts.prefix(2).allSatisfy { $0.contains("503") && $0.contains("HT503") })
            #expect(attempts.prefix(2).allSatisfy { $0.contains("BackendTemporaryErrorHandler") })
            #expect(attempts.last?.contains("200") == true)
            #expect(log.first == "GET \(server.url("/flaky"))")
            #expect(log.last?.hasPrefix("200 OK after 3 attempts") == true)
            #expect(server.requests(to: "/flaky") == 3)
        }
    }

    /// The transport tells libcurl there is no proxy only when the environment names none; with
    /// one, requests go through it. The host cannot be resolved, so only the proxy can answer.
    @Test(arguments: ["http_proxy", "all_proxy", "ALL_PROXY"])
    func fetchGoesThroughTheProxyTheEnvironmentNames(_ variable: String) async throws {
        try await withServer([Self.replies("/via-proxy", [.text("proxied")])]) { proxy in
            let result = try await Self.rebound(
                ["fetch", "http://rebound-proxy-check.invalid/via-proxy"],
                environment: [variable: proxy.url("")]
            )
            #expect(result.status == 0, "stderr:\n\(result.stderrText)")
            #expect(result.stdoutText == "proxied")
            #expect(proxy.requests(to: "/via-proxy") == 1)
        }
    }

    /// A proxy that refuses the tunnel to an https host (this one answers CONNECT with 404, having
    /// no route for it) failed as a reset connection (NE7), which the fetch retried for the same
    /// refusal: it is the proxy's failure (NE17), which is not retried.
    @Test func aProxyThatRefusesTheTunnelIsAProxyFailureAndNotRetried() async throws {
        try await withServer([]) { proxy in
            let result = try await Self.rebound(
                ["fetch", "--json", "https://rebound-proxy-check.invalid/x"] + Self.quickRetries,
                environment: ["https_proxy": proxy.url("")]
            )
            #expect(result.status == 3, "stdout:\n\(result.stdoutText)")
            let report = try Self.object(result.stdout)
            let attempts = try #require(report["attempts"] as? [[String: Any]])
            #expect(attempts.map { $0["error"] as? String } == ["NE17"])
        }
    }

    @Test func fetchJSONIsOneObjectWithExactlyTheDocumentedKeysTypesAndNulls() async throws {
        try await withServer([Self.replies("/flaky", [.respond(status: 503), .respond(status: 503), .text("hello")])]) {
            server in
            let result = try await Self.rebound(["fetch", "--json", server.url("/flaky")] + Self.quickRetries)

            #expect(result.status == 0)
            #expect(result.stderr.isEmpty)
            #expect(result.stdoutText.filter { $0 == "\n" }.count == 1, "one line: \(result.stdoutText)")
            let report = try Self.object(result.stdout)
            #expect(Set(report.keys) == Self.reportKeys)
            #expect(report["url"] as? String == server.url("/flaky"))
            #expect(Self.isBool(report["ok"], true))
            #expect(Self.int(report["status"]) == 200)
            #expect(report["error"] is NSNull)
            #expect(Self.int(report["bodyBytes"]) == 5)
            #expect(Self.double(report["elapsedSeconds"]).map { $0 > 0 } == true)

            let attempts = try #require(report["attempts"] as? [[String: Any]])
            #expect(attempts.count == 3)
            for (index, attempt) in attempts.enumerated() {
                #expect(Set(attempt.keys) == Self.attemptKeys)
                #expect(Self.int(attempt["number"]) == index + 1)
                #expect(Self.double(attempt["delayBeforeSeconds"]) != nil)
            }
            #expect(Self.int(attempts[0]["status"]) == 503)
            #expect(attempts[0]["error"] as? String == "HT503")
            #expect(Self.double(attempts[0]["delayBeforeSeconds"]) == 0)
            #expect(Self.int(attempts[2]["status"]) == 200)
            #expect(attempts[2]["error"] is NSNull)
            #expect(Self.double(attempts[1]["delayBeforeSeconds"]).map { (0...0.01).contains($0) } == true)
        }
    }

    @Test func fetchJSONOfAFailureCarriesTheErrorAndNoBody() async throws {
        try await withServer([LoopbackRoute("/gone") { _ in .text("gone for good", status: 404) }]) { server in
            let result = try await Self.rebound(["fetch", "--json", server.url("/gone")])

            #expect(result.status == 1)
            let report = try Self.object(result.stdout)
            #expect(Set(report.keys) == Self.reportKeys)
            #expect(Self.isBool(report["ok"], false))
            #expect(Self.int(report["status"]) == 404)
            #expect(Self.int(report["bodyBytes"]) == 0)
            let error = try #require(report["error"] as? [String: Any])
            #expect(Set(error.keys) == ["short", "full", "message"])
            #expect(error["short"] as? String == "AP1-HT404")
            #expect(error["full"] as? String == "APIError.requestFailed - HTTPError.no404NotFound")
            #expect((error["message"] as? String)?.isEmpty == false)
            let attempts = try #require(report["attempts"] as? [[String: Any]])
            #expect(attempts.count == 1)
            #expect(Set(attempts[0].keys) == Self.attemptKeys)
        }
    }

    @Test func theSameSeedGivesTheSameWaitsAndTheWaitsSimulateDraws() async throws {
        let flaky: [LoopbackReply] = [.respond(status: 503), .respond(status: 503), .text("ok")]
        let routes = ["/a", "/b", "/c"].map { Self.replies($0, flaky) }
        try await withServer(routes) { server in
            func waits(_ path: String, seed: String) async throws -> [Double] {
                let result = try await Self.rebound(
                    ["fetch", "--json", "--seed", seed, server.url(path)] + Self.quickRetries)
                #expect(result.status == 0, "\(result.stderrText)")
                let attempts = try #require(try Self.object(result.stdout)["attempts"] as? [[String: Any]])
                return attempts.compactMap { Self.double($0["delayBeforeSeconds"]) }
            }
            let first = try await waits("/a", seed: "42")
            let second = try await waits("/b", seed: "42")
            let other = try await waits("/c", seed: "43")
            #expect(first.count == 3)
            #expect(first == second)
            #expect(first != other)

            let simulated = try await Self.rebound(
                ["simulate", "--json", "--seed", "42", "--samples", "1"] + Self.quickRetries)
            let samples = try #require(try Self.object(simulated.stdout)["samples"] as? [[Double]])
            #expect(Array(first.dropFirst()) == Array(samples[0].prefix(2)))
        }
    }

    @Test func aNon2xxAnswerExitsWith1AndExplainsTheFailureOnStderr() async throws {
        try await withServer([LoopbackRoute("/gone") { _ in .text("gone for good", status: 404) }]) { server in
            let result = try await Self.rebound(["fetch", server.url("/gone")])

            #expect(result.status == 1)
            #expect(result.stdout.isEmpty)
            #expect(result.stderrText.contains("failed after 1 attempt"))
            #expect(result.stderrText.contains("Error code: AP1-HT404"))
            #expect(result.stderrText.contains("Technical details: APIError.requestFailed - HTTPError.no404NotFound"))
            #expect(server.requests(to: "/gone") == 1)
        }
    }

    @Test func aServerThatStaysUnavailableIsRetriedUntilTheAttemptsAreSpent() async throws {
        try await withServer([LoopbackRoute("/down") { _ in .respond(status: 503) }]) { server in
            let result = try await Self.rebound(["fetch", "--json", server.url("/down")] + Self.quickRetries)

            #expect(result.status == 1)
            let report = try Self.object(result.stdout)
            #expect((report["error"] as? [String: Any])?["short"] as? String == "AP1-RE1-HT503")
            #expect((report["attempts"] as? [[String: Any]])?.count == 4)
            #expect(server.requests(to: "/down") == 4)
        }
    }

    @Test func theRetryBudgetStopsRetriesAfterFourInARow() async throws {
        try await withServer([LoopbackRoute("/down") { _ in .respond(status: 503) }]) { server in
            let result = try await Self.rebound(
                ["fetch", "--json", "--max-attempts", "10", server.url("/down")] + Self.quickRetries)

            #expect(result.status == 1)
            let report = try Self.object(result.stdout)
            #expect((report["error"] as? [String: Any])?["short"] as? String == "AP1-RE4-HT503")
            #expect((report["attempts"] as? [[String: Any]])?.count == 5)
        }
    }

    @Test func aRefusedConnectionExitsWith3() async throws {
        let reservation = try boundLoopbackSocket()
        defer { close(reservation) }
        let url = "http://127.0.0.1:\(try boundPort(of: reservation))/nothing-listens"

        let result = try await Self.rebound(["fetch", "--json", "--max-attempts", "2", url] + Self.quickRetries)

        #expect(result.status == 3)
        let report = try Self.object(result.stdout)
        #expect(report["status"] is NSNull)
        #expect((report["error"] as? [String: Any])?["short"] as? String == "AP1-RE1-NE6")
        let attempts = try #require(report["attempts"] as? [[String: Any]])
        #expect(attempts.count == 2)
        #expect(attempts.allSatisfy { $0["status"] is NSNull && $0["error"] as? String == "NE6" })
    }

    @Test func aSlowServerTimesOutEveryAttemptAndExitsWith3() async throws {
        try await withServer([LoopbackRoute("/slow") { _ in .delayed(.seconds(20), .text("late")) }]) { server in
            let result = try await Self.rebound(
                ["fetch", "--json", "--timeout", "0.3", "--max-attempts", "2", server.url("/slow")] + Self.quickRetries)

            #expect(result.status == 3)
            let report = try Self.object(result.stdout)
            // Well short of the 20 s the server takes.
            #expect(Self.double(report["elapsedSeconds"]).map { $0 < 15 } == true)
            let attempts = try #require(report["attempts"] as? [[String: Any]])
            #expect(attempts.map { $0["error"] as? String } == ["NE2", "NE2"])
        }
    }

    @Test func aRetryAfterIsWaitedExactly() async throws {
        let route = Self.replies("/later", [.respond(status: 503, headers: [("Retry-After", "1")]), .text("now")])
        try await withServer([route]) { server in
            let result = try await Self.rebound(["fetch", "--json", server.url("/later")])

            #expect(result.status == 0)
            let attempts = try #require(try Self.object(result.stdout)["attempts"] as? [[String: Any]])
            #expect(attempts.map { Self.double($0["delayBeforeSeconds"]) } == [0, 1])
        }
    }

    @Test func aRetryAfterBeyondTheDeadlineFailsAtOnce() async throws {
        // Within the 60 s that Retry-After is honoured up to, beyond the deadline: no wait at all.
        let route = LoopbackRoute("/much-later") { _ in .respond(status: 503, headers: [("Retry-After", "50")]) }
        try await withServer([route]) { server in
            let result = try await Self.rebound(["fetch", "--json", "--deadline", "20", server.url("/much-later")])

            #expect(result.status == 1)
            let report = try Self.object(result.stdout)
            #expect((report["error"] as? [String: Any])?["short"] as? String == "AP1-RE3-HT503")
            #expect(Self.double(report["elapsedSeconds"]).map { $0 < 20 } == true)
            #expect(server.requests(to: "/much-later") == 1)
        }
    }

    @Test func aPOSTIsRetriedOnlyWithAnIdempotencyKey() async throws {
        let keys = Guarded<[String: [String]]>([:])
        let routes = ["/unkeyed", "/keyed"].map { path in
            let served = Guarded(0)
            return LoopbackRoute("POST", path) { request in
                keys.withLock { $0[path, default: []].append(request.header("Idempotency-Key") ?? "none") }
                let first = served.withLock { count -> Bool in
                    count += 1
                    return count == 1
                }
                return first ? .respond(status: 503) : .text("created")
            }
        }
        try await withServer(routes) { server in
            let unkeyed = try await Self.rebound(["fetch", "-d", "{}", server.url("/unkeyed")] + Self.quickRetries)
            #expect(unkeyed.status == 1)
            #expect(unkeyed.stderrText.contains("AP1-HT503"))
            #expect(keys.withLock { $0["/unkeyed"] } == ["none"])

            let keyed = try await Self.rebound(
                ["fetch", "-d", "{}", "--idempotency-key", "auto", server.url("/keyed")] + Self.quickRetries)
            #expect(keyed.status == 0, "\(keyed.stderrText)")
            #expect(keyed.stdoutText == "created")
            let generated = keys.withLock { $0["/keyed"] ?? [] }
            #expect(generated.count == 2)
            #expect(generated.first != "none" && generated.first == generated.last)
        }
    }

    @Test func theMethodHeadersAndABodyFromAFileOrStdinAreSentAsGiven() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("rebound-body-\(UUID()).json")
        try Data(#"{"title":"Write"}"#.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        try await withServer(LoopbackRoute.standardTestRoutes) { server in
            let result = try await Self.rebound([
                "fetch", "-X", "PUT", "-H", "Content-Type: application/json", "-H", "X-Trace:  abc ",
                "-d", "@\(file.path)", server.url("/echo?x=1"),
            ])

            #expect(result.status == 0, "\(result.stderrText)")
            let echo = try Self.object(result.stdout)
            #expect(echo["method"] as? String == "PUT")
            #expect(echo["target"] as? String == "/echo?x=1")
            #expect(echo["body"] as? String == #"{"title":"Write"}"#)
            let headers = (echo["headers"] as? [[String]]) ?? []
            #expect(headers.contains(["Content-Type", "application/json"]))
            #expect(headers.contains { $0.first?.lowercased() == "x-trace" && $0.last == "abc" })

            let piped = try await ExecutableRunner.run(
                "rebound", ["fetch", "-d", "@-", server.url("/echo")], input: Data("from stdin".utf8))
            #expect(piped.status == 0, "\(piped.stderrText)")
            let pipedEcho = try Self.object(piped.stdout)
            #expect(pipedEcho["method"] as? String == "POST")
            #expect(pipedEcho["body"] as? String == "from stdin")
        }
    }

    /// A URL's query may carry a secret (`?access_token=…`, a signed link): the request is sent as
    /// given, but the request line on stderr and the JSON's `url` show the URL screened, on success
    /// and on failure alike, and nothing the tool prints holds the secret.
    @Test func aSecretInTheURLIsSentButNeverShown() async throws {
        try await withServer(LoopbackRoute.standardTestRoutes) { server in
            let url = server.url("/echo?access_token=SECRET&limit=2")
            let shown = server.url("/echo?access_token=<redacted>&limit=2")

            let people = try await Self.rebound(["fetch", url])
            #expect(people.status == 0, "\(people.stderrText)")
            #expect(try Self.object(people.stdout)["target"] as? String == "/echo?access_token=SECRET&limit=2")
            #expect(people.stderrText.split(separator: "\n").first.map(String.init) == "GET \(shown)")
            #expect(!people.stderrText.contains("SECRET"), "stderr:\n\(people.stderrText)")

            let json = try await Self.rebound(["fetch", "--json", url])
            #expect(json.status == 0, "\(json.stderrText)")
            #expect(try Self.object(json.stdout)["url"] as? String == shown)
            #expect(!json.stdoutText.contains("SECRET"), "stdout:\n\(json.stdoutText)")

            let failing = server.url("/status?code=404&api_key=SECRET")
            for arguments in [["fetch", failing], ["fetch", "--json", failing]] {
                let failed = try await Self.rebound(arguments)
                #expect(failed.status == 1, "\(failed.stderrText)")
                let printed = failed.stdoutText + failed.stderrText
                #expect(printed.contains("/status?code=404&api_key=<redacted>"), "output:\n\(printed)")
                #expect(!printed.contains("SECRET"), "output:\n\(printed)")
            }
        }
    }

    @Test(arguments: [
        (["fetch", "ftp://example.com/file"], "only http and https"),
        (["fetch", "not a url"], "is not a URL"),
        (["fetch", "http:///path"], "has no host"),
        (["fetch", "http://user:secret@example.com/"], "carries credentials"),
        (["fetch", "-H", "NoColon", "http://127.0.0.1:1/"], "Invalid header in the 1st -H"),
        (["fetch", "-H", "Bad Name: x", "http://127.0.0.1:1/"], "not a valid field name"),
        (["fetch", "-X", "GE T", "http://127.0.0.1:1/"], "not a valid method"),
        (["fetch", "--max-attempts", "0", "http://127.0.0.1:1/"], "--max-attempts"),
        (["fetch", "--multiplier", "0.5", "http://127.0.0.1:1/"], "--multiplier"),
        (["fetch", "--base-delay=-1", "http://127.0.0.1:1/"], "--base-delay"),
        (["fetch", "--base-delay", "5", "--max-delay", "1", "http://127.0.0.1:1/"], "--max-delay"),
        (["fetch", "--deadline", "0", "http://127.0.0.1:1/"], "--deadline"),
        (["fetch", "--timeout", "nan", "http://127.0.0.1:1/"], "--timeout"),
        (["fetch", "--deadline", "inf", "http://127.0.0.1:1/"], "--deadline"),
        (["fetch", "--max-delay", "nan", "http://127.0.0.1:1/"], "--max-delay"),
        // Positive, but under half a nanosecond: each would become a duration of 0.
        (["fetch", "--deadline", "1e-10", "http://127.0.0.1:1/"], "--deadline 1e-10 rounds to 0"),
        (["fetch", "--timeout", "1e-10", "http://127.0.0.1:1/"], "--timeout 1e-10 rounds to 0"),
        (["fetch", "--base-delay", "4e-10", "http://127.0.0.1:1/"], "--base-delay 4e-10 rounds to 0"),
        (["simulate", "--base-delay", "0", "--max-delay", "1e-10"], "--max-delay 1e-10 rounds to 0"),
        // Not a URL, so not quoted (it could be a secret typed in the wrong place); the choices are.
        (
            ["fetch", "--jitter", "wobbly", "http://127.0.0.1:1/"],
            "invalid for '--jitter <jitter>'. Please provide one of"
        ),
        (["fetch", "--seed", "-3", "http://127.0.0.1:1/"], "seed"),
        (["fetch", "-d", "@/nonexistent/body.json", "http://127.0.0.1:1/"], "Cannot read the request body"),
        (["fetch", "-d", "@/tmp", "http://127.0.0.1:1/"], "Cannot read the request body"),
        (["fetch", "-d", "@/dev/zero", "http://127.0.0.1:1/"], "larger than 64 MiB"),
        (["simulate", "--samples", "0"], "--samples"),
        (["simulate", "--samples", "10001"], "--samples"),
        (["simulate", "--max-attempts", "101"], "--max-attempts"),
    ])
    func invalidArgumentsExitWith64AndSayWhy(arguments: [String], explanation: String) async throws {
        let result = try await Self.rebound(arguments)

        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrText.contains(explanation), "stderr:\n\(result.stderrText)")
    }

    /// A malformed argument may hold a secret (a token typed without its colon, a password in the
    /// URL) and control characters that would rewrite the terminal: the error names the header or
    /// its position, never its value, hides the URL's user information and escapes control
    /// characters, and still exits with 64.
    @Test(arguments: [
        (["fetch", "-H", "Authorization Bearer SECRET123", "http://127.0.0.1:1/"], "Invalid header in the 1st -H"),
        (
            ["fetch", "-H", "Accept: text/plain", "-H", "Authorization Bearer SECRET123: x", "http://127.0.0.1:1/"],
            "Invalid header in the 2nd -H"
        ),
        (
            ["fetch", "-H", "Authorization: Bearer SECRET123\u{01}", "http://127.0.0.1:1/"],
            "Invalid header 'Authorization'"
        ),
        (
            ["fetch", "-H", "Authorization: Bearer SECRET123\r\nX-Injected: 1", "http://127.0.0.1:1/"],
            "Invalid header 'Authorization'"
        ),
        (["fetch", "http://u:SECRETPW@127.0.0.1:1/"], "'http://***@127.0.0.1:1/' carries credentials"),
        (["fetch", "ftp://u:SECRETPW@x/"], "'ftp://***@x/' is a URL of the ftp scheme"),
        (["fetch", "u:SECRETPW@example.com/"], "'u: <redacted>' is not a URL"),
        (["fetch", "http://u:SECRET/PW@example.com/"], "'http://***@example.com/' is not a URL"),
        (["fetch", "http://u:SECRET#PW@127.0.0.1:1/"], "'http://***@127.0.0.1:1/' is not a URL"),
        (
            ["fetch", "http://127.0.0.1:99999/x?access_token=SECRET"],
            "'http://127.0.0.1:99999/x?access_token=<redacted>' has port 99999"
        ),
        (["fetch", "ftp://x/f?sig=SECRET"], "'ftp://x/f?sig=<redacted>' is a URL of the ftp scheme"),
        // An argument shaped like a header field shows its name only; one that is not a URL at
        // all is not quoted.
        (["fetch", "Authorization: Basic SECRETaGVsbG8="], "'Authorization: <redacted>' is not a URL"),
        (
            ["fetch", "-H", "Accept: */*", "http://127.0.0.1:1/", "Authorization: Basic SECRETaGVsbG8="],
            "Unexpected argument 'Authorization: <redacted>'"
        ),
        (["simulate", "Cookie: session=SECRET2"], "Unexpected argument 'Cookie: <redacted>'"),
        (["fetch", "http://127.0.0.1:1/", "SECRET2"], "Unexpected argument '<redacted>'"),
        (["fetch", "SECRET2"], "'<redacted>' is not a URL"),
        // ArgumentParser's own errors quote a misplaced argument; they are screened too.
        (
            ["fetch", "http://127.0.0.1:1/", "http://h/x?access_token=SECRET"],
            "Unexpected argument 'http://h/x?access_token=<redacted>'"
        ),
        (
            ["fetch", "--deadline=http://h/x?access_token=SECRET", "http://127.0.0.1:1/"],
            "'http://h/x?access_token=<redacted>' is invalid for '--deadline"
        ),
        (["fetch", "http://127.0.0.1:1/", "\u{1B}[2Jx"], "Unexpected argument '<redacted>'"),
        // A value attached to its option, which ArgumentParser does not split and quotes whole.
        (
            ["fetch", "-HAuthorization: Basic SECRETaGVsbG8=", "http://127.0.0.1:1/"],
            "Unknown option '-HAuthorization: <redacted>'"
        ),
        (["fetch", "-HAuthorization: Basic SECRET=x=", "http://127.0.0.1:1/"], "'-HAuthorization: <redacted>'"),
        (["fetch", "--Cookie: session=SECRET2", "http://127.0.0.1:1/"], "Unknown option '--Cookie: <redacted>'"),
        (["fetch", "-HSECRET2", "--deadline", "x", "http://127.0.0.1:1/"], "Unknown option '-H<redacted>'"),
        (["fetch", "--bogus", "http://127.0.0.1:1/"], "Unknown option '--bogus'"),
        // Three dashes, or a dash and `=`, are refused before any option is looked up, in a message
        // that does not quote the argument.
        (["fetch", "---x=SECRET2", "http://127.0.0.1:1/"], "Invalid option: ---x=<redacted>"),
        (["fetch", "---Bearer-SECRET2", "http://127.0.0.1:1/"], "Invalid option: --<redacted>"),
        (
            ["fetch", "-=Authorization: Basic SECRET2", "http://127.0.0.1:1/"],
            "Invalid option: -=Authorization: <redacted>"
        ),
        (["fetch", "-H", "X-\u{1B}[2JSECRET: v", "http://127.0.0.1:1/"], "Invalid header in the 1st -H"),
        // A dash and a control character is no option's name (found by the fuzz target cli-arguments).
        (["fetch", "-\u{14}x: SECRET2", "http://127.0.0.1:1/"], "Unknown option '<redacted>'"),
        (["fetch", "-\u{1B}[2JSECRET2", "http://127.0.0.1:1/"], "Unknown option '<redacted>'"),
        (["fetch", "-\u{7}", "http://127.0.0.1:1/"], "Unknown option '<redacted>'"),
        (
            ["fetch", "http://127.0.0.1:1/\u{1B}[2J\r\nok"],
            "'http://127.0.0.1:1/\\u{1B}[2J\\u{D}\\u{A}ok' holds control characters"
        ),
    ])
    func invalidArgumentsNeverEchoASecretOrAControlCharacter(arguments: [String], explanation: String) async throws {
        let result = try await Self.rebound(arguments)

        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(!result.stderrText.contains("SECRET"), "stderr:\n\(result.stderrText)")
        let controls = result.stderrText.unicodeScalars.filter {
            $0 != "\n" && $0.properties.generalCategory == .control
        }
        #expect(controls.isEmpty, "stderr:\n\(result.stderrText.debugDescription)")
        #expect(result.stderrText.contains(explanation), "stderr:\n\(result.stderrText)")
    }

    // MARK: - simulate

    @Test func simulateJSONIsReproducibleFromItsSeedWithOneWaitPerRetry() async throws {
        let arguments = ["simulate", "--json", "--max-attempts", "5", "--samples", "7"]
        let first = try await Self.rebound(arguments + ["--seed", "99"])
        let again = try await Self.rebound(arguments + ["--seed", "99"])
        let other = try await Self.rebound(arguments + ["--seed", "100"])

        #expect(first.status == 0)
        #expect(first.stderr.isEmpty)
        #expect(first.stdout == again.stdout)
        #expect(first.stdout != other.stdout)
        let report = try Self.object(first.stdout)
        #expect(Set(report.keys) == ["samples"])
        let samples = try #require(report["samples"] as? [[Double]])
        #expect(samples.count == 7)
        #expect(samples.allSatisfy { $0.count == 4 })
        #expect(Set(samples.map { $0[0] }).count == 7, "samples are independent draws")
    }

    @Test(arguments: ["none", "full", "equal", "decorrelated"])
    func simulatedWaitsStayWithinTheirJittersBounds(jitter: String) async throws {
        let (base, multiplier, cap) = (0.1, 3.0, 2.0)
        let result = try await Self.rebound([
            "simulate", "--json", "--jitter", jitter, "--base-delay", "0.1", "--multiplier", "3",
            "--max-delay", "2", "--max-attempts", "7", "--samples", "300", "--seed", "5",
        ])
        let samples = try #require(try Self.object(result.stdout)["samples"] as? [[Double]])
        #expect(samples.count == 300)

        let slack = 1e-9
        for sample in samples {
            #expect(sample.count == 6)
            var previous = base
            for (k, wait) in sample.enumerated() {
                let value = min(cap, base * pow(multiplier, Double(k)))
                let bounds: ClosedRange<Double> =
                    switch jitter {
                    case "none": value...value
                    case "full": 0...value
                    case "equal": (value / 2)...value
                    default: base...min(cap, max(base, 3 * previous))
                    }
                #expect(
                    wait >= bounds.lowerBound - slack && wait <= bounds.upperBound + slack,
                    "retry \(k): \(wait) outside \(bounds)")
                previous = wait
            }
        }
        if jitter != "none" {
            #expect(Set(samples.map { $0[1] }).count > 250, "waits are spread, not constant")
        }
    }

    @Test func simulateWithoutASeedPrintsTheSeedThatRepeatsItsTable() async throws {
        let result = try await Self.rebound(["simulate", "--samples", "3"])
        #expect(result.status == 0)
        let seedLine = try #require(result.stdoutText.split(separator: "\n").first { $0.hasPrefix("seed: ") })
        let seed = String(seedLine.dropFirst("seed: ".count).prefix { $0.isNumber })

        let repeated = try await Self.rebound(["simulate", "--samples", "3", "--seed", seed])

        #expect(repeated.stdout == result.stdout)
        #expect(result.stdoutText.contains("sample  retry 0  retry 1  retry 2  total"))
        #expect(result.stdoutText.contains("spread across 3 samples"))
    }

    // MARK: - help

    @Test(arguments: [
        (
            [String](),
            ["rebound fetch https://api.example.com/v1/tasks", "rebound simulate --max-attempts 6", "rebound load"]
        ),
        (["fetch"], ["Examples:", "--idempotency-key auto", "rebound fetch -X PUT -d @task.json", "Exit status"]),
        (["simulate"], ["Examples:", "rebound simulate --json --seed 42 --samples 3"]),
        (["load"], ["Examples:", "rebound load --rate 200 --duration 30 --breaker", "Exit status"]),
    ])
    func helpShowsTheExamples(command: [String], examples: [String]) async throws {
        let result = try await Self.rebound(command + ["--help"])

        #expect(result.status == 0)
        for example in examples {
            #expect(result.stdoutText.contains(example), "missing \(example) in:\n\(result.stdoutText)")
        }
    }

    /// `COLUMNS=0`, or a terminal as narrow, stopped the tool on an assertion of ArgumentParser's
    /// (status 132), and `COLUMNS=-9223372036854775808` on an overflow: help is whole however
    /// narrow `COLUMNS` says the terminal is.
    @Test(arguments: ["0", "-9223372036854775808"])
    func helpIsWholeHoweverNarrowCOLUMNSIs(columns: String) async throws {
        let result = try await ExecutableRunner.run(
            "rebound", ["fetch", "--help"], environment: ["COLUMNS": columns], timeLimit: .seconds(60))

        #expect(result.status == 0, "stderr:\n\(result.stderrText)")
        #expect(result.stdoutText.contains("OVERVIEW: "), "stdout:\n\(result.stdoutText)")
        #expect(result.stdoutText.contains("--idempotency-key"), "stdout:\n\(result.stdoutText)")
    }

    /// The help states the retry budget's limit as docs/cli.md does: 4 retries in a row, so the
    /// fifth retryable failure ends the request (not "4 failures").
    @Test func fetchHelpStatesTheRetryBudgetsLimitAsTheDocsDo() async throws {
        let result = try await Self.rebound(["fetch", "--help"])

        #expect(result.status == 0)
        // The help is wrapped to the terminal's width: compare it as one line.
        let help = result.stdoutText.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(help.contains("allows at most 4 retries in a row"), "help:\n\(result.stdoutText)")
        #expect(help.contains("a fifth retryable failure ends the request"), "help:\n\(result.stdoutText)")
        #expect(!help.contains("after 4 failures"), "help:\n\(result.stdoutText)")
    }

    // MARK: - Support

    /// Quick waits, so that tests of retries take milliseconds.
    static let quickRetries = ["--base-delay", "0.005", "--max-delay", "0.01"]

    static let reportKeys: Set<String> = ["url", "ok", "status", "attempts", "error", "bodyBytes", "elapsedSeconds"]
    static let attemptKeys: Set<String> = ["number", "status", "error", "delayBeforeSeconds"]

    static func rebound(
        _ arguments: [String], environment: [String: String] = [:]
    ) async throws -> ExecutableRunner.Result {
        let result = try await ExecutableRunner.run(
            "rebound", arguments, environment: environment, timeLimit: .seconds(60))
        #expect(!result.timedOut, "rebound \(arguments.joined(separator: " ")) did not finish in time")
        return result
    }

    /// A route that answers with `replies` in turn, then repeats the last one.
    static func replies(_ path: String, _ replies: [LoopbackReply]) -> LoopbackRoute {
        let served = Guarded(0)
        return LoopbackRoute(path) { _ in
            let index = served.withLock { count -> Int in
                defer { count += 1 }
                return count
            }
            return replies[min(index, replies.count - 1)]
        }
    }

    func withServer(_ routes: [LoopbackRoute], _ body: (LoopbackServer) async throws -> Void) async throws {
        let server = try await LoopbackServer.start(routes: routes)
        do {
            try await body(server)
        } catch {
            try await server.shutdown()
            throw error
        }
        try await server.shutdown()
    }

    /// A JSON object, checked to be exactly one object.
    static func object(_ data: Data) throws -> [String: Any] {
        let value = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        return try #require(value as? [String: Any], "not a JSON object: \(String(decoding: data, as: UTF8.self))")
    }

    /// A JSON integer: a number without a fraction, never a Boolean.
    static func int(_ value: Any?) -> Int? {
        guard let number = value as? NSNumber, !isBoolean(number) else { return nil }
        let double = number.doubleValue
        return double == double.rounded() ? number.intValue : nil
    }

    /// A JSON number, never a Boolean.
    static func double(_ value: Any?) -> Double? {
        guard let number = value as? NSNumber, !isBoolean(number) else { return nil }
        return number.doubleValue
    }

    /// Whether `value` is the JSON Boolean `expected` (not the number 0 or 1).
    static func isBool(_ value: Any?, _ expected: Bool) -> Bool {
        guard let number = value as? NSNumber, isBoolean(number) else { return false }
        return number.boolValue == expected
    }

    /// JSONSerialization gives Booleans as NSNumber too, of its private subclass `__NSCFBoolean`
    /// (on Linux and on Darwin); its type is the only way to tell `true` from `1`.
    private static func isBoolean(_ number: NSNumber) -> Bool {
        String(describing: type(of: number)).hasSuffix("Boolean")
    }
}

extension ReboundCLITests {
    /// A value shared between a route handler and the test, behind a lock.
    final class Guarded<Value>: @unchecked Sendable {
        private let lock = NSLock()
        private var value: Value

        init(_ value: Value) {
            self.value = value
        }

        func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
            lock.lock()
            defer { lock.unlock() }
            return try body(&value)
        }
    }
}
