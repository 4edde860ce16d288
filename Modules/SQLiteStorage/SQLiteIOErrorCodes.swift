import CSQLite

// SQLite's extended I/O result codes (sqlite3.h), which Swift does not import because they are
// macro expressions; the encrypting VFS returns them from its file methods.

/// `SQLITE_IOERR_READ`.
let SQLITE_IOERR_READ = SQLITE_IOERR | (1 << 8)
/// `SQLITE_IOERR_SHORT_READ`: a read past the end (the rest of the buffer zeroed).
let SQLITE_IOERR_SHORT_READ = SQLITE_IOERR | (2 << 8)
/// `SQLITE_IOERR_WRITE`.
let SQLITE_IOERR_WRITE = SQLITE_IOERR | (3 << 8)
/// `SQLITE_IOERR_FSYNC`.
let SQLITE_IOERR_FSYNC = SQLITE_IOERR | (4 << 8)
/// `SQLITE_IOERR_TRUNCATE`.
let SQLITE_IOERR_TRUNCATE = SQLITE_IOERR | (6 << 8)
/// `SQLITE_IOERR_FSTAT`.
let SQLITE_IOERR_FSTAT = SQLITE_IOERR | (7 << 8)
/// `SQLITE_IOERR_UNLOCK`.
let SQLITE_IOERR_UNLOCK = SQLITE_IOERR | (8 << 8)
/// `SQLITE_IOERR_DELETE`.
let SQLITE_IOERR_DELETE = SQLITE_IOERR | (10 << 8)
/// `SQLITE_IOERR_ACCESS`.
let SQLITE_IOERR_ACCESS = SQLITE_IOERR | (13 << 8)
/// `SQLITE_IOERR_CHECKRESERVEDLOCK`.
let SQLITE_IOERR_CHECKRESERVEDLOCK = SQLITE_IOERR | (14 << 8)
/// `SQLITE_IOERR_LOCK`.
let SQLITE_IOERR_LOCK = SQLITE_IOERR | (15 << 8)
/// `SQLITE_IOERR_SHMLOCK`.
let SQLITE_IOERR_SHMLOCK = SQLITE_IOERR | (20 << 8)
/// `SQLITE_IOERR_SHMMAP`.
let SQLITE_IOERR_SHMMAP = SQLITE_IOERR | (21 << 8)
/// `SQLITE_IOERR_DATA`: what the VFS reports for a page that does not authenticate.
let SQLITE_IOERR_DATA = SQLITE_IOERR | (32 << 8)
