import Testing
@testable import BLIP

@Suite struct BLIPPropertiesTests {
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
