import Foundation
import Rebound
import Synchronization

/// The business layer: use cases over the API, each failing with its own code and the API's
/// error as the cause. `do`/`catch` stays out of it: `wrap` converts at the boundary.
struct TaskInteractor: Sendable {
    let api: TaskAPI
    let credentials: any CredentialStore
    /// Who is signed in: the scope of the answers kept for when the backend is down.
    let user: SignedInUser

    func signIn(username: String, password: String) async throws(InteractorError) {
        let tokens = try await InteractorError.wrap(.signIn) {
            try await api.login(username: username, password: password)
        }
        _ = await credentials.replace(
            with: Credential(
                accessToken: tokens.accessToken,
                refreshToken: tokens.refreshToken,
                expiresAt: Date().addingTimeInterval(TimeInterval(tokens.expiresIn))
            )
        )
        user.signedIn(as: username)
    }

    func loadTasks() async throws(InteractorError) -> [TaskAPI.TaskItem] {
        try await InteractorError.wrap(.loadTasks) { try await api.listTasks() }
    }

    func openTask(_ id: Int) async throws(InteractorError) -> TaskAPI.TaskItem {
        try await InteractorError.wrap(.openTask, context: ["taskID": "\(id)"]) { try await api.task(id) }
    }

    func submit(answer: String, to taskID: Int) async throws(InteractorError) -> TaskAPI.Answer {
        try await InteractorError.wrap(.submitAnswer, context: ["taskID": "\(taskID)"]) {
            try await api.submit(answer: answer, to: taskID)
        }
    }

    func loadProfile() async throws(InteractorError) -> APIResponse<TaskAPI.Profile> {
        try await InteractorError.wrap(.loadProfile) { try await api.profile() }
    }
}

/// The signed-in person's name, as the stale answers' scope: one person never gets another's.
final class SignedInUser: Sendable {
    private let name = Mutex<String?>(nil)

    var current: String? { name.withLock { $0 } }

    func signedIn(as username: String) {
        name.withLock { $0 = username }
    }
}
