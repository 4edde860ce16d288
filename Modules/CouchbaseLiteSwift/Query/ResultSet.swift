import Foundation
import LiteQuery
import LiteSupport

/// The rows a query returned, read one at a time (`for result in resultSet`) or all at once.
///
/// ```swift
/// for result in try query.execute() {
///     print(result.string(forKey: "name") ?? "", result.int(at: 1))  // allowed: the caller's code in a doc example
/// }
/// ```
public final class ResultSet: Sequence, IteratorProtocol, Sendable {
    private let columnNames: [String]
    // Behind a lock so that a live query's results can be handed to its listener's queue.
    private let rows: Locked<IndexingIterator<[[QueryValue]]>>

    init(columnNames: [String], rows: [[QueryValue]]) {
        self.columnNames = columnNames
        self.rows = Locked(rows.makeIterator())
    }

    /// The next row, or nil after the last.
    public func next() -> Result? {
        rows.withLock { $0.next() }.map { Result(columnNames: columnNames, values: $0) }
    }

    /// Every remaining row.
    public func allResults() -> [Result] {
        // One lock for all of them, not one a row.
        rows.withLock { iterator in
            var results: [Result] = []
            results.reserveCapacity(iterator.underestimatedCount)
            while let values = iterator.next() { results.append(Result(columnNames: columnNames, values: values)) }
            return results
        }
    }
}

/// One row of a query's results: its columns by index (`string(at: 0)`) or by name
/// (`string(forKey: "name")`); a column whose value is MISSING is left out of ``keys`` and
/// ``toDictionary()``.
public final class Result: ArrayProtocol, DictionaryProtocol {
    private let columnNames: [String]
    private let values: [QueryValue]

    init(columnNames: [String], values: [QueryValue]) {
        self.columnNames = columnNames
        self.values = values
    }

    /// The number of columns.
    public var count: Int { values.count }

    /// The names of the columns that have a value (not MISSING), in order.
    public var keys: [String] {
        zip(columnNames, values).filter { $0.1 != .missing }.map(\.0)
    }

    /// The value of column `index` (nil for MISSING, NULL or out of range).
    public func value(at index: Int) -> Any? {
        guard values.indices.contains(index) else { return nil }
        return Self.publicValue(values[index])
    }

    /// The value of the column named `key`.
    public func value(forKey key: String) -> Any? {
        guard let index = columnNames.firstIndex(of: key) else { return nil }
        return value(at: index)
    }

    /// Whether a column named `key` has a value (not MISSING).
    public func contains(key: String) -> Bool { keys.contains(key) }

    /// The array in column `index` (nil if it holds none).
    public func array(at index: Int) -> ArrayObject? { value(at: index) as? ArrayObject }

    /// The dictionary in column `index` (nil if it holds none).
    public func dictionary(at index: Int) -> DictionaryObject? { value(at: index) as? DictionaryObject }

    /// The array in the column named `key`, as the guide reads `public_likes`.
    public func array(forKey key: String) -> ArrayObject? { value(forKey: key) as? ArrayObject }

    /// The dictionary in the column named `key`, as the guide reads `SelectResult.all()`'s
    /// document under the database's name.
    public func dictionary(forKey key: String) -> DictionaryObject? { value(forKey: key) as? DictionaryObject }

    /// The columns as an array (MISSING and NULL as `NSNull`).
    public func toArray() -> [Any] { values.map { ValueConversion.plain(Self.publicValue($0) ?? NSNull()) } }

    /// The columns that have a value, by name (NULL as `NSNull`).
    public func toDictionary() -> [String: Any] {
        var result: [String: Any] = [:]
        for (name, value) in zip(columnNames, values) where value != .missing {
            result[name] = ValueConversion.plain(Self.publicValue(value) ?? NSNull())
        }
        return result
    }

    /// The public API's value for a query value: strings, numbers, booleans, `NSNull`, and
    /// arrays and dictionaries as ``ArrayObject`` / ``DictionaryObject``.
    static func publicValue(_ value: QueryValue) -> Any? {
        switch value {
        case .missing: return nil
        case .null: return NSNull()
        case .bool(let flag): return flag
        case .int(let number): return number
        case .double(let number): return number
        case .string(let text): return text
        case .array(let items): return MutableArrayObject(data: items.map { publicValue($0) ?? NSNull() })
        case .dictionary(let entries):
            return MutableDictionaryObject(data: entries.compactMapValues { $0 == .missing ? nil : (publicValue($0) ?? NSNull()) })
        }
    }
}

extension ResultSet {
    /// A result set with no rows.
    public static var empty: ResultSet { ResultSet(columnNames: [], rows: []) }
}
