import ReboundMockBackend

extension MarketplaceState {
    /// The longest `Idempotency-Key` accepted: 255 characters, as common APIs allow, far more than a UUID.
    static let maximumIdempotencyKeyLength = 255

    private struct AcceptedAnswer: Encodable {
        var answerId: Int
        var taskId: Int
        var accepted = true
    }

    /// `POST /v1/tasks/{id}/answers`, for the account at `index`.
    ///
    /// The checks run in this order, and the first that fails answers:
    ///
    /// 1. the task exists (404 `not_found`);
    /// 2. a repeated `Idempotency-Key` gets the first result again, counted as a duplicate, or 409
    ///    `duplicate_request` if the request differs from the first;
    /// 3. the body is valid (422 `validation_failure`, with `field` and `reason`);
    /// 4. the task is open (409 `conflict`);
    /// 5. no captcha is due (403 `captcha_required`);
    ///
    /// then the answer is stored, the balance credited, and `201` sent. Only a stored answer's
    /// response is kept under its key: a rejected request can be sent again with the same key.
    mutating func submitAnswer(
        taskID: Substring,
        body: [UInt8],
        idempotencyKey rawKey: String?,
        accountIndex index: Int
    ) -> APIResponse {
        guard let taskIndex = taskIndex(taskID) else { return Self.noSuchTask(taskID) }
        let task = tasks[taskIndex]
        let key = rawKey?.trimmed(of: " \t")
        let fingerprint = "\(task.id)\u{0}" + String(decoding: body, as: UTF8.self)
        if let key, !key.isEmpty {
            guard key.count <= Self.maximumIdempotencyKeyLength else {
                return .invalid(
                    "Idempotency-Key",
                    .tooLong,
                    "The Idempotency-Key must have at most \(Self.maximumIdempotencyKeyLength) characters."
                )
            }
            if let stored = submissions[index]?[key] {
                guard stored.fingerprint == fingerprint else {
                    return .error(
                        .duplicateRequest,
                        message: "This Idempotency-Key was used for a different request."
                    )
                }
                stats.duplicateSubmissions += 1
                var response = stored.response
                response.headers.append(("Idempotent-Replayed", "true"))
                return response
            }
        }
        if let invalid = validateAnswer(body, for: task) { return invalid }
        guard task.isOpen else {
            return .error(.conflict, message: "Task \(task.id) is closed and takes no more answers.")
        }
        if configuration.captchaAfter > 0 && accounts[index].answersSinceCaptcha >= configuration.captchaAfter {
            return captchaRequired(accountIndex: index)
        }

        let answerID = nextAnswerID
        nextAnswerID += 1
        accounts[index].balanceMillis += task.rewardMillis
        accounts[index].answers += 1
        accounts[index].answersSinceCaptcha += 1
        stats.answersApplied += 1
        let response = APIResponse.json(AcceptedAnswer(answerId: answerID, taskId: task.id), status: 201)
        if let key, !key.isEmpty {
            submissions[index, default: [:]].makeRoom(keepingAtMost: configuration.maxRecords, by: \.serial)
            submissions[index, default: [:]][key] = StoredSubmission(
                fingerprint: fingerprint, response: response, serial: UInt64(answerID))
        }
        return response
    }

    /// The validation error of an answer's body, or `nil` if it is valid.
    ///
    /// `answer` is a required non-blank string of at most ``MockBackend/Configuration/maxAnswerLength``
    /// characters; `reward`, optional, is a number from 0 to the task's reward (the least the worker
    /// accepts).
    private func validateAnswer(_ body: [UInt8], for task: MarketplaceTask) -> APIResponse? {
        guard case .object(let fields)? = JSONValue.parse(body) else { return Self.bodyIsNotAnObject }
        guard let answer = Self.requiredString("answer", in: fields) else {
            return Self.missingOrMalformed("answer", in: fields)
        }
        let limit = configuration.maxAnswerLength
        guard answer.count <= limit else {
            return .invalid("answer", .tooLong, "The answer must have at most \(limit) characters.")
        }
        switch fields["reward"] {
        case nil, .null?:
            break
        case let value?:
            guard let reward = value.number else {
                return .invalid("reward", .invalidFormat, "reward must be a number.")
            }
            let maximum = Double(task.rewardMillis) / 1000
            guard reward >= 0 && reward <= maximum else {
                return .invalid("reward", .valueOutOfBounds, "reward must be from 0 to \(maximum).")
            }
        }
        return nil
    }

    // MARK: - Captchas

    /// The 403 `captcha_required` with the account's pending challenge, creating one if needed.
    ///
    /// - Parameter index: The account the challenge is for, or `nil` for a request without a valid
    ///   token (then any account may solve it).
    mutating func captchaRequired(accountIndex index: Int?) -> APIResponse {
        let captcha: Captcha
        if let index, let pending = accounts[index].pendingCaptchaID.flatMap({ captchas[$0] }) {
            captcha = pending
        } else {
            captchasCreated += 1
            let random = SplitMix64.derive(seed: configuration.seed, stream: 2, index: captchasCreated)
            captcha = Captcha(
                id: "c-\(captchasCreated)",
                accountIndex: index,
                left: Int(random % 9) + 1,
                right: Int((random >> 8) % 9) + 1,
                serial: captchasCreated
            )
            captchas.makeRoom(keepingAtMost: configuration.maxRecords, by: \.serial)
            captchas[captcha.id] = captcha
            if let index { accounts[index].pendingCaptchaID = captcha.id }
            stats.captchasIssued += 1
        }
        return .error(
            .captchaRequired,
            message: "Solve the captcha to go on.",
            captcha: APIResponse.CaptchaPayload(id: captcha.id, question: captcha.question)
        )
    }

    /// `POST /v1/captcha/verify` `{"id", "answer"}` for the account at `index`.
    ///
    /// A right answer gets 204, and the account may answer ``MockBackend/Configuration/captchaAfter``
    /// more tasks. A wrong answer leaves the challenge pending, so it can be tried again.
    mutating func verifyCaptcha(body: [UInt8], accountIndex index: Int) -> APIResponse {
        guard case .object(let fields)? = JSONValue.parse(body) else { return Self.bodyIsNotAnObject }
        guard let id = Self.requiredString("id", in: fields) else { return Self.missingOrMalformed("id", in: fields) }
        let answer: String
        switch fields["answer"] {
        case .string(let text)?: answer = text.trimmed(of: " \t\r\n")
        case .int(let number)?: answer = String(number)
        case nil, .null?: return .invalid("answer", .missingValue, "answer is required.")
        default: return .invalid("answer", .invalidFormat, "answer must be a string or an integer.")
        }
        guard let captcha = captchas[id], captcha.accountIndex == nil || captcha.accountIndex == index else {
            return .error(.captchaInvalid, message: "There is no captcha \(id) for this account.")
        }
        guard Int(answer) == captcha.left + captcha.right else {
            return .error(.captchaInvalid, message: "That is not the answer. Try again.")
        }
        captchas[id] = nil
        accounts[index].answersSinceCaptcha = 0
        if accounts[index].pendingCaptchaID == id {
            accounts[index].pendingCaptchaID = nil
        }
        stats.captchasSolved += 1
        return .noContent
    }
}
