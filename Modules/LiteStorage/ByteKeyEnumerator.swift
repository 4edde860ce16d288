/// A cursor over byte-key entries, pulled one at a time; see ``StorageCursor`` for the
/// resource rules.
package typealias ByteKeyEnumerator = StorageCursor<ByteKeyEntry>
