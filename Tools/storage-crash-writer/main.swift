// storage-crash-writer ENGINE PATH [KEY]
//
// KEY (64 hex digits) makes the data file encrypted at rest with that key.
// Writes transactions into the data file at PATH until it is killed, for the crash-safety test.
// Transaction n stores records "t<n>-0" … "t<n>-<perTransaction-1>" (bodies from
// `CrashWorkload.body`) and sets "counter" to n, then prints "committed n". A reader can then
// check that every transaction up to "counter" is complete and no later one left anything.
import Foundation
import LiteStorage
import LiteSupport
import RocksDBStorage
import SQLiteStorage

/// The workload the writer runs and the test checks.
enum CrashWorkload {
    static let perTransaction = 50

    static func key(_ transaction: Int, _ index: Int) -> String { "t\(transaction)-\(index)" }

    static func body(_ transaction: Int, _ index: Int) -> [UInt8] {
        let length = 200 + (transaction * 131 + index * 17) % 1800
        return (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ transaction &+ index) }
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("storage-crash-writer: \(message)\n".utf8))
    exit(2)
}

let arguments = CommandLine.arguments
guard arguments.count == 3 || arguments.count == 4 else { fail("usage: storage-crash-writer sqlite|rocksdb PATH [KEY]") }
var key: AES256Key?
if arguments.count == 4 {
    let digits = Array(arguments[3].utf8)
    let bytes = stride(from: 0, to: digits.count - 1, by: 2).compactMap { UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16) }
    guard bytes.count * 2 == digits.count, let parsed = AES256Key(bytes: bytes) else { fail("KEY must be 64 hex digits") }
    key = parsed
}
let engine: any StorageEngine
switch arguments[1] {
case "sqlite": engine = SQLiteEngine()
case "rocksdb": engine = RocksDBEngine()
default: fail("unknown engine \(arguments[1])")
}

do {
    let file = try engine.open(at: arguments[2], options: DataFileOptions(create: true, encryptionKey: key))
    let store = try file.keyStore("default")
    var transaction = Int(String(decoding: try store.get("counter")?.body ?? [], as: UTF8.self)) ?? 0
    while true {
        transaction += 1
        let number = transaction
        try file.write { txn in
            for index in 0..<CrashWorkload.perTransaction {
                try store.set(Record(key: CrashWorkload.key(number, index), version: [1],
                                     body: CrashWorkload.body(number, index)), ifSequence: 0, in: txn)
            }
            try store.set(Record(key: "counter", body: Array(String(number).utf8)), ifSequence: nil, in: txn)
        }
        // Unbuffered: the line must be out before the next transaction starts.
        FileHandle.standardOutput.write(Data("committed \(number)\n".utf8))
        // A breath between transactions, as any real writer has. Another process waiting for
        // SQLite's write lock polls for it between sleeps (its busy handler); a writer that
        // takes the lock again microseconds after releasing it left that process no gap to
        // find in its 10 s, and the two-writer test failed about half the time.
        usleep(1_000)
    }
} catch {
    fail("\(error)")
}
