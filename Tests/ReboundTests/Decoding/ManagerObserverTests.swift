import Foundation
import HTTPTypes
import Rebound
import ReboundTesting
import Testing

@Suite struct ManagerObserverTests {
    @Test func theManagersObserverHearsOfEndpointsWithoutTheirOwn() async throws {
        let received = Locked<[String]>([])
        let managerObserver = PartialDecodingCallback { errors in received.withLock { $0 += errors.map(\.chain.short) }
        }
        let ownReceived = Locked<[String]>([])
        let own = PartialDecodingCallback { errors in ownReceived.withLock { $0 += errors.map(\.chain.short) } }
        let api = try APIDataManager(
            baseURL: "https://api.example.com",
            transport: ScriptedTransport([
                .json(#"{"chores": [{"id": "x", "title": "a", "reward": 1}]}"#),
                .json(#"{"chores": [{"id": 2, "title": "b", "reward": false}]}"#),
            ]),
            partialDecodingObserver: managerObserver
        )
        _ = try await api.send(Endpoint<ChoreList, APIErrorCode>(resilient: .get, "/a", errorCode: .listTasksFailed))
        _ = try await api.send(
            Endpoint<ChoreList, APIErrorCode>(resilient: .get, "/b", errorCode: .currentWorker, observer: own))
        #expect(received.withLock { $0 } == ["AP8-JS1-DE1"])
        #expect(ownReceived.withLock { $0 } == ["AP103-JS1-DE1"])
    }
}
