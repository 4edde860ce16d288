import FoundationEssentials
import LiteSupport

/// Reads a SQLite `-wal` file without SQLite, to see committed pages that are not yet in the
/// main database file.
///
/// Detection must not open the original database with SQLite (that would create a `-shm` file
/// beside it), yet a database whose schema version was set after it entered WAL mode has its
/// real page 1 only in the WAL. Format: SQLite file-format document §4.1 — a 32-byte header,
/// then frames of a 24-byte header plus one page; a frame counts only while its salts match the
/// header's and its cumulative checksum is right, and only up to the last commit frame.
struct SQLiteWriteAheadLog {
    private static let headerLength = 32
    private static let frameHeaderLength = 24

    /// The newest committed copy of page `pageNumber` in the WAL at `path`, or `nil` when the
    /// file is missing, empty, invalid, or holds no committed copy of that page.
    static func latestCommittedPage(_ pageNumber: UInt32, walPath path: String) -> [UInt8]? {
        guard let file = ReadOnlyFile(path: path) else { return nil }
        guard let headerData = file.read(upToCount: headerLength),
              headerData.count == headerLength else { return nil }
        let header = Array(headerData)
        let magic = uint32(header, 0)
        guard magic == 0x377F_0682 || magic == 0x377F_0683 else { return nil }
        let bigEndianWords = magic & 1 == 1
        let pageSize = Int(uint32(header, 8))
        guard pageSize >= 512, pageSize <= 65_536, pageSize & (pageSize - 1) == 0 else { return nil }
        var checksum = Checksum(bigEndianWords: bigEndianWords)
        checksum.add(header[0..<24])
        guard checksum.s0 == uint32(header, 24), checksum.s1 == uint32(header, 28) else { return nil }
        let salts = header[16..<24]

        var committed: [UInt8]?
        var pending: [UInt8]?
        while let frameData = file.read(upToCount: frameHeaderLength + pageSize),
              frameData.count == frameHeaderLength + pageSize {
            let frame = Array(frameData)
            guard frame[8..<16] == salts else { break }
            checksum.add(frame[0..<8])
            checksum.add(frame[frameHeaderLength...])
            guard checksum.s0 == uint32(frame, 16), checksum.s1 == uint32(frame, 20) else { break }
            if uint32(frame, 0) == pageNumber { pending = Array(frame[frameHeaderLength...]) }
            // A non-zero "database size after commit" marks the last frame of a transaction.
            if uint32(frame, 4) != 0, let page = pending {
                committed = page
                pending = nil
            }
        }
        return committed
    }

    private static func uint32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// The WAL's running Fibonacci-weighted checksum over pairs of 32-bit words.
    private struct Checksum {
        let bigEndianWords: Bool
        var s0: UInt32 = 0
        var s1: UInt32 = 0

        mutating func add(_ bytes: ArraySlice<UInt8>) {
            var index = bytes.startIndex
            while index + 8 <= bytes.endIndex {
                s0 = s0 &+ word(bytes, index) &+ s1
                s1 = s1 &+ word(bytes, index + 4) &+ s0
                index += 8
            }
        }

        private func word(_ bytes: ArraySlice<UInt8>, _ offset: Int) -> UInt32 {
            let b0 = UInt32(bytes[offset]), b1 = UInt32(bytes[offset + 1])
            let b2 = UInt32(bytes[offset + 2]), b3 = UInt32(bytes[offset + 3])
            return bigEndianWords
                ? b0 << 24 | b1 << 16 | b2 << 8 | b3
                : b3 << 24 | b2 << 16 | b1 << 8 | b0
        }
    }
}
