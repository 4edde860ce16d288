import FoundationEssentials
import SQLiteStorage

extension LegacyDatabaseReader {
    /// Reads the document with 1.x row key `key`: its winning revision, history and attachments;
    /// `nil` when it has no leaf revision.
    func readDocument(key: Int64, id: String) throws -> LegacyDocument? {
                let winner: (sequence: Int64, revID: [UInt8], parent: Int64?, deleted: Bool, json: [UInt8],
                     hasAttachments: Bool)?
        winner = try readFailure(while: "reading document \"\(id)\"", documentID: id) {
            let statement = try winningRevision()
            statement.reset()
            defer { statement.reset() }
            statement.bind(1, key)
            guard try statement.step() else { return nil }
            return (statement.int64(0), statement.bytes(1),
                    statement.isNull(2) ? nil : statement.int64(2),
                    statement.int64(3) != 0, statement.bytes(4), statement.int64(5) == 0)
        }
        guard let winner else { return nil }

        var history = [try revisionID(winner.revID, documentID: id)]
        var visited: Set<Int64> = [winner.sequence]
        var nextSequence = winner.parent
        while let sequence = nextSequence {
            guard visited.insert(sequence).inserted else {
                throw invalid(.corrupt, "its revision history loops back to sequence \(sequence)", id)
            }
            let parent: (revID: [UInt8], parent: Int64?, docKey: Int64)? =
                try readFailure(while: "reading document \"\(id)\"", documentID: id) {
                    let statement = try revisionBySequence()
                    statement.reset()
                    defer { statement.reset() }
                    statement.bind(1, sequence)
                    guard try statement.step() else { return nil }
                    return (statement.bytes(0), statement.isNull(1) ? nil : statement.int64(1),
                            statement.int64(2))
                }
            // A parent pruned by 1.x compaction ends the history (its row is gone or was
            // unlinked with ON DELETE SET NULL).
            guard let parent else { break }
            guard parent.docKey == key else {
                throw invalid(.corrupt, "its revision history points into another document", id)
            }
            let revisionID = try revisionID(parent.revID, documentID: id)
            guard let child = history.last, revisionID.generation < child.generation else {
                throw invalid(.corrupt, "revision \(revisionID) is listed as a parent of "
                    + "\(history.last?.string ?? "?") but is not an older generation", id)
            }
            history.append(revisionID)
            nextSequence = parent.parent
        }

        let body = try validatedBody(winner.json, isDeleted: winner.deleted, revisionID: history[0],
                                     documentID: id)
        return LegacyDocument(id: id, sequence: winner.sequence, isDeleted: winner.deleted,
                              body: body.bytes, hasAttachments: winner.hasAttachments,
                              history: history, attachments: attachments(in: body.shape))
    }

    private func revisionID(_ text: [UInt8], documentID: String) throws -> LegacyRevisionID {
        guard let revisionID = LegacyRevisionID(utf8: text) else {
            throw invalid(.invalidRevisionID,
                "its revision ID \"\(String(decoding: text, as: UTF8.self))\" is not "
                + "<generation>-<lowercase hex digest> (even number of hex digits)", documentID)
        }
        return revisionID
    }

    /// The body bytes to migrate, checked to be a JSON object, with its attachment stubs.
    private func validatedBody(_ json: [UInt8], isDeleted: Bool, revisionID: LegacyRevisionID,
                               documentID: String) throws -> (bytes: [UInt8], shape: LegacyBodyShape) {
        if json.isEmpty {
            // 1.x may store a tombstone without a body; a live revision without one lost its data.
            guard isDeleted else {
                throw invalid(.invalidBody, "its current revision \(revisionID) has no body "
                    + "(NULL json in the revs table)", documentID)
            }
            return (Array("{}".utf8), LegacyBodyShape(attachments: []))
        }
        switch JSONValidator.validateObject(json, locatingMember: "_attachments") {
        case .failure(let failure):
            throw invalid(.invalidBody, "the body of revision \(revisionID) is not a JSON object "
                + "(\(failure))", documentID, underlying: failure)
        case .success(let attachmentsRange):
            let member = attachmentsRange.flatMap { JSONValue.parse(json, range: $0) }
            return (json, LegacyBodyShape(attachmentsMember: member))
        }
    }

    /// The `_attachments` stubs of a body, each located in the bundle's `attachments/` folder.
    private func attachments(in body: LegacyBodyShape) -> [LegacyAttachment] {
        body.attachments.map { stub in
            let sha1 = stub.digest.flatMap(LegacyAttachment.sha1(fromDigest:))
            let fileName = sha1.map(LegacyAttachment.blobFileName(sha1:))
            return LegacyAttachment(
                name: stub.name, digest: stub.digest, length: stub.length, contentType: stub.contentType,
                sha1: sha1, fileName: fileName, isFilePresent: fileName.map(blobFileNames.contains) ?? false,
                attachmentsFolder: attachmentsFolder)
        }
    }

    private func invalid(_ code: UpgraderError.Code, _ problem: String, _ documentID: String,
                         underlying: (any Error)? = nil) -> UpgraderError {
        UpgraderError(code,
            "document \"\(documentID)\" in 1.x database \(bundleURL.path) cannot be upgraded: \(problem)",
            path: bundleURL.path, documentID: documentID, schemaVersion: nil, underlying: underlying)
    }
}
