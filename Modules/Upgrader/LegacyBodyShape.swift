/// The parts of a 1.x body the reader needs beyond its bytes: its `_attachments` stubs.
struct LegacyBodyShape {
    /// One `_attachments` entry, as much of it as is well-formed.
    struct Stub {
        let name: String
        let digest: String?
        let length: Int?
        let contentType: String?
    }

    /// The entries of `_attachments` that are objects, sorted by name. Entries of other types,
    /// and an `_attachments` that is not an object, are ignored as LiteCore ignores them.
    let attachments: [Stub]

    /// A shape with the given stubs (a tombstone stored without a body has none).
    init(attachments: [Stub]) {
        self.attachments = attachments
    }

    /// The stubs in the value of a body's `_attachments` member (`nil` when it has none).
    init(attachmentsMember member: JSONValue?) {
        guard case .object(let entries)? = member else {
            attachments = []
            return
        }
        attachments = entries.keys.sorted().compactMap { name -> Stub? in
            guard let meta = entries[name], case .object = meta else { return nil }
            // Some writers spelled the MIME type key `content-type`.
            return Stub(name: name, digest: meta["digest"]?.string, length: meta["length"]?.integer,
                        contentType: meta["content_type"]?.string ?? meta["content-type"]?.string)
        }
    }
}
