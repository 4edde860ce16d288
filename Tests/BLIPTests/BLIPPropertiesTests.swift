import Testing
import TestSupport
@testable import BLIP

@Suite(.ownThreads) struct BLIPPropertiesTests {
    @Test func keepsInsertionOrderAndUniqueKeys() {
        var properties: BLIPProperties = ["Profile": "rev", "id": "doc"]
        properties["id"] = "other"
        properties["rev"] = "1-abc"
        #expect(properties.pairs.map(\.key) == ["Profile", "id", "rev"])
        #expect(properties["id"] == "other")
        properties["id"] = nil
        #expect(properties.pairs.map(\.key) == ["Profile", "rev"])
    }
}
