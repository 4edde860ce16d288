// Debian's libsqlite3-dev; built with FTS5, JSON and THREADSAFE=1.
#include <sqlite3.h>

// The FTS3/FTS4 tokenizer interface. libsqlite3-dev does not install SQLite's fts3_tokenizer.h,
// so its declarations (a stable ABI, version 0) are repeated here; the SQLite engine registers
// LiteCore's `unicodesn` tokenizer name through it, so FTS4 tables in Couchbase Lite files
// stay writable.
typedef struct sqlite3_tokenizer_module sqlite3_tokenizer_module;
typedef struct sqlite3_tokenizer {
    const sqlite3_tokenizer_module *pModule;
} sqlite3_tokenizer;
typedef struct sqlite3_tokenizer_cursor {
    sqlite3_tokenizer *pTokenizer;
} sqlite3_tokenizer_cursor;
struct sqlite3_tokenizer_module {
    int iVersion;
    int (*xCreate)(int argc, const char *const *argv, sqlite3_tokenizer **ppTokenizer);
    int (*xDestroy)(sqlite3_tokenizer *pTokenizer);
    int (*xOpen)(sqlite3_tokenizer *pTokenizer, const char *pInput, int nBytes, sqlite3_tokenizer_cursor **ppCursor);
    int (*xClose)(sqlite3_tokenizer_cursor *pCursor);
    int (*xNext)(sqlite3_tokenizer_cursor *pCursor, const char **ppToken, int *pnBytes,
                 int *piStartOffset, int *piEndOffset, int *piPosition);
    int (*xLanguageid)(sqlite3_tokenizer_cursor *pCursor, int iLangid);
};

// A tokenizer or cursor with a pointer to the Swift object behind it (SQLite sees the first
// member only).
typedef struct csqlite_tokenizer {
    sqlite3_tokenizer base;
    void *context;
} csqlite_tokenizer;
typedef struct csqlite_tokenizer_cursor {
    sqlite3_tokenizer_cursor base;
    void *context;
} csqlite_tokenizer_cursor;

// sqlite3_db_config is variadic, which Swift cannot call: enables the two-argument
// fts3_tokenizer() (registering a tokenizer by pointer) on one connection.
static inline int csqlite_enable_fts3_tokenizer(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, 1, (int *)0);
}
