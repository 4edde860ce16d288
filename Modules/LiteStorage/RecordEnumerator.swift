/// A cursor over records, pulled one at a time; see ``StorageCursor`` for the resource rules.
package typealias RecordEnumerator = StorageCursor<Record>
