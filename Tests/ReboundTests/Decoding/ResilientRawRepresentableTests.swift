import Foundation
import Rebound
import Testing

/// Raw-value types with a fallback, frozen and not: what `@Resilient` does with a value they do
/// not know.
@Suite struct ResilientRawRepresentableTests {
    private struct Order: Decodable {
        @Resilient var status: ChoreStatus
        @Resilient var currency: Currency
        @Resilient var priority: Priority?
        @Resilient var unit: Unit?
    }

    @Test func knownValuesDecode() throws {
        let order = try decode(Order.self, #"{"status": "done", "currency": "eur", "priority": 2, "unit": "litre"}"#)
        #expect(order.status == .done)
        #expect(order.currency == .eur)
        #expect(order.priority == .high)
        #expect(order.unit == .litre)
        #expect(order.$status.outcome.kind == .decoded)
    }

    @Test func aNewValueOfANonFrozenTypeIsTheFallbackAndNotAnError() throws {
        let (order, digest) = try decodeWithDigest(Order.self, #"{"status": "archived", "currency": "usd"}"#)
        #expect(order.status == .unknown)
        #expect(order.$status.outcome.kind == .unknownValue("archived"))
        #expect(order.$status.error == nil)
        #expect(order.$status.errors.isEmpty)
        #expect(digest.errors.isEmpty)
        #expect(digest.unknownValues.map(\.path) == ["status"])
        #expect(digest.unknownValues.first?.unknownRawValue == "archived")
    }

    @Test func aNewValueOfAFrozenTypeIsTheFallbackAndAReportedError() throws {
        let (order, digest) = try decodeWithDigest(Order.self, #"{"status": "open", "currency": "gbp"}"#)
        #expect(order.currency == .unsupported)
        #expect(order.$currency.outcome.kind == .recoveredFrom)
        #expect(decodingCase(order.$currency.error) == "dataCorrupted")
        #expect(digest.errors.map(\.path) == ["currency"])
        #expect(digest.errors.first?.unknownRawValue == "gbp")
        #expect(digest.errors.first?.isExpected == false)
    }

    @Test func beingNotFrozenDoesNotExcuseAValueOfTheWrongType() throws {
        let (order, digest) = try decodeWithDigest(Order.self, #"{"status": 3, "currency": "eur"}"#)
        #expect(order.status == .unknown)
        #expect(order.$status.outcome.kind == .recoveredFrom)
        #expect(decodingCase(order.$status.error) == "typeMismatch")
        #expect(digest.errors.map(\.path) == ["status"])
    }

    @Test func aMissingOrNullValueIsTheFallbackWithoutAnError() throws {
        let (missing, missingDigest) = try decodeWithDigest(Order.self, "{}")
        #expect(missing.status == .unknown)
        #expect(missing.currency == .unsupported)
        #expect(missing.$status.outcome.kind == .keyNotFound)
        #expect(missingDigest.isEmpty)

        let null = try decode(Order.self, #"{"status": null, "currency": null}"#)
        #expect(null.status == .unknown)
        #expect(null.$currency.outcome.kind == .valueWasNil)
    }

    @Test func anOptionalWithoutAFallbackIsNilForANewValue() throws {
        let (order, digest) = try decodeWithDigest(Order.self, #"{"priority": 3, "unit": "pound"}"#)
        #expect(order.priority == nil)
        #expect(order.$priority.outcome.kind == .unknownValue("3"))
        #expect(order.unit == nil)
        #expect(order.$unit.outcome.kind == .recoveredFrom)
        #expect(digest.errors.map(\.path) == ["unit"])
        #expect(digest.unknownValues.map(\.path) == ["priority"])
    }

    @Test func withoutAFallbackANonOptionalPropertyIsAsStrictAsWithoutTheWrapper() throws {
        struct Strict: Decodable { @Resilient var priority: Priority }
        #expect(try decode(Strict.self, #"{"priority": 1}"#).priority == .low)
        #expect(throws: DecodingError.self) { try decode(Strict.self, #"{"priority": 7}"#) }
        #expect(throws: DecodingError.self) { try decode(Strict.self, "{}") }
    }

    @Test func theDefaultsAreNotFrozenAndNoFallback() {
        #expect(Priority.isFrozen == false)
        #expect(Priority.decodingFallback == nil)
        #expect(ChoreStatus.isFrozen == false)
        #expect(Currency.isFrozen == true)
    }

    @Test func theProtocolChangesNothingOutsideResilientProperties() {
        struct Plain: Decodable { var status: ChoreStatus }
        #expect(throws: DecodingError.self) { try decode(Plain.self, #"{"status": "archived"}"#) }
    }

    // MARK: - In collections

    private struct Collections: Decodable {
        @Resilient var statuses: [ChoreStatus]
        @Resilient var currencies: [Currency]
        @Resilient var statusByID: [String: ChoreStatus]
        @Resilient var currencyByID: [String: Currency]?
    }

    @Test func anArrayLeavesOutUnknownValuesInsteadOfUsingTheFallback() throws {
        let (model, digest) = try decodeWithDigest(
            Collections.self,
            #"{"statuses": ["open", "archived", "done"], "currencies": ["eur", "gbp", 1]}"#
        )
        #expect(model.statuses == [.open, .done])
        #expect(model.currencies == [.eur])
        // Not frozen: left out, visible in the results, not an error.
        #expect(model.$statuses.errors.isEmpty)
        #expect(model.$statuses.outcome.kind == .unknownValue("archived"))
        #expect(successes(model.$statuses.results) == [.open, nil, .done])
        // Frozen: left out and an error, as is a value of the wrong type.
        #expect(model.$currencies.errors.count == 2)
        #expect(digest.errors.map(\.path) == ["currencies[1]", "currencies[2]"])
        #expect(digest.unknownValues.map(\.path) == ["statuses[1]"])
    }

    @Test func aCollectionThatLeftOutOnlyUnknownValuesIsNotDecodedButHasAnUnknownValue() throws {
        let (model, digest) = try decodeWithDigest(
            Collections.self, #"{"statuses": ["open", "archived", "done", "closed"], "currencies": ["eur"]}"#)
        #expect(model.statuses == [.open, .done])
        // Something was left out, so not `.decoded`; expected, so no error: the first value left out.
        #expect(model.$statuses.outcome.kind == .unknownValue("archived"))
        #expect(model.$statuses.outcome.error == nil)
        #expect(model.$statuses.errors.isEmpty)
        #expect(digest.errors.isEmpty)
        #expect(digest.unknownValues.map(\.unknownRawValue) == ["archived", "closed"])
        // A collection that left nothing out is decoded.
        #expect(model.$currencies.outcome.kind == .decoded)
    }

    @Test func aCollectionThatLeftOutErrorsAndUnknownValuesRecoveredFromTheErrorsAlone() throws {
        let (model, digest) = try decodeWithDigest(
            Collections.self, #"{"statuses": ["archived", 1, "open"], "currencies": []}"#)
        #expect(model.statuses == [.open])
        #expect(model.$statuses.outcome.kind == .recoveredFrom)
        #expect((model.$statuses.outcome.error as? DroppedElementsError)?.errors.count == 1)
        #expect(model.$statuses.errors.count == 1)
        #expect(digest.errors.map(\.path) == ["statuses[1]"])
        #expect(digest.unknownValues.map(\.path) == ["statuses[0]"])
    }

    @Test func aDictionaryLeavesOutUnknownValuesInsteadOfUsingTheFallback() throws {
        let (model, digest) = try decodeWithDigest(
            Collections.self,
            #"{"statusByID": {"a": "open", "b": "archived"}, "currencyByID": {"x": "usd", "y": "yen"}}"#
        )
        #expect(model.statusByID == ["a": .open])
        #expect(model.currencyByID == ["x": .usd])
        #expect(model.$statusByID.errors.isEmpty)
        #expect(model.$statusByID.outcome.kind == .unknownValue("archived"))
        #expect(model.$currencyByID.errors.count == 1)
        #expect(digest.errors.map(\.path) == ["currencyByID.y"])
        #expect(digest.unknownValues.map(\.path) == ["statusByID.b"])
    }
}
