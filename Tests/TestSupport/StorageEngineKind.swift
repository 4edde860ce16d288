/// The storage engines every storage, document, query and replication behaviour runs against.
///
/// Parameterise a test over `StorageEngineKind.allCases` so that one body runs once per engine:
///
/// ```swift
/// @Test(arguments: StorageEngineKind.allCases)
/// func savedDocumentReadsBack(engine: StorageEngineKind) throws { … }
/// ```
public enum StorageEngineKind: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite
    case rocksdb

    public var description: String { rawValue }
}
