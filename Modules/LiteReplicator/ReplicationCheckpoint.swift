import Foundation

/// How far a replication got, as Couchbase Lite 2.x stores it on both sides: the last local
/// sequence everything up to which was pushed, and the peer's last sequence everything up to
/// which was pulled (an opaque JSON value: Sync Gateway's sequences are not always numbers).
///
/// JSON form: `{"time": <unix seconds>, "local": 50, "remote": 50}`; absent members are zero or
/// none.
package struct ReplicationCheckpoint: Sendable, Equatable {
    /// Every local change up to this sequence was pushed (or deliberately skipped).
    package var local: UInt64 = 0
    /// Every peer change up to this sequence was pulled; the JSON text of the peer's value.
    package var remote: String?

    package init(local: UInt64 = 0, remote: String? = nil) {
        self.local = local
        self.remote = remote
    }

    /// Reads the JSON form; anything unreadable is a checkpoint at the start (the worst case is
    /// sending what the peer already has, which it answers with "already have").
    package init(json bytes: [UInt8]) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]),  // allowed: unreadable = start over
              let dictionary = object as? [String: Any] else { return }
        if let number = dictionary["local"] as? NSNumber, number.int64Value > 0 {
            local = number.uint64Value
        }
        if let remote = dictionary["remote"], !(remote is NSNull) {
            self.remote = MessageJSON.encode(remote)
        }
    }

    /// The JSON form, stamped with the current time as LiteCore does.
    package func json(now: Date = Date()) -> [UInt8] {
        var text = "{\"time\":\(Int(now.timeIntervalSince1970))"
        if local > 0 { text += ",\"local\":\(local)" }
        if let remote { text += ",\"remote\":\(remote)" }
        text += "}"
        return Array(text.utf8)
    }
}
