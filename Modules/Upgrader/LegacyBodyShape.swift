/// The parts of a 1.x body the reader needs: its `_attachments` stubs.
///
/// Decoding with `JSONDecoder` also checks the whole body: the decoder scans all of the input
/// (rejecting bad syntax, invalid UTF-8 and trailing bytes) and a top level that is not an
/// object fails the keyed container. It is several times cheaper than `JSONSerialization`, which
/// would build an object graph only to be thrown away.
struct LegacyBodyShape: Decodable {
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

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.init(stringValue) }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let body = try decoder.container(keyedBy: Key.self)
        guard let entries = try? body.nestedContainer(keyedBy: Key.self, forKey: Key("_attachments")) else {
            attachments = []
            return
        }
        attachments = entries.allKeys.compactMap { key -> Stub? in
            guard let meta = try? entries.nestedContainer(keyedBy: Key.self, forKey: key) else { return nil }
            func string(_ name: String) -> String? { try? meta.decodeIfPresent(String.self, forKey: Key(name)) }
            let length = (try? meta.decodeIfPresent(Int.self, forKey: Key("length")))
                ?? (try? meta.decodeIfPresent(Double.self, forKey: Key("length"))).flatMap { Int(exactly: $0) }
            return Stub(name: key.stringValue, digest: string("digest"), length: length,
                        contentType: string("content_type") ?? string("content-type"))
        }.sorted { $0.name < $1.name }
    }
}

extension LegacyBodyShape {
    /// A shape with the given stubs (a tombstone stored without a body has none).
    init(attachments: [Stub]) {
        self.attachments = attachments
    }
}
