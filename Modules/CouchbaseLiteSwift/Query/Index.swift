import Foundation

/// An index definition for ``Database/createIndex(_:withName:)``: a value index or a full-text
/// index. The 2.0 guide's spelling (`Index.valueIndex(withItems:)`) and the later
/// ``IndexBuilder`` both make them.
///
/// ```swift
/// try database.createIndex(IndexBuilder.fullTextIndex(items: FullTextIndexItem.property("name")),
///                          withName: "nameFTS")
/// ```
public class Index: @unchecked Sendable {
    // @unchecked: subclasses keep their settings behind a lock.
    init() {}

    /// A value index on these items (2.0 spelling).
    public static func valueIndex(withItems items: [ValueIndexItem]) -> ValueIndex { ValueIndex(items: items) }

    /// A full-text index on these items (2.0 spelling).
    public static func fullTextIndex(withItems items: [FullTextIndexItem]) -> FullTextIndex { FullTextIndex(items: items) }
}

/// Makes index definitions.
public enum IndexBuilder {
    /// A value index on these items.
    public static func valueIndex(items: ValueIndexItem...) -> ValueIndex { ValueIndex(items: items) }
    /// A full-text index on these items.
    public static func fullTextIndex(items: FullTextIndexItem...) -> FullTextIndex { FullTextIndex(items: items) }
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

/// A value index definition: queries that compare its first expression with a constant read
/// the index instead of every document.
public final class ValueIndex: Index, @unchecked Sendable {
    let items: [ValueIndexItem]
    init(items: [ValueIndexItem]) {
        self.items = items
        super.init()
    }

    /// The definition in Couchbase Lite's JSON syntax (an array of expressions).
    var json: String { QueryNode.array(items.map(\.expression.queryNode)).json }
}

/// A full-text index definition: its properties, language (stemming and stop words) and
/// whether accents matter.
public final class FullTextIndex: Index, @unchecked Sendable {
    let items: [FullTextIndexItem]
    private let settings: LockedSettings

    private final class LockedSettings: @unchecked Sendable {
        private let lock = NSLock()
        private var language: String? = Locale.current.language.languageCode?.identifier
        private var languageIsChosen = false
        private var ignoreAccents = false
        func get() -> (String?, Bool) { lock.withLock { (language, ignoreAccents) } }
        func chosen() -> Bool { lock.withLock { languageIsChosen } }
        func set(language value: String?) {
            lock.withLock {
                language = value
                languageIsChosen = true
            }
        }
        func set(ignoreAccents value: Bool) { lock.withLock { ignoreAccents = value } }
    }

    init(items: [FullTextIndexItem]) {
        self.items = items
        settings = LockedSettings()
        super.init()
    }

    /// The language whose stemming and stop words apply (ISO code or name such as `"en"`,
    /// `"french"`: danish, dutch, english, finnish, french, german, hungarian, italian,
    /// norwegian, portuguese, romanian, russian, spanish, swedish, turkish); nil for none.
    /// Default: the device's language, when it is one of those. Creating the index with any
    /// other language fails with `.invalidParameter`.
    @discardableResult
    public func language(_ language: String?) -> FullTextIndex {
        settings.set(language: language)
        return self
    }

    /// Whether letters with and without accents match each other. Default: false.
    @discardableResult
    public func ignoreAccents(_ ignoreAccents: Bool) -> FullTextIndex {
        settings.set(ignoreAccents: ignoreAccents)
        return self
    }

    var languageSetting: String? { settings.get().0 }
    /// Whether `language(_:)` set the language (else it is the device's, which may have no stemmer).
    var languageIsChosen: Bool { settings.chosen() }
    var ignoresAccents: Bool { settings.get().1 }
}
