import Foundation
import Rebound
import ReboundCurl
import ReboundMarketplace
import Testing

/// The README's "A taste", run against the mock backend over libcurl. `make samples` checks that
/// the README's code compiles; these tests run it, and check that it is still the README's.
@Suite struct ReadmeTasteTests {
    @Test func theTasteSignsInAndListsTheTasksThroughAnOutageAnExpiredTokenAndACaptcha() async throws {
        let backend = try await MockBackend.start()
        let transport = CurlTransport()
        defer { transport.shutdown() }
        backend.script(
            MockFailureRule("GET", "/v1/tasks", failure: .temporary(status: 503), trigger: .times(1)),
            MockFailureRule("GET", "/v1/tasks", failure: .tokenExpired, trigger: .times(1)),
            MockFailureRule("GET", "/v1/tasks", failure: .captcha, trigger: .times(1))
        )
        let printed = Locked<[String]>([])
        let questions = Locked<[String]>([])

        try await Taste.run(
            baseURL: backend.baseURL,
            transport: transport,
            person: { challenge in
                // The person reads the question and answers it: "What is 3 + 4?" → "7".
                let question = challenge.question ?? ""
                questions.withLock { $0.append(question) }
                return String(question.split { !$0.isNumber }.compactMap { Int($0) }.reduce(0, +))
            },
            print: { items in printed.withLock { $0.append(items.map { "\($0)" }.joined(separator: " ")) } }
        )

        #expect(printed.withLock { $0 } == [Taste.expectedTitles])
        #expect(questions.withLock { $0.count } == 1)
        let stats = backend.stats
        #expect(stats.failuresInjected == ["temporary": 1, "token-expired": 1, "captcha": 1])
        #expect(stats.logins == 1)
        #expect(stats.refreshes == 1)
        #expect(stats.captchasSolved == 1)
        #expect(stats.requests(to: "GET /v1/tasks") == 4)
        try await backend.shutdown()
    }

    @Test func whenNothingHelpsTheTastePrintsTheMessageAndTheErrorCode() async throws {
        let backend = try await MockBackend.start()
        let transport = CurlTransport()
        defer { transport.shutdown() }
        backend.script(
            MockFailureRule(
                "GET", "/v1/tasks", failure: .validation(field: "page", reason: .invalidFormat), trigger: .always))
        let printed = Locked<[String]>([])

        try await Taste.run(
            baseURL: backend.baseURL,
            transport: transport,
            person: { _ in throw CaptchaDismissed() },
            print: { items in printed.withLock { $0.append(items.map { "\($0)" }.joined(separator: " ")) } }
        )

        let lines = printed.withLock { $0 }
        #expect(lines.count == 1)
        #expect(lines.first?.hasSuffix(" AP8-BE30-HT422") == true, "\(lines)")
        try await backend.shutdown()
    }

    @Test func theTasteHereIsTheREADMEs() throws {
        let source = URL(filePath: #filePath)
        let readme = source.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "README.md")
        let readmeText = try String(contentsOf: readme, encoding: .utf8)
        let sourceText = try String(contentsOf: source, encoding: .utf8)
        let block = try #require(Self.text(in: readmeText, from: "## A taste\n\n```swift\n", to: "```\n"))
        let twin = try #require(Self.text(in: sourceText, from: "// taste: begin\n", to: "// taste: end\n"))
        // Each run of the twin's lines not marked `twin` is in the README's taste, in the same
        // order, whatever the line breaks and the indentation; what the README has between them
        // is only what the twin replaces.
        var rest = Self.withoutSpaces(block)[...]
        var readmeOnly: [Substring] = []
        var run: [Substring] = []
        let lines: [Substring] = twin.split(separator: "\n") + ["// twin"]
        for line in lines {
            guard line.hasSuffix("// twin") else {
                run.append(line)
                continue
            }
            let code = Self.withoutSpaces(run.joined(separator: "\n"))
            run = []
            if code.isEmpty { continue }
            guard let found = rest.range(of: code) else {
                Issue.record("The README's taste lacks \(code), or has it before the code before it")
                return
            }
            if found.lowerBound > rest.startIndex { readmeOnly.append(rest[..<found.lowerBound]) }
            rest = rest[found.upperBound...]
        }
        if !rest.isEmpty { readmeOnly.append(rest) }
        #expect(readmeOnly == Self.replacedByTheTwin)
    }

    /// The README's code that the twin replaces, without spaces: its imports, the base URL and
    /// transport, and the person at the terminal.
    private static let replacedByTheTwin: [Substring] = [
        "importReboundimportReboundCurl",
        #"baseURL:"https://api.example.com",transport:CurlTransport(),"#,
        #"print(challenge.question??"Solvethecaptcha\(challenge.id):")"#
            + #"guardletanswer=readLine(),!answer.isEmptyelse{throwCaptchaDismissed()}returnanswer"#,
    ]

    private static func text(in text: String, from start: String, to end: String) -> String? {
        guard let open = text.range(of: start), let close = text.range(of: end, range: open.upperBound..<text.endIndex)
        else { return nil }
        return String(text[open.upperBound..<close.lowerBound])
    }

    private static func withoutSpaces(_ text: String) -> String {
        String(text.unicodeScalars.filter { !CharacterSet.whitespacesAndNewlines.contains($0) })
    }
}

// The README's "A taste" as a function, with a test's base URL and transport, a person who
// answers captchas, and a `print` that records. Lines that differ from the README's end with
// `// twin`. The README's top-level code names `api` in functions that its own initialiser
// uses, which a function body cannot: here those functions find it in `manager`.
// taste: begin
private enum Taste {  // twin
    // The API layer's failures: one code per call, the first link of chains like AP8-RE1-HT503.
    enum APIErrorCode: Int, ErrorCode {
        static let domain = "APIError"
        static let shortName = "AP"
        case signInFailed = 6
        case refreshFailed = 7
        case listTasksFailed = 8
        case verifyCaptchaFailed = 9
    }
    typealias APIError = LayerError<APIErrorCode>

    struct TaskItem: Decodable, Sendable { var id: Int; var title: String }
    struct Tokens: Decodable, Sendable { var accessToken: String; var refreshToken: String }

    static func run(  // twin
        baseURL: String,  // twin
        transport: CurlTransport,  // twin
        person: @escaping @Sendable (CaptchaChallenge) async throws -> String,  // twin
        print: @escaping @Sendable (Any...) -> Void  // twin
    ) async throws {  // twin
        let manager = Locked<APIDataManager?>(nil)  // twin
        // The signed-in user's credential: AuthRefreshHandler sends it with every request.
        let credentials = InMemoryCredentialStore()

        let api = try APIDataManager(
            baseURL: baseURL,  // twin
            transport: transport,  // twin
            handlers: [
                BackendTemporaryErrorHandler(),  // 408, 429, 502-504, resets
                AuthRefreshHandler(store: credentials, refresh: refreshToken),  // 401: one shared refresh
                CaptchaRequiredHandler(solve: askThePerson, verify: verifyCaptcha),  // 403 captcha_required
            ]
        )
        manager.withLock { $0 = api }  // twin

        // The refresh and the verification go through the same data manager, without the handler
        // that asked for them.
        @Sendable func refreshToken(_ expired: Credential?) async throws -> Credential {
            let api = try #require(manager.withLock { $0 })  // twin
            let tokens = try await api.send(
                .post(
                    "/v1/token/refresh", json: ["refreshToken": expired?.refreshToken ?? ""], returning: Tokens.self,
                    errorCode: APIErrorCode.refreshFailed
                )
                .skipping(.type(AuthRefreshHandler.self)))
            return Credential(accessToken: tokens.accessToken, refreshToken: tokens.refreshToken)
        }

        @Sendable func verifyCaptcha(_ challenge: CaptchaChallenge, answer: String) async throws {
            let api = try #require(manager.withLock { $0 })  // twin
            try await api.send(  // an answer without a body: 204
                .post(
                    "/v1/captcha/verify", json: ["id": challenge.id, "answer": answer],
                    errorCode: APIErrorCode.verifyCaptchaFailed
                )
                .skipping(.type(CaptchaRequiredHandler.self)))
        }

        @Sendable func askThePerson(_ challenge: CaptchaChallenge) async throws -> String {
            try await person(challenge)  // twin
        }

        do throws(APIError) {
            let tokens = try await api.send(
                .post(
                    "/v1/login", json: ["username": "alice", "password": "wonderland"], returning: Tokens.self,
                    errorCode: APIErrorCode.signInFailed
                ))
            let credential = Credential(accessToken: tokens.accessToken, refreshToken: tokens.refreshToken)
            await credentials.replace(with: credential)

            let tasks = try await api.send(
                .get("/v1/tasks", returning: [TaskItem].self, errorCode: APIErrorCode.listTasksFailed))
            print(tasks.map(\.title))
        } catch {
            // error is an APIError; its chain says what happened, e.g. AP8-RE1-HT503
            let shown = ErrorPresenter.standard.present(error, includeTechnicalDetails: true)
            print(shown.message, shown.errorCode)
        }
    }  // twin
}  // twin
// taste: end

extension Taste {
    /// What the taste prints on success: the titles of the mock backend's seven tasks.
    static let expectedTitles = """
        ["Is there a cat in this photo?", "Transcribe a shop receipt", \
        "Rate how well a search result fits its query", "Outline the road signs in a street photo", \
        "Check that a shop is at its listed address", "Translate a short product description", \
        "Decide whether a comment is polite"]
        """
}
