import FoundationEssentials
import LiteStorage

extension DatabaseCore {
    /// Milliseconds since the Unix epoch, the unit expirations are stored in.
    package static func nowMilliseconds() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded())
    }

    /// Sets (or with nil clears) when a document expires, in milliseconds since the Unix epoch.
    ///
    /// - Throws: `.notFound` when the document does not exist.
    package func setExpiration(id: String, to milliseconds: Int64?) throws {
        let exists = try inTransaction { txn in
            try DatabaseError.mapping("setting the expiration of \"\(id)\"") {
                try documents.setExpiration(id, to: milliseconds, in: txn)
            }
        }
        guard exists else {
            throw DatabaseError(.notFound, "cannot set the expiration of \"\(id)\": no such document")
        }
        scheduleExpiration()
    }

    /// When a document expires, in milliseconds since the Unix epoch; nil for never.
    package func expiration(id: String) throws -> Int64? {
        try checkOpen()
        return try DatabaseError.mapping("reading the expiration of \"\(id)\"") { try documents.expiration(of: id) }
    }

    /// Purges every document whose expiration has passed. Returns how many were purged.
    @discardableResult
    package func purgeExpiredDocuments() throws -> Int {
        let now = Self.nowMilliseconds()
        return try inTransaction { _ in
            let expired = try DatabaseError.mapping("finding expired documents") { try documents.expiredKeys(at: now) }
            var purged = 0
            for id in expired where try purgeDocument(id: id) { purged += 1 }
            return purged
        }
    }

    /// Arms the housekeeping timer for the next expiration (or disarms it when there is none).
    ///
    /// A failure to read or purge is logged and retried after a delay that doubles up to a
    /// minute, never at once: an expired document that cannot be purged must not turn the timer
    /// into a busy loop.
    package func scheduleExpiration() {
        guard isOpen else {
            replaceExpirationTimer(with: nil)
            return
        }
        let delay: Int64
        do {
            guard let next = try documents.nextExpiration() else {
                replaceExpirationTimer(with: nil)
                return
            }
            delay = max(next - Self.nowMilliseconds(), expirationRetryDelay(), 0)
        } catch {
            DatabaseLog.error("database \"\(bundle.name)\": cannot read the next document expiration: \(error)")
            delay = noteExpirationFailure()
        }
        replaceExpirationTimer(with: ExpirationTimer(queue: housekeepingQueue, after: delay) { [weak self] in
            guard let self, self.isOpen else { return }
            do {
                try self.purgeExpiredDocuments()
                self.noteExpirationSuccess()
            } catch {
                DatabaseLog.error("database \"\(self.bundle.name)\": cannot purge expired documents: \(error)")
                _ = self.noteExpirationFailure()
            }
            self.scheduleExpiration()
        })
    }
}
