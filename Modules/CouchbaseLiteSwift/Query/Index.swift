import Foundation
import LiteSupport

/// An index definition for ``Database/createIndex(_:withName:)``: a value index or a full-text
/// index. The 2.0 guide's spelling (`Index.valueIndex(withItems:)`) and the later
/// ``IndexBuilder`` both make them.
///
/// ```swift
/// try database.createIndex(IndexBuilder.fullTextIndex(items: FullTextIndexItem.property("name")),
///                          withName: "nameFTS")
/// ```
public class Index: @unchecked Sendable {
    // Unchecked only because Swift checks no non-final class: `definition` is a Sendable `let`,
    // and `IndexOf`, the only subclass, stores nothing.
    let definition: Definition

    /// What the index holds; a full-text index's settings can still change until it is created.
    enum Definition: Sendable {
        case value([ValueIndexItem])
        case fullText([FullTextIndexItem], Locked<FullTextSettings>)
    }

    /// A full-text index's language and accent folding.
    struct FullTextSettings: Sendable {
        var language: String? = Locale.current.language.languageCode?.identifier
        var languageIsChosen = false
        var ignoreAccents = false
    }

    init(_ definition: Definition) {
        self.definition = definition
    }

    /// A value index on these items (2.0 spelling).
    public static func valueIndex(withItems items: [ValueIndexItem]) -> ValueIndex { ValueIndex(.value(items)) }

    /// A full-text index on these items (2.0 spelling).
    public static func fullTextIndex(withItems items: [FullTextIndexItem]) -> FullTextIndex {
        FullTextIndex(.fullText(items, Locked(FullTextSettings())))
    }
}

/// A value index or a full-text index definition (`Kind` is one of ``IndexKind``'s tags; the
/// two are named by the aliases ``ValueIndex`` and ``FullTextIndex``).
///
/// One generic class rather than a subclass per kind: both are an ``Index`` and store nothing
/// of their own.
public final class IndexOf<Kind>: Index, @unchecked Sendable {
    // Unchecked only because Swift checks no subclass: this one adds no stored property, and
    // `Index` stores only a Sendable `let`.
}

/// The tags of ``IndexOf``.
public enum IndexKind {
    /// A value index.
    public enum Value {}
    /// A full-text index.
    public enum FullText {}
}

/// A value index definition: queries that compare its first expression with a constant read
/// the index instead of every document.
public typealias ValueIndex = IndexOf<IndexKind.Value>

/// A full-text index definition: its properties, language (stemming and stop words) and
/// whether accents matter.
public typealias FullTextIndex = IndexOf<IndexKind.FullText>

/// Makes index definitions.
public enum IndexBuilder {
    /// A value index on these items.
    public static func valueIndex(items: ValueIndexItem...) -> ValueIndex { Index.valueIndex(withItems: items) }
    /// A full-text index on these items.
    public static func fullTextIndex(items: FullTextIndexItem...) -> FullTextIndex { Index.fullTextIndex(withItems: items) }
}

/// One expression a value index orders documents by.
public struct ValueIndexItem: Sendable {
    let expression: ExpressionProtocol
    /// A property, by key path.
    public static func property(_ property: String) -> ValueIndexItem { ValueIndexItem(expression: Expression.property(property)) }
    /// Any expression.
    public static func expression(_ expression: ExpressionProtocol) -> ValueIndexItem { ValueIndexItem(expression: expression) }
}

/// One property a full-text index indexes.
public struct FullTextIndexItem: Sendable {
    let property: String
    /// A property, by key path.
    public static func property(_ property: String) -> FullTextIndexItem { FullTextIndexItem(property: property) }
}

extension IndexOf where Kind == IndexKind.Value {
    var items: [ValueIndexItem] {
        guard case .value(let items) = definition else { return [] }
        return items
    }

    /// The definition in Couchbase Lite's JSON syntax (an array of expressions).
    var json: String { QueryNode.array(items.map(\.expression.queryNode)).json }
}

extension IndexOf where Kind == IndexKind.FullText {
    var items: [FullTextIndexItem] {
        guard case .fullText(let items, _) = definition else { return [] }
        return items
    }

    /// The language whose stemming and stop words apply (ISO code or name such as `"en"`,
    /// `"french"`: danish, dutch, english, finnish, french, german, hungarian, italian,
    /// norwegian, portuguese, romanian, russian, spanish, swedish, turkish); nil for none.
    /// Default: the device's language, when it is one of those. Creating the index with any
    /// other language fails with `.invalidParameter`.
    @discardableResult
    public func language(_ language: String?) -> FullTextIndex {
        withSettings {
            $0.language = language
            $0.languageIsChosen = true
        }
        return self
    }

    /// Whether letters with and without accents match each other. Default: false.
    @discardableResult
    public func ignoreAccents(_ ignoreAccents: Bool) -> FullTextIndex {
        withSettings { $0.ignoreAccents = ignoreAccents }
        return self
    }

    var languageSetting: String? { withSettings { $0.language } }
    /// Whether `language(_:)` set the language (else it is the device's, which may have no stemmer).
    var languageIsChosen: Bool { withSettings { $0.languageIsChosen } }
    var ignoresAccents: Bool { withSettings { $0.ignoreAccents } }

    private func withSettings<Result>(_ body: (inout FullTextSettings) -> Result) -> Result {
        guard case .fullText(_, let settings) = definition else {
            var unused = FullTextSettings()
            return body(&unused)
        }
        return settings.withLock(body)
    }
}
