import Foundation
import Testing
import TestSupport

@Suite struct TestSupportTests {
    @Test func fixturesAreFound() throws {
        let readme = try Fixtures.data("README.md")
        #expect(String(decoding: readme, as: UTF8.self).contains("fleece/"))
    }

    @Test func missingFixtureIsAClearError() {
        #expect(throws: Fixtures.NotFound.self) { try Fixtures.url("no/such/fixture") }
    }

    @Test func temporaryDirectoryIsRemovedWhenReleased() throws {
        var path = ""
        try withTemporaryDirectory { directory in
            path = directory.path
            try Data([1, 2, 3]).write(to: directory.appending("file"))
            #expect(FileManager.default.fileExists(atPath: path))
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func fixtureCopyIsIndependentOfTheOriginal() throws {
        let directory = try TemporaryDirectory()
        let copy = try Fixtures.copy("fleece/1person.json", into: directory)
        try Data("changed".utf8).write(to: copy)
        let original = try Fixtures.data("fleece/1person.json")
        #expect(original != Data("changed".utf8))
    }

    @Test(arguments: StorageEngineKind.allCases)
    func everyEngineHasAName(engine: StorageEngineKind) {
        #expect(!engine.rawValue.isEmpty)
    }
}
