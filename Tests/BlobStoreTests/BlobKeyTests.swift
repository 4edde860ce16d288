import Testing
@testable import BlobStore
@Test func stub() { #expect(true) }
