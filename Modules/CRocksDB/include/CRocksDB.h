// Debian's librocksdb-dev (7.8): only the C API is used from Swift. The library is not linked:
// it is loaded the first time a RocksDB database is opened (RocksDBLoader.c), because loading
// it — a large C++ library with static initialisers — cost every `cblite` run about 5 ms of its
// start-up whether or not it touched RocksDB (docs/decisions.md, Tools-12).
#include <rocksdb/c.h>

/// Loads librocksdb and resolves the functions used here; idempotent and thread-safe.
/// Returns 1 when loaded; otherwise 0 and, if `error` is not NULL, a malloc'ed message that the
/// caller frees with free().
int cbl_rocksdb_load(char **error);
