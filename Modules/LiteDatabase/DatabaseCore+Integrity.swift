import BlobStore
import Fleece
import LiteStorage

extension DatabaseCore {
    /// Checks everything the database stores and returns each problem found as a sentence
    /// naming the document, revision or blob (empty: nothing wrong). It reads one consistent
    /// snapshot and changes nothing:
    ///
    /// - the storage engine's own check (SQLite pages and indexes, RocksDB block checksums);
    /// - every document's revision tree decodes, and its record's version is its current
    ///   revision;
    /// - every kept revision body is valid Fleece whose keys the shared-key table knows;
    /// - every blob a kept revision refers to is in the blob store.
    package func checkIntegrity() throws -> [String] {
        try checkOpen()
        var problems = try DatabaseError.mapping("checking the storage of \"\(bundle.name)\"") {
            try dataFile.checkIntegrity()
        }
        persistedKeys.refresh(info: info)   // another process may have added keys
        let keyCount = sharedKeys.count
        try DatabaseError.mapping("checking the documents of \"\(bundle.name)\"") {
            try dataFile.withReadSnapshot {
                let enumerator = try documents.enumerate(startKey: nil, endKey: nil,
                                                         options: RecordEnumerationOptions(includeDeleted: true))
                while let record = try enumerator.next() {
                    problems += try checkDocument(record, sharedKeyCount: keyCount)
                }
            }
        }
        return problems
    }

    private func checkDocument(_ record: Record, sharedKeyCount: Int) throws -> [String] {
        let document: StoredDocument
        do {
            document = try StoredDocument(record: record)
        } catch {
            return ["document \"\(record.key)\": its revision tree cannot be read (\(error))"]
        }
        var problems: [String] = []
        if let current = document.revisionID, current.binary != record.version {
            problems.append("document \"\(record.key)\": the record says revision "
                            + "\((try? RevisionID(binary: record.version))?.string ?? "?") but the tree's current one is \(current.string)")  // allowed: only the message's wording; the mismatch is reported either way
        }
        try forEachRevisionBody(of: document, ifUnreadable: { revision, error in
            problems.append("document \"\(record.key)\": the body of revision \(revision.id.string) is not valid Fleece (\(error))")
        }) { revision, fleece in
            if let unknown = Self.unknownSharedKey(in: fleece.root, count: sharedKeyCount) {
                problems.append("document \"\(record.key)\": revision \(revision.id.string) uses shared key \(unknown), "
                                + "which the shared-key table (\(sharedKeyCount) keys) does not have")
            }
            for blob in BlobReferences.blobDictionaries(fleece.root) {
                guard let digest = blob["digest"]?.string else {
                    problems.append("document \"\(record.key)\": revision \(revision.id.string) has a blob without a digest")
                    continue
                }
                guard let key = try? BlobKey(digest) else {  // allowed: an invalid digest is reported just below
                    problems.append("document \"\(record.key)\": revision \(revision.id.string) refers to a blob with "
                                    + "an invalid digest \"\(digest)\"")
                    continue
                }
                if !blobStore.contains(key) {
                    problems.append("document \"\(record.key)\": revision \(revision.id.string) refers to blob "
                                    + "\(digest), which is missing from the blob store")
                }
            }
        }
        return problems
    }

    /// The first integer dictionary key at or above `count` in `value`, if any.
    private static func unknownSharedKey(in value: FleeceValue, count: Int) -> Int? {
        if let dictionary = value.dictionary {
            for index in 0..<dictionary.count {
                guard let (key, child) = dictionary.entryValues(at: index) else { continue }
                if key.string == nil, key.int64 >= count { return Int(key.int64) }
                if let found = unknownSharedKey(in: child, count: count) { return found }
            }
        } else if let array = value.array {
            for child in array {
                if let found = unknownSharedKey(in: child, count: count) { return found }
            }
        }
        return nil
    }
}
