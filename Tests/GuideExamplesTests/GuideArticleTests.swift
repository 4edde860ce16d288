import Foundation
import Testing
import TestSupport

/// The DocC articles' code is this target's code: every Swift block of an article is a tagged
/// snippet (`// tag::name[]` … `// end::name[]`) of these tests, and every snippet appears in an
/// article. So the documentation cannot show code that does not compile or does not do what
/// the tests check.
@Suite(.ownThreads) struct GuideArticleTests {
    private static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    private static let catalog = packageRoot.appendingPathComponent("Modules/CouchbaseLiteSwift/CouchbaseLiteSwift.docc")
    private static let tests = packageRoot.appendingPathComponent("Tests/GuideExamplesTests")

    /// Removes the indentation all non-blank lines share, and blank lines at either end.
    static func normalized<S: StringProtocol>(_ lines: [S]) -> String {
        var lines = lines.map { String($0) }
        while lines.first?.allSatisfy(\.isWhitespace) == true { lines.removeFirst() }
        while lines.last?.allSatisfy(\.isWhitespace) == true { lines.removeLast() }
        let indent = lines.filter { !$0.allSatisfy(\.isWhitespace) }
            .map { $0.prefix { $0 == " " }.count }.min() ?? 0
        return lines.map { $0.allSatisfy(\.isWhitespace) ? "" : String($0.dropFirst(indent)) }.joined(separator: "\n")
    }

    /// The tagged snippets of the test sources, by tag.
    static func snippets() throws -> [String: String] {
        var snippets: [String: String] = [:]
        let files = try FileManager.default.contentsOfDirectory(atPath: tests.path).filter { $0.hasSuffix(".swift") }
        for file in files {
            let lines = try String(contentsOf: tests.appendingPathComponent(file), encoding: .utf8)
                .split(separator: "\n", omittingEmptySubsequences: false)
            var open: (tag: String, start: Int)?
            for (index, line) in lines.enumerated() {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.hasPrefix("// tag::"), trimmed.hasSuffix("[]") {
                    open = (String(trimmed.dropFirst(8).dropLast(2)), index + 1)
                } else if trimmed.hasPrefix("// end::"), let current = open {
                    snippets[current.tag] = normalized(Array(lines[current.start..<index]))
                    open = nil
                }
            }
        }
        return snippets
    }

    /// The Swift code blocks of every article, with the article's name.
    static func articleBlocks() throws -> [(article: String, code: String)] {
        var blocks: [(String, String)] = []
        let articles = try FileManager.default.contentsOfDirectory(atPath: catalog.path).filter { $0.hasSuffix(".md") }
        for article in articles.sorted() {
            let lines = try String(contentsOf: catalog.appendingPathComponent(article), encoding: .utf8)
                .split(separator: "\n", omittingEmptySubsequences: false)
            var start: Int?
            for (index, line) in lines.enumerated() {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if start == nil, trimmed == "```swift" {
                    start = index + 1
                } else if let first = start, trimmed == "```" {
                    blocks.append((article, normalized(Array(lines[first..<index]))))
                    start = nil
                }
            }
        }
        return blocks
    }

    @Test func everyArticleCodeBlockIsATestedSnippet() throws {
        let snippets = Set(try Self.snippets().values)
        let blocks = try Self.articleBlocks()
        #expect(blocks.count >= 10)
        for block in blocks {
            #expect(snippets.contains(block.code), "\(block.article): this code block is not a tagged snippet of GuideExamplesTests:\n\(block.code)")
        }
    }

    @Test func everyTestedSnippetIsInAnArticle() throws {
        let shown = Set(try Self.articleBlocks().map(\.code))
        for (tag, code) in try Self.snippets() {
            #expect(shown.contains(code), "snippet \"\(tag)\" appears in no article of CouchbaseLiteSwift.docc")
        }
    }
}
