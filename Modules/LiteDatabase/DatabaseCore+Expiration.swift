import Foundation
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
        let exists = try inTransaction {
            try DatabaseError.mapping("setting the expiration of \"\(id)\"") {
                try documents.setExpiration(id, to: milliseconds)
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
        return try inTransaction {
            let expired = try DatabaseError.mapping("finding expired documents") { try documents.expiredKeys(at: now) }
            var purged = 0
            for id in expired where try purgeDocument(id: id) { purged += 1 }
            return purged
        }
    }

    /// Arms the housekeeping timer for the next expiration (or disarms it when there is none).
    package func scheduleExpiration() {
        guard isOpen, let next = try? documents.nextExpiration() else {
            replaceExpirationTimer(with: nil)
            return
        }
        let delay = max(0, next - Self.nowMilliseconds())
        replaceExpirationTimer(with: ExpirationTimer(queue: housekeepingQueue, after: delay) { [weak self] in
            guard let self, self.isOpen else { return }
            _ = try? self.purgeExpiredDocuments()
            self.scheduleExpiration()
        })
    }
}
