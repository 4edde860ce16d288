import CSQLite
import LiteSupport

/// SQLite's extension point for encryption at rest: a VFS shim over the default (unix) VFS
/// that encrypts every byte SQLite writes for an encrypted database — its file, WAL and
/// rollback journal — and decrypts what it reads (``SQLiteEncryptedFile``). A connection uses
/// it by naming it in `sqlite3_open_v2` with the key in the URI parameter ``keyParameter``.
///
/// It refuses to open any other kind of file (temporary databases, statement journals,
/// super-journals): connections to encrypted databases keep SQLite's temporary data in memory
/// (`PRAGMA temp_store=MEMORY`), so a refusal surfaces a case that would have written plaintext.
///
/// The shim's file object is SQLite's `sqlite3_file` (the methods pointer), then a pointer to
/// the ``SQLiteEncryptedFile``, then the default VFS's own file object.
enum SQLiteEncryptingVFS {
    /// The name connections open encrypted databases with.
    static let name = "cblite-aes256gcm"
    /// The URI parameter carrying the key, as 64 hex digits.
    static let keyParameter = "cblite_key"

    /// Whether the VFS is registered (done once, on first use).
    static var isRegistered: Bool { registration }

    private static let registration: Bool = register()

    nonisolated(unsafe) private static let ioMethods: UnsafeMutablePointer<sqlite3_io_methods> = makeIOMethods()

    private static func register() -> Bool {
        if sqlite3_vfs_find(name) != nil { return true }
        guard let base = sqlite3_vfs_find(nil) else { return false }
        var vfs = base.pointee
        vfs.iVersion = min(base.pointee.iVersion, 2)
        vfs.szOsFile = Int32(vfsFileHeaderSize) + base.pointee.szOsFile
        vfs.pNext = nil
        let utf8 = Array(name.utf8CString)
        let cName = UnsafeMutablePointer<CChar>.allocate(capacity: utf8.count)
        cName.initialize(from: utf8, count: utf8.count)
        vfs.zName = UnsafePointer(cName)
        vfs.pAppData = UnsafeMutableRawPointer(base)
        vfs.xOpen = { vfs, name, file, flags, outFlags in
            SQLiteEncryptingVFSOpen(vfs, name, file, flags, outFlags)
        }
        // The default VFS's other methods ignore their VFS argument except through pAppData,
        // which is why they are given the default VFS rather than this one.
        vfs.xDelete = { vfs, name, syncDirectory in
            guard let base = baseVFS(vfs), let delete = base.pointee.xDelete else { return SQLITE_IOERR_DELETE }
            return delete(base, name, syncDirectory)
        }
        vfs.xAccess = { vfs, name, flags, result in
            guard let base = baseVFS(vfs), let access = base.pointee.xAccess else { return SQLITE_IOERR_ACCESS }
            return access(base, name, flags, result)
        }
        vfs.xFullPathname = { vfs, name, count, output in
            guard let base = baseVFS(vfs), let fullPathname = base.pointee.xFullPathname else { return SQLITE_CANTOPEN }
            return fullPathname(base, name, count, output)
        }
        vfs.xSetSystemCall = nil
        vfs.xGetSystemCall = nil
        vfs.xNextSystemCall = nil
        let pointer = UnsafeMutablePointer<sqlite3_vfs>.allocate(capacity: 1)
        pointer.initialize(to: vfs)
        return sqlite3_vfs_register(pointer, 0) == SQLITE_OK
    }

    /// The 32 bytes of 64 hex digits; nil for anything else.
    static func key(fromHex text: String) -> SQLitePageCipher? {
        let digits = Array(text.utf8)
        guard digits.count == 64 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for index in stride(from: 0, to: 64, by: 2) {
            guard let high = HexText.digitValue(digits[index]), let low = HexText.digitValue(digits[index + 1]) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return AES256Key(bytes: bytes).map(SQLitePageCipher.init(key:))
    }

    fileprivate static func open(_ vfs: UnsafeMutablePointer<sqlite3_vfs>?, _ name: sqlite3_filename?,
                             _ file: UnsafeMutablePointer<sqlite3_file>?, _ flags: Int32,
                             _ outFlags: UnsafeMutablePointer<Int32>?) -> Int32 {
        guard let file else { return SQLITE_CANTOPEN }
        file.pointee.pMethods = nil
        UnsafeMutableRawPointer(file).storeBytes(of: nil, toByteOffset: 8, as: UnsafeMutableRawPointer?.self)
        guard let base = baseVFS(vfs), let baseOpen = base.pointee.xOpen else { return SQLITE_CANTOPEN }
        let kind: SQLiteEncryptedFile.Kind
        if flags & SQLITE_OPEN_MAIN_DB != 0 {
            kind = .database
        } else if flags & SQLITE_OPEN_WAL != 0 {
            kind = .wal
        } else if flags & SQLITE_OPEN_MAIN_JOURNAL != 0 {
            kind = .journal
        } else {
            return SQLITE_CANTOPEN
        }
        guard let name, let hex = sqlite3_uri_parameter(name, keyParameter),
              let cipher = key(fromHex: String(cString: hex)) else { return SQLITE_CANTOPEN }
        let real = realFile(file)
        let result = baseOpen(base, name, real, flags, outFlags)
        guard result == SQLITE_OK else { return result }
        let encrypted = SQLiteEncryptedFile(kind: kind, cipher: cipher, real: real)
        UnsafeMutableRawPointer(file).storeBytes(of: Unmanaged.passRetained(encrypted).toOpaque(), toByteOffset: 8,
                                                 as: UnsafeMutableRawPointer?.self)
        file.pointee.pMethods = UnsafePointer(ioMethods)
        return SQLITE_OK
    }

    // The methods of an encrypted file: reads and writes go through its SQLiteEncryptedFile,
    // which holds back part of a WAL frame until the rest comes, so every other call that
    // touches the file's bytes writes that part first; locks and shared memory pass through.
    private static func makeIOMethods() -> UnsafeMutablePointer<sqlite3_io_methods> {
        var methods = sqlite3_io_methods()
        methods.iVersion = 2   // no xFetch: memory-mapped reads would bypass decryption
        methods.xClose = { file in
            guard let file, let encrypted = context(file) else { return SQLITE_OK }
            let flushed = encrypted.flush()
            let real = encrypted.real
            let result = real.pointee.pMethods?.pointee.xClose?(real) ?? SQLITE_OK
            if let pointer = UnsafeMutableRawPointer(file).load(fromByteOffset: 8, as: UnsafeMutableRawPointer?.self) {
                Unmanaged<SQLiteEncryptedFile>.fromOpaque(pointer).release()
            }
            UnsafeMutableRawPointer(file).storeBytes(of: nil, toByteOffset: 8, as: UnsafeMutableRawPointer?.self)
            return flushed != SQLITE_OK ? flushed : result
        }
        methods.xRead = { file, buffer, count, offset in
            guard let encrypted = context(file), let buffer, count >= 0 else { return SQLITE_IOERR_READ }
            return encrypted.read(buffer, Int(count), offset)
        }
        methods.xWrite = { file, buffer, count, offset in
            guard let encrypted = context(file), let buffer, count >= 0 else { return SQLITE_IOERR_WRITE }
            return encrypted.write(buffer, Int(count), offset)
        }
        methods.xTruncate = { file, size in
            afterFlushing(file, orFail: SQLITE_IOERR_TRUNCATE) { real, methods in methods.xTruncate?(real, size) }
        }
        methods.xSync = { file, flags in
            afterFlushing(file, orFail: SQLITE_IOERR_FSYNC) { real, methods in methods.xSync?(real, flags) }
        }
        methods.xFileSize = { file, size in
            afterFlushing(file, orFail: SQLITE_IOERR_FSTAT) { real, methods in methods.xFileSize?(real, size) }
        }
        methods.xLock = { file, level in
            guard let real = context(file)?.real else { return SQLITE_IOERR_LOCK }
            return real.pointee.pMethods?.pointee.xLock?(real, level) ?? SQLITE_IOERR_LOCK
        }
        methods.xUnlock = { file, level in
            guard let real = context(file)?.real else { return SQLITE_IOERR_UNLOCK }
            return real.pointee.pMethods?.pointee.xUnlock?(real, level) ?? SQLITE_IOERR_UNLOCK
        }
        methods.xCheckReservedLock = { file, result in
            guard let real = context(file)?.real else { return SQLITE_IOERR_CHECKRESERVEDLOCK }
            return real.pointee.pMethods?.pointee.xCheckReservedLock?(real, result) ?? SQLITE_IOERR_CHECKRESERVEDLOCK
        }
        methods.xFileControl = { file, operation, argument in
            guard let encrypted = context(file) else { return SQLITE_NOTFOUND }
            let real = encrypted.real
            if operation == SQLITE_FCNTL_SIZE_HINT, encrypted.kind == .database,
               let size = argument?.load(as: Int64.self) {
                // Before a checkpoint copies pages in, the file is grown to its final size, as the
                // default VFS does for a plaintext file (whose memory map it extends): a crash
                // halfway then leaves a file as long as its header says, the WAL holding the rest.
                var current: Int64 = 0
                if real.pointee.pMethods?.pointee.xFileSize?(real, &current) == SQLITE_OK, current < size {
                    _ = real.pointee.pMethods?.pointee.xTruncate?(real, size)
                }
            }
            return real.pointee.pMethods?.pointee.xFileControl?(real, operation, argument) ?? SQLITE_NOTFOUND
        }
        methods.xSectorSize = { file in
            guard let real = context(file)?.real else { return 4096 }
            return real.pointee.pMethods?.pointee.xSectorSize?(real) ?? 4096
        }
        methods.xDeviceCharacteristics = { file in
            guard let real = context(file)?.real else { return 0 }
            return real.pointee.pMethods?.pointee.xDeviceCharacteristics?(real) ?? 0
        }
        methods.xShmMap = { file, region, size, extend, pointer in
            guard let real = context(file)?.real else { return SQLITE_IOERR_SHMMAP }
            return real.pointee.pMethods?.pointee.xShmMap?(real, region, size, extend, pointer) ?? SQLITE_IOERR_SHMMAP
        }
        methods.xShmLock = { file, offset, count, flags in
            guard let real = context(file)?.real else { return SQLITE_IOERR_SHMLOCK }
            return real.pointee.pMethods?.pointee.xShmLock?(real, offset, count, flags) ?? SQLITE_IOERR_SHMLOCK
        }
        methods.xShmBarrier = { file in
            guard let real = context(file)?.real else { return }
            real.pointee.pMethods?.pointee.xShmBarrier?(real)
        }
        methods.xShmUnmap = { file, delete in
            guard let real = context(file)?.real else { return SQLITE_OK }
            return real.pointee.pMethods?.pointee.xShmUnmap?(real, delete) ?? SQLITE_OK
        }
        let pointer = UnsafeMutablePointer<sqlite3_io_methods>.allocate(capacity: 1)
        pointer.initialize(to: methods)
        return pointer
    }
}

/// Bytes before the default VFS's file object: the methods pointer and the context pointer.
private let vfsFileHeaderSize = 16

private func baseVFS(_ vfs: UnsafeMutablePointer<sqlite3_vfs>?) -> UnsafeMutablePointer<sqlite3_vfs>? {
    vfs?.pointee.pAppData?.assumingMemoryBound(to: sqlite3_vfs.self)
}

private func realFile(_ file: UnsafeMutablePointer<sqlite3_file>) -> UnsafeMutablePointer<sqlite3_file> {
    (UnsafeMutableRawPointer(file) + vfsFileHeaderSize).assumingMemoryBound(to: sqlite3_file.self)
}

/// `call` on the real file once the held-back part of a WAL frame is written (a truncate, sync
/// or size must see every byte SQLite wrote); `failure` when the file or the method is missing.
private func afterFlushing(_ file: UnsafeMutablePointer<sqlite3_file>?, orFail failure: Int32,
                           _ call: (UnsafeMutablePointer<sqlite3_file>, sqlite3_io_methods) -> Int32?) -> Int32 {
    guard let encrypted = context(file) else { return failure }
    let flushed = encrypted.flush()
    guard flushed == SQLITE_OK else { return flushed }
    guard let methods = encrypted.real.pointee.pMethods?.pointee else { return failure }
    return call(encrypted.real, methods) ?? failure
}

private func context(_ file: UnsafeMutablePointer<sqlite3_file>?) -> SQLiteEncryptedFile? {
    guard let file,
          let pointer = UnsafeMutableRawPointer(file).load(fromByteOffset: 8, as: UnsafeMutableRawPointer?.self)
    else { return nil }
    return Unmanaged<SQLiteEncryptedFile>.fromOpaque(pointer).takeUnretainedValue()
}

private func SQLiteEncryptingVFSOpen(_ vfs: UnsafeMutablePointer<sqlite3_vfs>?, _ name: sqlite3_filename?,
                                     _ file: UnsafeMutablePointer<sqlite3_file>?, _ flags: Int32,
                                     _ outFlags: UnsafeMutablePointer<Int32>?) -> Int32 {
    SQLiteEncryptingVFS.open(vfs, name, file, flags, outFlags)
}
