import Foundation
import HTTPTypes
import Logging
import Rebound
import ReboundCurl

/// The session the example walks: every step a person might take, each meeting one kind of
/// failure on cue, and what the person would see.
///
/// The layers are the talk's: the transport (`NE`), the API (`AP`) over Rebound's data manager
/// with its three handlers, the interactor (`IN`), and this presentation layer, which wraps
/// failures into the user layer (`US`) and asks `ErrorPresenter` what to show.
struct Walkthrough {
    let interactor: TaskInteractor
    let control: BackendControl
    let presenter: ErrorPresenter
    /// Records each failure a person is shown, as an app records the non-fatals it shows; `nil`
    /// when nothing would receive the reports.
    var reporter: NonFatalReporter?

    /// Runs the whole session; returns the number of steps whose outcome was not the expected one.
    func run() async throws -> Int {
        var surprises = 0

        surprises += await step(1, "Sign in", expect: .success) {
            try await interactor.signIn(username: "alice", password: "wonderland")
            return "signed in as alice"
        }
        surprises += await step(2, "Load the task list", expect: .success) {
            "\(try await interactor.loadTasks().count) tasks"
        }
        surprises += await step(3, "Submit an answer", expect: .success) {
            "answer \(try await interactor.submit(answer: "a cat", to: 1).answerId) accepted"
        }

        try await control.advanceClock(seconds: 301)
        surprises += await step(4, "Open the profile after the access token expired", expect: .success) {
            let profile = try await interactor.loadProfile().value
            return "\(profile.username): \(profile.answers) answer(s), balance \(profile.balance)"
        }

        try await control.fail("GET", "/v1/tasks", with: "retry-after-1")
        try await control.fail("GET", "/v1/tasks", with: "temporary-503")
        surprises += await step(5, "Load the tasks during a short outage", expect: .success) {
            "\(try await interactor.loadTasks().count) tasks"
        }

        try await control.fail("GET", "/v1/profile", with: "rate-limited-retry-after-1")
        surprises += await step(6, "Open the profile while rate limited", expect: .success) {
            "balance \(try await interactor.loadProfile().value.balance)"
        }

        try await control.fail("POST", "/v1/tasks/*/answers", with: "close-mid-body")
        surprises += await step(
            7, "Submit an answer when the connection drops after the server took it", expect: .success
        ) {
            "answer \(try await interactor.submit(answer: "a receipt", to: 2).answerId) accepted, applied once"
        }

        try await control.fail("POST", "/v1/tasks/*/answers", with: "captcha")
        surprises += await step(8, "Submit an answer when the backend wants a captcha", expect: .success) {
            "answer \(try await interactor.submit(answer: "relevant", to: 3).answerId) accepted"
        }

        surprises += await step(9, "Submit an empty answer", expect: .recoverable, as: .answerNotSent) {
            "answer \(try await interactor.submit(answer: "", to: 4).answerId) accepted"
        }

        try await control.fail("GET", "/v1/tasks/{id}", with: "malformed-json")
        surprises += await step(
            10, "Open a task whose data arrives broken", expect: .unrecoverable, as: .taskUnavailable
        ) {
            "opened \(try await interactor.openTask(4).title)"
        }

        // A slow answer: the profile is hedged, so a second request goes out after half a second
        // without an answer; it wins, and the stalled one is cancelled. (Before the long outage,
        // which spends the retry budget: hedges go out only while it holds more than half.)
        try await control.fail("GET", "/v1/profile", with: "slow-5000")
        surprises += await step(11, "Open the profile when the backend's first answer is slow", expect: .success) {
            "balance \(try await interactor.loadProfile().value.balance)"
        }

        // A long outage: after enough failures the circuit breaker opens, and the app tells the
        // person when to come back instead of sending more requests to a service that is down.
        try await control.fail("GET", "/v1/tasks", with: "temporary-503", times: 1_000)
        var circuitOpen: CircuitOpen?
        surprises += await step(
            12, "Reload the task list during a long outage, until the app stops trying", expect: .recoverable
        ) {
            var reload = 1
            while true {
                do {
                    return "\(try await interactor.loadTasks().count) tasks"
                } catch {
                    circuitOpen = error.attachment(CircuitOpen.self)
                    guard circuitOpen == nil, reload < Self.mostReloads else { throw error }
                    Console.write("   reload \(reload) failed (\(error.chain.short)); the person reloads again")
                    reload += 1
                }
            }
        }

        try await control.clearFailures()
        surprises += await step(13, "Reload when the app said to, once the service is back", expect: .success) {
            // The person waits as long as they were told; then one probe goes through, and its
            // success closes the circuit.
            try await Task.sleep(for: circuitOpen?.retryAfter ?? .zero)
            return "\(try await interactor.loadTasks().count) tasks"
        }

        // A 429 storm: the adaptive rate limiter holds every retry until the server's Retry-After,
        // without charging the retry budget, so all seven calls get through.
        try await control.fail("GET", "/v1/tasks/{id}", with: "rate-limited-retry-after-1", times: 5)
        surprises += await step(14, "Open all seven tasks at once while the backend throttles", expect: .success) {
            let titles = try await withThrowingTaskGroup(of: String.self) { group in
                for id in 1...7 { group.addTask { try await interactor.openTask(id).title } }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            return "opened \(titles.count) tasks"
        }

        // The backend is down again: the profile, which opts in to stale answers, shows as it was
        // last seen, with its age, instead of an error.
        try await control.fail("GET", "/v1/profile", with: "temporary-503", times: 10)
        surprises += await step(15, "Open the profile while the backend is down", expect: .success) {
            let answer = try await interactor.loadProfile()
            var shown = "\(answer.value.username): balance \(answer.value.balance)"
            if let staleness = answer.staleness {
                let (seconds, attoseconds) = staleness.age.components
                let age = String(format: "%.1f", Double(seconds) + Double(attoseconds) / 1e18)
                shown += ", as last seen \(age) s ago (the backend failed: \(staleness.failure.shortChain))"
            }
            return shown
        }
        try await control.clearFailures()

        let stats = try await control.stats()
        Console.write("\nWhat the backend saw")
        for key in [
            "logins", "refreshes", "captchasIssued", "captchasSolved", "duplicateSubmissions", "answersApplied",
        ] {
            Console.write("  \(key): \(stats[key].map { "\($0)" } ?? "?")")
        }
        if let injected = stats["failuresInjected"] as? [String: Any] {
            let text = injected.keys.sorted().map { "\($0) \(injected[$0]!)" }.joined(separator: ", ")
            Console.write("  failuresInjected: \(text)")
        }
        return surprises
    }

    /// How often the person reloads during the long outage before the step gives up.
    static let mostReloads = 10

    enum Expectation { case success, recoverable, unrecoverable }

    /// Runs one step and shows its outcome as a person would see it.
    ///
    /// - Returns: 1 when the outcome was not the expected one, 0 otherwise.
    private func step(
        _ number: Int,
        _ title: String,
        expect expectation: Expectation,
        as userCode: UserErrorCode = .generalServer,
        _ body: () async throws -> String
    ) async -> Int {
        Console.write("\n\(number). \(title)")
        do {
            let result = try await body()
            Console.write("   ✓ \(result)")
            return expectation == .success ? 0 : 1
        } catch {
            let failure = UserError(userCode, cause: error)
            reporter?.record(failure, context: ["step": "\(number)"])
            let shown = presenter.present(failure, includeTechnicalDetails: true)
            Console.write("   ✗ \(shown.title): \(shown.message)")
            if !shown.actions.isEmpty {
                Console.write("     actions: " + shown.actions.map { "[\($0.title)]" }.joined(separator: " "))
            }
            if !shown.isRecoverable {
                Console.write("     error code: \(shown.errorCode)")
                for line in (shown.technicalDetails ?? "").split(separator: "\n") { Console.write("     \(line)") }
            } else {
                Console.write("     (chain \(shown.errorCode))")
            }
            switch expectation {
            case .success: return 1
            case .recoverable: return shown.isRecoverable ? 0 : 1
            case .unrecoverable: return shown.isRecoverable ? 1 : 0
            }
        }
    }
}
