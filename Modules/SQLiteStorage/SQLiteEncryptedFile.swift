import CSQLite

/// One file SQLite opened through the encrypting VFS: the database, its WAL or its rollback
/// journal. It turns SQLite's reads and writes of plaintext into reads and writes of sealed
/// units on the file underneath (the default VFS's file, `real`). Formats: docs/security.md.
///
/// Invariant: used by one connection, on one thread at a time (SQLite's own rule for a
/// `sqlite3_file`), so it needs no lock.
final class SQLiteEncryptedFile {
    /// Which of the database's files this is.
    enum Kind {
        /// The database file: every page sealed, page 1 after its clear 24-byte prefix.
        case database
        /// The WAL: the 32-byte header in clear, each frame (header and page) sealed as one unit.
        case wal
        /// A rollback journal: page images sealed, its headers and record numbers in clear.
        case journal
    }

    /// The first 16 bytes of an encrypted database, in place of "SQLite format 3\0".
    static let magic: [UInt8] = Array("CBLiteAESGCM-v1\0".utf8)
    /// The first 16 bytes of a plaintext SQLite database.
    static let sqliteMagic: [UInt8] = Array("SQLite format 3\0".utf8)
    /// Bytes at the start of page 1 left in clear (magic, then SQLite's page size, format
    /// versions, reserved-byte count and payload fractions), authenticated with the page.
    static let clearPrefix = 24
    /// The WAL header's size; frames follow it.
    static let walHeaderSize = 32
    /// A WAL frame header's size.
    static let frameHeaderSize = 24

    let kind: Kind
    let cipher: SQLitePageCipher
    /// The default VFS's file, inside the same allocation as SQLite's `sqlite3_file`.
    let real: UnsafeMutablePointer<sqlite3_file>
    /// The page size, once known (from a write, or the file's clear header).
    private var pageSize = 0
    /// A WAL frame header SQLite wrote and whose page it writes next (SQLite writes the two
    /// separately; they are sealed together).
    private var pendingHeader: (offset: Int64, bytes: [UInt8])?
    /// The WAL frame the previous call read whole, decrypted: SQLite rewrites a frame's
    /// header (its checksums) right after reading the frame.
    private var lastFrame: (offset: Int64, plain: [UInt8])?

    init(kind: Kind, cipher: SQLitePageCipher, real: UnsafeMutablePointer<sqlite3_file>) {
        self.kind = kind
        self.cipher = cipher
        self.real = real
    }

    // MARK: The file underneath

    private func rawRead(_ buffer: UnsafeMutableRawBufferPointer, _ offset: Int64) -> Int32 {
        guard let read = real.pointee.pMethods?.pointee.xRead, let base = buffer.baseAddress else { return SQLITE_IOERR_READ }
        return read(real, base, Int32(buffer.count), offset)
    }

    private func rawRead(_ buffer: UnsafeMutableRawPointer, _ count: Int, _ offset: Int64) -> Int32 {
        rawRead(UnsafeMutableRawBufferPointer(start: buffer, count: count), offset)
    }

    private func rawWrite(_ buffer: UnsafeRawBufferPointer, _ offset: Int64) -> Int32 {
        guard let write = real.pointee.pMethods?.pointee.xWrite, let base = buffer.baseAddress else { return SQLITE_IOERR_WRITE }
        return write(real, base, Int32(buffer.count), offset)
    }

    private func rawWrite(_ buffer: UnsafeRawPointer, _ count: Int, _ offset: Int64) -> Int32 {
        rawWrite(UnsafeRawBufferPointer(start: buffer, count: count), offset)
    }

    private static func isPageSize(_ size: Int) -> Bool {
        size >= 512 && size <= 65_536 && size & (size - 1) == 0
    }

    private static func bigEndian16(_ bytes: [UInt8], _ at: Int) -> Int { Int(bytes[at]) << 8 | Int(bytes[at + 1]) }
    private static func bigEndian32(_ bytes: [UInt8], _ at: Int) -> Int {
        Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
    }

    // MARK: SQLite's calls

    /// `xRead`.
    func read(_ buffer: UnsafeMutableRawPointer, _ count: Int, _ offset: Int64) -> Int32 {
        switch kind {
        case .database: return readDatabase(buffer, count, offset)
        case .wal: return readWAL(buffer, count, offset)
        case .journal: return readJournal(buffer, count, offset)
        }
    }

    /// `xWrite`.
    func write(_ buffer: UnsafeRawPointer, _ count: Int, _ offset: Int64) -> Int32 {
        switch kind {
        case .database: return writeDatabase(buffer, count, offset)
        case .wal: return writeWAL(buffer, count, offset)
        case .journal: return writeJournal(buffer, count, offset)
        }
    }

    /// Writes what is still held back; called before every other operation on the file.
    func flush() -> Int32 {
        lastFrame = nil
        guard let pending = pendingHeader else { return SQLITE_OK }
        pendingHeader = nil
        // A header without its page: SQLite rewriting a frame's checksums.
        return rewriteFrame(at: pending.offset) { plain in
            plain.replaceSubrange(0..<Self.frameHeaderSize, with: pending.bytes)
        }
    }

    // MARK: Database file

    /// The page size from the file's clear header; 0 when the file has none yet.
    private func databasePageSize() -> Int {
        if pageSize != 0 { return pageSize }
        var prefix = [UInt8](repeating: 0, count: Self.clearPrefix)
        guard prefix.withUnsafeMutableBytes({ rawRead($0, 0) }) == SQLITE_OK else { return 0 }
        let stored = Self.bigEndian16(prefix, 16)
        let size = stored == 1 ? 65_536 : stored
        guard Self.isPageSize(size) else { return 0 }
        pageSize = size
        return size
    }

    private func readDatabase(_ buffer: UnsafeMutableRawPointer, _ count: Int, _ offset: Int64) -> Int32 {
        let size = databasePageSize()
        guard size != 0 else {
            // No header yet: an empty (new) file reads as nothing; anything else is not ours.
            let result = rawRead(buffer, count, offset)
            if result == SQLITE_IOERR_SHORT_READ { buffer.initializeMemory(as: UInt8.self, repeating: 0, count: count) }
            return result == SQLITE_OK ? SQLITE_NOTADB : result
        }
        if count == size, offset % Int64(size) == 0 {
            return readPage(into: UnsafeMutableRawBufferPointer(start: buffer, count: size), number: offset / Int64(size) + 1)
        }
        // A fragment (SQLite reads the header, or the change counter, out of page 1).
        return forEachPage(touching: offset, count, pageSize: size) { page, _, inPage, inBuffer in
            UnsafeMutableRawBufferPointer(start: buffer + inBuffer, count: inPage.count)
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: page[inPage]))
            return SQLITE_OK
        }
    }

    /// Reads each page that the `count` bytes at `offset` touch (a page past the end reads as
    /// zeros) and calls `body` with it, its number, the part of it in that span and where that
    /// part starts from `offset`. Stops at the first failure of a read or of `body`; otherwise
    /// `SQLITE_IOERR_SHORT_READ` if a page was past the end, else `SQLITE_OK`.
    private func forEachPage(
        touching offset: Int64, _ count: Int, pageSize size: Int,
        _ body: (_ page: UnsafeMutableRawBufferPointer, _ number: Int64, _ inPage: Range<Int>, _ inBuffer: Int) -> Int32
    ) -> Int32 {
        var page = [UInt8](repeating: 0, count: size)
        var result = SQLITE_OK
        var position = offset
        let end = offset + Int64(count)
        while position < end {
            let number = position / Int64(size) + 1
            let pageStart = (number - 1) * Int64(size)
            let from = Int(position - pageStart)
            let length = Int(min(end, pageStart + Int64(size)) - position)
            let pageResult = page.withUnsafeMutableBytes { page in
                let read = readPage(into: page, number: number)
                guard read == SQLITE_OK || read == SQLITE_IOERR_SHORT_READ else { return read }
                let done = body(page, number, from..<(from + length), Int(position - offset))
                return done == SQLITE_OK ? read : done
            }
            if pageResult == SQLITE_IOERR_SHORT_READ {
                result = SQLITE_IOERR_SHORT_READ
            } else if pageResult != SQLITE_OK {
                return pageResult
            }
            position += Int64(length)
        }
        return result
    }

    /// Reads and decrypts page `number`; zeroes and `SQLITE_IOERR_SHORT_READ` past the end.
    private func readPage(into page: UnsafeMutableRawBufferPointer, number: Int64) -> Int32 {
        let offset = (number - 1) * Int64(page.count)
        let result = rawRead(page, offset)
        if result == SQLITE_IOERR_SHORT_READ {
            page.initializeMemory(as: UInt8.self, repeating: 0)
            return result
        }
        guard result == SQLITE_OK else { return result }
        if number == 1 {
            guard page.prefix(Self.magic.count).elementsEqual(Self.magic) else { return SQLITE_NOTADB }
        }
        guard cipher.open(page, from: number == 1 ? Self.clearPrefix : 0, domain: .databasePage,
                          position: UInt64(number)) else {
            return number == 1 ? SQLITE_NOTADB : SQLITE_IOERR_DATA
        }
        if number == 1 { page.copyBytes(from: Self.sqliteMagic) }
        return SQLITE_OK
    }

    private func writeDatabase(_ buffer: UnsafeRawPointer, _ count: Int, _ offset: Int64) -> Int32 {
        if Self.isPageSize(count), offset % Int64(count) == 0 {
            pageSize = count
            var page = [UInt8](UnsafeRawBufferPointer(start: buffer, count: count))
            return page.withUnsafeMutableBytes { writePage($0, number: offset / Int64(count) + 1) }
        }
        // Anything smaller: read, patch and reseal each page it touches.
        let size = databasePageSize()
        guard size != 0 else { return SQLITE_IOERR_WRITE }
        let result = forEachPage(touching: offset, count, pageSize: size) { page, number, inPage, inBuffer in
            UnsafeMutableRawBufferPointer(rebasing: page[inPage])
                .copyMemory(from: UnsafeRawBufferPointer(start: buffer + inBuffer, count: inPage.count))
            return writePage(page, number: number)
        }
        // A page past the end was patched from zeros and written: that is how the file grows.
        return result == SQLITE_IOERR_SHORT_READ ? SQLITE_OK : result
    }

    /// Seals a plaintext page (a copy SQLite does not see again) and writes it.
    private func writePage(_ page: UnsafeMutableRawBufferPointer, number: Int64) -> Int32 {
        if number == 1 {
            // Refuse a header whose reserved bytes cannot hold nonce and tag: sealing would
            // overwrite SQLite's data.
            guard page.prefix(Self.sqliteMagic.count).elementsEqual(Self.sqliteMagic),
                  Int(page[20]) >= SQLitePageCipher.reserveSize else { return SQLITE_IOERR_WRITE }
            page.copyBytes(from: Self.magic)
        }
        guard cipher.seal(page, from: number == 1 ? Self.clearPrefix : 0, domain: .databasePage,
                          position: UInt64(number)) else { return SQLITE_IOERR_WRITE }
        return rawWrite(UnsafeRawBufferPointer(page), (number - 1) * Int64(page.count))
    }

    // MARK: WAL

    /// The page size from the WAL header; 0 when there is none yet.
    private func walPageSize() -> Int {
        if pageSize != 0 { return pageSize }
        var header = [UInt8](repeating: 0, count: Self.walHeaderSize)
        guard header.withUnsafeMutableBytes({ rawRead($0, 0) }) == SQLITE_OK else { return 0 }
        let size = Self.bigEndian32(header, 8)
        guard Self.isPageSize(size) else { return 0 }
        pageSize = size
        return size
    }

    /// Reads and decrypts the frame at `offset`: nil with `SQLITE_IOERR_SHORT_READ` when it is
    /// not all there, nil with `SQLITE_OK` when it does not authenticate.
    private func readFrame(at offset: Int64, pageSize: Int) -> (plain: [UInt8]?, result: Int32) {
        var frame = [UInt8](repeating: 0, count: Self.frameHeaderSize + pageSize)
        let result = frame.withUnsafeMutableBytes { rawRead($0, offset) }
        guard result == SQLITE_OK else { return (nil, result) }
        let authentic = frame.withUnsafeMutableBytes {
            cipher.open($0, from: 0, domain: .walFrame, position: UInt64(offset))
        }
        return (authentic ? frame : nil, SQLITE_OK)
    }

    private func sealAndWriteFrame(_ plain: [UInt8], at offset: Int64) -> Int32 {
        var frame = plain
        return frame.withUnsafeMutableBytes { unit in
            guard cipher.seal(unit, from: 0, domain: .walFrame, position: UInt64(offset)) else { return SQLITE_IOERR_WRITE }
            return rawWrite(UnsafeRawBufferPointer(unit), offset)
        }
    }

    /// Reads the frame at `offset` (or takes it from the previous read), changes it and seals it
    /// again; the frame must be there and authentic.
    private func rewriteFrame(at offset: Int64, cached: [UInt8]? = nil, _ change: (inout [UInt8]) -> Void) -> Int32 {
        let size = walPageSize()
        guard size != 0 else { return SQLITE_IOERR_WRITE }
        var plain: [UInt8]
        if let cached {
            plain = cached
        } else {
            let (read, result) = readFrame(at: offset, pageSize: size)
            guard result == SQLITE_OK, let read else { return SQLITE_IOERR_WRITE }
            plain = read
        }
        change(&plain)
        return sealAndWriteFrame(plain, at: offset)
    }

    private func readWAL(_ buffer: UnsafeMutableRawPointer, _ count: Int, _ offset: Int64) -> Int32 {
        let flushed = flush()
        guard flushed == SQLITE_OK else { return flushed }
        if offset + Int64(count) <= Int64(Self.walHeaderSize) { return rawRead(buffer, count, offset) }
        let size = walPageSize()
        guard size != 0, offset >= Int64(Self.walHeaderSize) else {
            let result = rawRead(buffer, count, offset)
            return result == SQLITE_OK ? SQLITE_IOERR_READ : result
        }
        let frameSize = Int64(Self.frameHeaderSize + size)
        var result = SQLITE_OK
        var position = offset
        let end = offset + Int64(count)
        while position < end {
            let frameOffset = Int64(Self.walHeaderSize) + (position - Int64(Self.walHeaderSize)) / frameSize * frameSize
            let length = Int(min(end, frameOffset + frameSize) - position)
            let target = UnsafeMutableRawBufferPointer(start: buffer + Int(position - offset), count: length)
            let (plain, frameResult) = readFrame(at: frameOffset, pageSize: size)
            if frameResult == SQLITE_IOERR_SHORT_READ {
                target.initializeMemory(as: UInt8.self, repeating: 0)
                result = SQLITE_IOERR_SHORT_READ
            } else if frameResult != SQLITE_OK {
                return frameResult
            } else if let plain {
                plain.withUnsafeBytes { target.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[Int(position - frameOffset)...].prefix(length))) }
                if offset == frameOffset, Int64(count) == frameSize { lastFrame = (frameOffset, plain) }
            } else if offset == frameOffset, Int64(count) == frameSize {
                // A whole frame that does not authenticate (torn by a crash, or altered) reads
                // as zeros, which SQLite's recovery takes as the end of the log.
                target.initializeMemory(as: UInt8.self, repeating: 0)
            } else {
                return SQLITE_IOERR_DATA
            }
            position += Int64(length)
        }
        return result
    }

    private func writeWAL(_ buffer: UnsafeRawPointer, _ count: Int, _ offset: Int64) -> Int32 {
        let previous = lastFrame
        lastFrame = nil
        if offset < Int64(Self.walHeaderSize) {
            let flushed = flush()
            guard flushed == SQLITE_OK else { return flushed }
            guard offset + Int64(count) <= Int64(Self.walHeaderSize) else { return SQLITE_IOERR_WRITE }
            if offset == 0, count >= 12 {
                let size = Self.bigEndian32(Array(UnsafeRawBufferPointer(start: buffer, count: 12)), 8)
                if Self.isPageSize(size) { pageSize = size }
            }
            return rawWrite(buffer, count, offset)
        }
        let size = walPageSize()
        guard size != 0 else { return SQLITE_IOERR_WRITE }
        let frameSize = Int64(Self.frameHeaderSize + size)
        let within = (offset - Int64(Self.walHeaderSize)) % frameSize
        let bytes = [UInt8](UnsafeRawBufferPointer(start: buffer, count: count))
        if count == Self.frameHeaderSize, within == 0 {
            if let pending = pendingHeader, pending.offset != offset {
                let flushed = flush()
                guard flushed == SQLITE_OK else { return flushed }
            }
            if let previous, previous.offset == offset {
                // Rewriting the checksums of the frame just read.
                pendingHeader = nil
                return rewriteFrame(at: offset, cached: previous.plain) { $0.replaceSubrange(0..<Self.frameHeaderSize, with: bytes) }
            }
            pendingHeader = (offset, bytes)
            return SQLITE_OK
        }
        if count == size, within == Int64(Self.frameHeaderSize) {
            let frameOffset = offset - Int64(Self.frameHeaderSize)
            if let pending = pendingHeader, pending.offset == frameOffset {
                pendingHeader = nil
                return sealAndWriteFrame(pending.bytes + bytes, at: frameOffset)
            }
            let flushed = flush()
            guard flushed == SQLITE_OK else { return flushed }
            // A page written again within one transaction, over its earlier frame.
            let cached = previous?.offset == frameOffset ? previous?.plain : nil
            return rewriteFrame(at: frameOffset, cached: cached) {
                $0.replaceSubrange(Self.frameHeaderSize..<$0.count, with: bytes)
            }
        }
        // No other shape of write is SQLite's; refusing it keeps plaintext off the disk.
        _ = flush()
        return SQLITE_IOERR_WRITE
    }

    // MARK: Rollback journal

    /// A page image: a page-sized transfer 4 bytes after a record start (records follow a
    /// sector-aligned header and are 8 bytes longer than a page, so page images sit at 4 mod 8).
    private static func isPageImage(_ count: Int, _ offset: Int64) -> Bool {
        isPageSize(count) && offset % 8 == 4
    }

    private func readJournal(_ buffer: UnsafeMutableRawPointer, _ count: Int, _ offset: Int64) -> Int32 {
        let result = rawRead(buffer, count, offset)
        guard result == SQLITE_OK, Self.isPageImage(count, offset) else { return result }
        let unit = UnsafeMutableRawBufferPointer(start: buffer, count: count)
        if !cipher.open(unit, from: 0, domain: .journalPage, position: UInt64(offset)) {
            // Zeros fail the record's checksum, so SQLite stops the rollback there, as at a torn record.
            unit.initializeMemory(as: UInt8.self, repeating: 0)
        }
        return SQLITE_OK
    }

    private func writeJournal(_ buffer: UnsafeRawPointer, _ count: Int, _ offset: Int64) -> Int32 {
        guard Self.isPageImage(count, offset) else { return rawWrite(buffer, count, offset) }
        var page = [UInt8](UnsafeRawBufferPointer(start: buffer, count: count))
        return page.withUnsafeMutableBytes { unit in
            guard cipher.seal(unit, from: 0, domain: .journalPage, position: UInt64(offset)) else { return SQLITE_IOERR_WRITE }
            return rawWrite(UnsafeRawBufferPointer(unit), offset)
        }
    }
}
