// The encrypted RocksDB environment: a C++ shim over RocksDB's encrypted Env, whose C API cannot
// reach it. It is built as its own shared library (libCRocksDBEncryption.so), linked to
// librocksdb and OpenSSL's libcrypto, and loaded by RocksDBLoader.c only when a database is
// opened with a key, so no program links librocksdb (docs/decisions.md, Tools-12) and a program
// that never opens an encrypted RocksDB database never loads libcrypto. Nothing includes this
// header from Swift: RocksDBLoader.c resolves these functions with dlsym by name, and CRocksDB.h
// declares the forwarders Swift calls. The format is in docs/security.md, "RocksDB engine".
#ifndef CROCKSDB_ENCRYPTION_H
#define CROCKSDB_ENCRYPTION_H

#include <rocksdb/c.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// An encrypted Env and a logger that drops RocksDB's diagnostic log (plaintext otherwise).
typedef struct cblrdbenc_env cblrdbenc_env;

/// Makes an Env whose files are encrypted with AES-256-CTR under keys derived from the 32-byte
/// `key`. NULL on failure, with a malloc'ed message in `*error` (freed with free()).
cblrdbenc_env *cblrdbenc_env_create(const unsigned char *key, size_t key_length, char **error);

/// The Env, for rocksdb_options_set_env.
rocksdb_env_t *cblrdbenc_env_rocksdb_env(cblrdbenc_env *env);

/// The discarding logger, for rocksdb_options_set_info_log.
rocksdb_logger_t *cblrdbenc_env_rocksdb_logger(cblrdbenc_env *env);

/// Frees the Env; the database using it must be closed first.
void cblrdbenc_env_destroy(cblrdbenc_env *env);

/// What a file's first bytes say about it and `key`.
enum {
    cblrdbenc_file_right_key = 1,      ///< Our format, and `key` is the key it was written with.
    cblrdbenc_file_not_encrypted = 0,  ///< Not our format (a plaintext RocksDB file).
    cblrdbenc_file_wrong_key = -1,     ///< Our format, written with another key.
    cblrdbenc_file_unreadable = -2,    ///< The file cannot be opened or read (errno is set).
};

/// Checks the file at `path` against `key`. Reads the prefix only; writes nothing.
int cblrdbenc_check_file(const char *path, const unsigned char *key, size_t key_length);

#ifdef __cplusplus
}
#endif

#endif
