// Debian's librocksdb-dev (7.8): only the C API is used from Swift. The library is not linked:
// it is loaded the first time a RocksDB database is opened (RocksDBLoader.c), because loading
// it — a large C++ library with static initialisers — cost every `cblite` run about 5 ms of its
// start-up whether or not it touched RocksDB (docs/decisions.md, Tools-12).
#include <rocksdb/c.h>

/// Loads librocksdb and resolves the functions used here; idempotent and thread-safe.
/// Returns 1 when loaded; otherwise 0 and, if `error` is not NULL, a malloc'ed message that the
/// caller frees with free().
int cbl_rocksdb_load(char **error);

/// An encrypted RocksDB environment (Modules/CRocksDBEncryption, a shared library loaded on
/// first use like librocksdb; see its header). Opaque.
typedef struct cbl_rocksdb_encryption_env cbl_rocksdb_encryption_env;

/// Loads librocksdb and libCRocksDBEncryption.so; idempotent and thread-safe. Returns 1 when
/// loaded; otherwise 0 and, if `error` is not NULL, a malloc'ed message freed with free().
int cbl_rocksdb_load_encryption(char **error);

/// An Env encrypting every file with keys derived from the 32-byte `key`; NULL and a malloc'ed
/// `*error` on failure.
cbl_rocksdb_encryption_env *cbl_rocksdb_encryption_env_create(const unsigned char *key, size_t key_length, char **error);
/// The Env, for rocksdb_options_set_env.
rocksdb_env_t *cbl_rocksdb_encryption_env_rocksdb_env(cbl_rocksdb_encryption_env *env);
/// A logger that drops RocksDB's diagnostic log, for rocksdb_options_set_info_log.
rocksdb_logger_t *cbl_rocksdb_encryption_env_logger(cbl_rocksdb_encryption_env *env);
/// Frees the Env, after the database using it is closed.
void cbl_rocksdb_encryption_env_destroy(cbl_rocksdb_encryption_env *env);
/// 1: the file is encrypted with `key`; 0: not encrypted; -1: encrypted with another key;
/// -2: unreadable (errno set). Reads the file's first 4 KB only.
int cbl_rocksdb_encryption_check_file(const char *path, const unsigned char *key, size_t key_length);
