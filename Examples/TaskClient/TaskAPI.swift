import Foundation
import HTTPTypes
import Rebound

/// The API layer: the marketplace's endpoints over Rebound's data manager, which recovers from
/// what it can (outages, expired tokens, captchas) before anything reaches the layers above.
struct TaskAPI: Sendable {
    struct Tokens: Decodable, Sendable {
        var accessToken: String
        var refreshToken: String
        var expiresIn: Int
    }

    struct TaskItem: Decodable, Sendable {
        var id: Int
        var title: String
        var reward: Double
    }

    struct Answer: Decodable, Sendable {
        var answerId: Int
        var taskId: Int
    }

    struct Profile: Decodable, Sendable {
        var username: String
        var balance: Double
        var answers: Int
    }

    struct Empty: Decodable, Sendable {}

    let manager: APIDataManager

    func login(username: String, password: String) async throws(TaskAPIError) -> Tokens {
        let endpoint = try TaskAPIError.wrap(.loginFailed) { () throws(JSONError) in
            try Endpoint<Tokens, TaskAPIErrorCode>(
                .post, "/v1/login", json: ["username": username, "password": password], errorCode: .loginFailed)
        }
        return try await manager.send(endpoint)
    }

    func refresh(_ refreshToken: String) async throws(TaskAPIError) -> Tokens {
        let endpoint = try TaskAPIError.wrap(.refreshFailed) { () throws(JSONError) in
            try Endpoint<Tokens, TaskAPIErrorCode>(
                .post, "/v1/token/refresh", json: ["refreshToken": refreshToken], errorCode: .refreshFailed)
        }
        return try await manager.send(endpoint)
    }

    func listTasks() async throws(TaskAPIError) -> [TaskItem] {
        try await manager.send(Endpoint<[TaskItem], TaskAPIErrorCode>(.get, "/v1/tasks", errorCode: .listTasksFailed))
    }

    func task(_ id: Int) async throws(TaskAPIError) -> TaskItem {
        try await manager.send(Endpoint<TaskItem, TaskAPIErrorCode>(.get, "/v1/tasks/\(id)", errorCode: .getTaskFailed))
    }

    func submit(answer: String, to taskID: Int) async throws(TaskAPIError) -> Answer {
        let endpoint = try TaskAPIError.wrap(.submitAnswerFailed) { () throws(JSONError) in
            try Endpoint<Answer, TaskAPIErrorCode>(
                .post, "/v1/tasks/\(taskID)/answers", json: ["answer": answer], errorCode: .submitAnswerFailed)
        }
        return try await manager.send(endpoint)
    }

    func profile() async throws(TaskAPIError) -> Profile {
        try await manager.send(Endpoint<Profile, TaskAPIErrorCode>(.get, "/v1/profile", errorCode: .profileFailed))
    }

    func verifyCaptcha(id: String, answer: String) async throws(TaskAPIError) {
        let body = try TaskAPIError.wrap(.verifyCaptchaFailed) { () throws(JSONError) in
            try JSONError.encode(["id": id, "answer": answer])
        }
        let endpoint = Endpoint<TransportResponse, TaskAPIErrorCode>(
            raw: .post, "/v1/captcha/verify", headerFields: [.contentType: "application/json"], body: body,
            errorCode: .verifyCaptchaFailed)
        _ = try await manager.send(endpoint)
    }
}
