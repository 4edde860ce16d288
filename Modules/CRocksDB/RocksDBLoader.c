// Loads librocksdb on first use instead of linking it (see include/CRocksDB.h), and defines the
// C API functions the Swift code calls as forwarders to the loaded library's.
// dladdr and Dl_info.
#define _GNU_SOURCE
#include "CRocksDB.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// Debian 12's runtime package librocksdb7.8 (what `make deps` installs with librocksdb-dev, whose
// headers these are); then the development symlink, which points at whatever librocksdb-dev has.
// (rocksdb/version.h, which names the version, is C++ and cannot be included here.)
static const char *const library_names[] = {
    "librocksdb.so.7.8",
    "librocksdb.so",
};

// Every function of the C API used from Swift; a new one is added here.
#define ROCKSDB_FUNCTIONS(X) \
    X(rocksdb_block_based_options_create) \
    X(rocksdb_block_based_options_destroy) \
    X(rocksdb_block_based_options_set_block_cache) \
    X(rocksdb_block_based_options_set_filter_policy) \
    X(rocksdb_cache_create_lru) \
    X(rocksdb_close) \
    X(rocksdb_compact_range) \
    X(rocksdb_create_iterator) \
    X(rocksdb_create_snapshot) \
    X(rocksdb_filterpolicy_create_bloom_full) \
    X(rocksdb_free) \
    X(rocksdb_get_pinned) \
    X(rocksdb_iter_destroy) \
    X(rocksdb_iter_get_error) \
    X(rocksdb_iter_key) \
    X(rocksdb_iter_next) \
    X(rocksdb_iter_prev) \
    X(rocksdb_iter_seek) \
    X(rocksdb_iter_seek_to_last) \
    X(rocksdb_iter_valid) \
    X(rocksdb_iter_value) \
    X(rocksdb_open) \
    X(rocksdb_open_for_read_only) \
    X(rocksdb_options_create) \
    X(rocksdb_options_destroy) \
    X(rocksdb_options_set_block_based_table_factory) \
    X(rocksdb_options_set_compression) \
    X(rocksdb_options_set_create_if_missing) \
    X(rocksdb_options_set_env) \
    X(rocksdb_options_set_info_log) \
    X(rocksdb_options_set_keep_log_file_num) \
    X(rocksdb_options_set_max_file_opening_threads) \
    X(rocksdb_options_set_max_log_file_size) \
    X(rocksdb_options_set_memtable_prefix_bloom_size_ratio) \
    X(rocksdb_options_set_memtable_whole_key_filtering) \
    X(rocksdb_pinnableslice_destroy) \
    X(rocksdb_pinnableslice_value) \
    X(rocksdb_readoptions_create) \
    X(rocksdb_readoptions_destroy) \
    X(rocksdb_readoptions_set_snapshot) \
    X(rocksdb_release_snapshot) \
    X(rocksdb_write) \
    X(rocksdb_writebatch_clear) \
    X(rocksdb_writebatch_create) \
    X(rocksdb_writebatch_data) \
    X(rocksdb_writebatch_delete) \
    X(rocksdb_writebatch_count) \
    X(rocksdb_writebatch_destroy) \
    X(rocksdb_writebatch_put) \
    X(rocksdb_writeoptions_create) \
    X(rocksdb_writeoptions_destroy) \
    X(rocksdb_writeoptions_set_sync)

enum {
#define SLOT(name) slot_##name,
    ROCKSDB_FUNCTIONS(SLOT)
#undef SLOT
    slot_count
};

static const char *const function_names[slot_count] = {
#define NAME(name) #name,
    ROCKSDB_FUNCTIONS(NAME)
#undef NAME
};

static void *functions[slot_count];
static char load_error[512];
static int loaded;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load_library(void) {
    void *library = NULL;
    const char *dl_message = NULL;
    for (size_t i = 0; i < sizeof library_names / sizeof library_names[0] && library == NULL; i++) {
        // Lazy binding: the library's own calls are bound on first use, which saves a process that
        // opens one database most of the 1.5-2 ms of binding all of them up front.
        library = dlopen(library_names[i], RTLD_LAZY | RTLD_LOCAL);
        if (library == NULL && dl_message == NULL) dl_message = dlerror();
    }
    if (library == NULL) {
        snprintf(load_error, sizeof load_error,
                 "cannot load the RocksDB library %s (Debian package librocksdb7.8): %s",
                 library_names[0], dl_message ? dl_message : "not found");
        return;
    }
    for (int slot = 0; slot < slot_count; slot++) {
        functions[slot] = dlsym(library, function_names[slot]);
        if (functions[slot] == NULL) {
            snprintf(load_error, sizeof load_error, "the RocksDB library %s has no function %s",
                     library_names[0], function_names[slot]);
            return;
        }
    }
    __atomic_store_n(&loaded, 1, __ATOMIC_RELEASE);
}

int cbl_rocksdb_load(char **error) {
    pthread_once(&load_once, load_library);
    if (__atomic_load_n(&loaded, __ATOMIC_ACQUIRE)) return 1;
    if (error != NULL) *error = strdup(load_error);
    return 0;
}

// The Swift code calls cbl_rocksdb_load before any of these (RocksDBEngine opens a database
// only after it succeeded), so reaching one unloaded is a programming error, not bad input.
static void *resolve(int slot) {
    if (!__atomic_load_n(&loaded, __ATOMIC_ACQUIRE) && !cbl_rocksdb_load(NULL)) {
        fprintf(stderr, "RocksDB used before it was loaded: %s\n", load_error);
        abort();
    }
    return functions[slot];
}

#define CALL(name) ((__typeof__(&name))resolve(slot_##name))

rocksdb_block_based_table_options_t* rocksdb_block_based_options_create(void) { return CALL(rocksdb_block_based_options_create)(); }
void rocksdb_block_based_options_destroy(rocksdb_block_based_table_options_t* a0) { CALL(rocksdb_block_based_options_destroy)(a0); }
void rocksdb_block_based_options_set_filter_policy(rocksdb_block_based_table_options_t* a0, rocksdb_filterpolicy_t* a1) { CALL(rocksdb_block_based_options_set_filter_policy)(a0, a1); }
void rocksdb_block_based_options_set_block_cache(rocksdb_block_based_table_options_t* a0, rocksdb_cache_t* a1) { CALL(rocksdb_block_based_options_set_block_cache)(a0, a1); }
rocksdb_cache_t* rocksdb_cache_create_lru(size_t a0) { return CALL(rocksdb_cache_create_lru)(a0); }
void rocksdb_close(rocksdb_t* a0) { CALL(rocksdb_close)(a0); }
void rocksdb_compact_range(rocksdb_t* a0, const char* a1, size_t a2, const char* a3, size_t a4) { CALL(rocksdb_compact_range)(a0, a1, a2, a3, a4); }
rocksdb_iterator_t* rocksdb_create_iterator(rocksdb_t* a0, const rocksdb_readoptions_t* a1) { return CALL(rocksdb_create_iterator)(a0, a1); }
const rocksdb_snapshot_t* rocksdb_create_snapshot(rocksdb_t* a0) { return CALL(rocksdb_create_snapshot)(a0); }
rocksdb_filterpolicy_t* rocksdb_filterpolicy_create_bloom_full(double a0) { return CALL(rocksdb_filterpolicy_create_bloom_full)(a0); }
void rocksdb_free(void* a0) { CALL(rocksdb_free)(a0); }
rocksdb_pinnableslice_t* rocksdb_get_pinned(rocksdb_t* a0, const rocksdb_readoptions_t* a1, const char* a2, size_t a3, char** a4) { return CALL(rocksdb_get_pinned)(a0, a1, a2, a3, a4); }
void rocksdb_iter_destroy(rocksdb_iterator_t* a0) { CALL(rocksdb_iter_destroy)(a0); }
void rocksdb_iter_get_error(const rocksdb_iterator_t* a0, char** a1) { CALL(rocksdb_iter_get_error)(a0, a1); }
const char* rocksdb_iter_key(const rocksdb_iterator_t* a0, size_t* a1) { return CALL(rocksdb_iter_key)(a0, a1); }
void rocksdb_iter_next(rocksdb_iterator_t* a0) { CALL(rocksdb_iter_next)(a0); }
void rocksdb_iter_prev(rocksdb_iterator_t* a0) { CALL(rocksdb_iter_prev)(a0); }
void rocksdb_iter_seek(rocksdb_iterator_t* a0, const char* a1, size_t a2) { CALL(rocksdb_iter_seek)(a0, a1, a2); }
void rocksdb_iter_seek_to_last(rocksdb_iterator_t* a0) { CALL(rocksdb_iter_seek_to_last)(a0); }
unsigned char rocksdb_iter_valid(const rocksdb_iterator_t* a0) { return CALL(rocksdb_iter_valid)(a0); }
const char* rocksdb_iter_value(const rocksdb_iterator_t* a0, size_t* a1) { return CALL(rocksdb_iter_value)(a0, a1); }
rocksdb_t* rocksdb_open(const rocksdb_options_t* a0, const char* a1, char** a2) { return CALL(rocksdb_open)(a0, a1, a2); }
rocksdb_t* rocksdb_open_for_read_only(const rocksdb_options_t* a0, const char* a1, unsigned char a2, char** a3) { return CALL(rocksdb_open_for_read_only)(a0, a1, a2, a3); }
rocksdb_options_t* rocksdb_options_create(void) { return CALL(rocksdb_options_create)(); }
void rocksdb_options_destroy(rocksdb_options_t* a0) { CALL(rocksdb_options_destroy)(a0); }
void rocksdb_options_set_block_based_table_factory(rocksdb_options_t* a0, rocksdb_block_based_table_options_t* a1) { CALL(rocksdb_options_set_block_based_table_factory)(a0, a1); }
void rocksdb_options_set_compression(rocksdb_options_t* a0, int a1) { CALL(rocksdb_options_set_compression)(a0, a1); }
void rocksdb_options_set_create_if_missing(rocksdb_options_t* a0, unsigned char a1) { CALL(rocksdb_options_set_create_if_missing)(a0, a1); }
void rocksdb_options_set_env(rocksdb_options_t* a0, rocksdb_env_t* a1) { CALL(rocksdb_options_set_env)(a0, a1); }
void rocksdb_options_set_info_log(rocksdb_options_t* a0, rocksdb_logger_t* a1) { CALL(rocksdb_options_set_info_log)(a0, a1); }
void rocksdb_options_set_keep_log_file_num(rocksdb_options_t* a0, size_t a1) { CALL(rocksdb_options_set_keep_log_file_num)(a0, a1); }
void rocksdb_options_set_max_file_opening_threads(rocksdb_options_t* a0, int a1) { CALL(rocksdb_options_set_max_file_opening_threads)(a0, a1); }
void rocksdb_options_set_max_log_file_size(rocksdb_options_t* a0, size_t a1) { CALL(rocksdb_options_set_max_log_file_size)(a0, a1); }
void rocksdb_options_set_memtable_prefix_bloom_size_ratio(rocksdb_options_t* a0, double a1) { CALL(rocksdb_options_set_memtable_prefix_bloom_size_ratio)(a0, a1); }
void rocksdb_options_set_memtable_whole_key_filtering(rocksdb_options_t* a0, unsigned char a1) { CALL(rocksdb_options_set_memtable_whole_key_filtering)(a0, a1); }
void rocksdb_pinnableslice_destroy(rocksdb_pinnableslice_t* a0) { CALL(rocksdb_pinnableslice_destroy)(a0); }
const char* rocksdb_pinnableslice_value(const rocksdb_pinnableslice_t* a0, size_t* a1) { return CALL(rocksdb_pinnableslice_value)(a0, a1); }
rocksdb_readoptions_t* rocksdb_readoptions_create(void) { return CALL(rocksdb_readoptions_create)(); }
void rocksdb_readoptions_destroy(rocksdb_readoptions_t* a0) { CALL(rocksdb_readoptions_destroy)(a0); }
void rocksdb_readoptions_set_snapshot(rocksdb_readoptions_t* a0, const rocksdb_snapshot_t* a1) { CALL(rocksdb_readoptions_set_snapshot)(a0, a1); }
void rocksdb_release_snapshot(rocksdb_t* a0, const rocksdb_snapshot_t* a1) { CALL(rocksdb_release_snapshot)(a0, a1); }
void rocksdb_write(rocksdb_t* a0, const rocksdb_writeoptions_t* a1, rocksdb_writebatch_t* a2, char** a3) { CALL(rocksdb_write)(a0, a1, a2, a3); }
rocksdb_writebatch_t* rocksdb_writebatch_create(void) { return CALL(rocksdb_writebatch_create)(); }
void rocksdb_writebatch_clear(rocksdb_writebatch_t* a0) { CALL(rocksdb_writebatch_clear)(a0); }
const char* rocksdb_writebatch_data(rocksdb_writebatch_t* a0, size_t* a1) { return CALL(rocksdb_writebatch_data)(a0, a1); }
void rocksdb_writebatch_delete(rocksdb_writebatch_t* a0, const char* a1, size_t a2) { CALL(rocksdb_writebatch_delete)(a0, a1, a2); }
int rocksdb_writebatch_count(rocksdb_writebatch_t* a0) { return CALL(rocksdb_writebatch_count)(a0); }
void rocksdb_writebatch_destroy(rocksdb_writebatch_t* a0) { CALL(rocksdb_writebatch_destroy)(a0); }
void rocksdb_writebatch_put(rocksdb_writebatch_t* a0, const char* a1, size_t a2, const char* a3, size_t a4) { CALL(rocksdb_writebatch_put)(a0, a1, a2, a3, a4); }
rocksdb_writeoptions_t* rocksdb_writeoptions_create(void) { return CALL(rocksdb_writeoptions_create)(); }
void rocksdb_writeoptions_destroy(rocksdb_writeoptions_t* a0) { CALL(rocksdb_writeoptions_destroy)(a0); }
void rocksdb_writeoptions_set_sync(rocksdb_writeoptions_t* a0, unsigned char a1) { CALL(rocksdb_writeoptions_set_sync)(a0, a1); }

// MARK: The encrypted environment (Modules/CRocksDBEncryption)

// The shim is a shared library of this package, built beside the executables (swift build puts
// every product in one folder); a program installed elsewhere finds it on the library path.
static const char encryption_library_name[] = "libCRocksDBEncryption.so";

#define ENCRYPTION_FUNCTIONS(X) \
    X(cblrdbenc_env_create, cbl_rocksdb_encryption_env *, (const unsigned char *, size_t, char **)) \
    X(cblrdbenc_env_rocksdb_env, rocksdb_env_t *, (cbl_rocksdb_encryption_env *)) \
    X(cblrdbenc_env_rocksdb_logger, rocksdb_logger_t *, (cbl_rocksdb_encryption_env *)) \
    X(cblrdbenc_env_destroy, void, (cbl_rocksdb_encryption_env *)) \
    X(cblrdbenc_check_file, int, (const char *, const unsigned char *, size_t))

static struct {
#define FIELD(name, result, parameters) result (*name) parameters;
    ENCRYPTION_FUNCTIONS(FIELD)
#undef FIELD
} encryption;
static char encryption_error[1024];
static int encryption_loaded;
static pthread_once_t encryption_once = PTHREAD_ONCE_INIT;

// Tries the folder of `object_path` (a path to a file); returns the handle or NULL.
static void *open_beside(const char *object_path, char *tried, size_t tried_size) {
    const char *slash = strrchr(object_path, '/');
    if (slash == NULL) return NULL;
    char candidate[PATH_MAX];
    int length = snprintf(candidate, sizeof candidate, "%.*s/%s", (int)(slash - object_path), object_path,
                          encryption_library_name);
    if (length < 0 || (size_t)length >= sizeof candidate) return NULL;
    size_t used = strlen(tried);
    snprintf(tried + used, tried_size - used, "%s%s", used ? ", " : "", candidate);
    return dlopen(candidate, RTLD_NOW | RTLD_LOCAL);
}

static void load_encryption(void) {
    char *rocksdb_error = NULL;
    if (!cbl_rocksdb_load(&rocksdb_error)) {
        snprintf(encryption_error, sizeof encryption_error, "%s", rocksdb_error ? rocksdb_error : "cannot load RocksDB");
        free(rocksdb_error);
        return;
    }
    char tried[PATH_MAX * 2 + 64] = "";
    void *library = NULL;
    const char *dl_message = NULL;
    // Beside the executable, then beside the object that holds this code (when it is a shared
    // library), then on the library path.
    char executable[PATH_MAX];
    ssize_t length = readlink("/proc/self/exe", executable, sizeof executable - 1);
    if (length > 0) {
        executable[length] = '\0';
        library = open_beside(executable, tried, sizeof tried);
        if (library == NULL && dl_message == NULL) dl_message = dlerror();
    }
    Dl_info info;
    if (library == NULL && dladdr((void *)&cbl_rocksdb_load_encryption, &info) != 0 && info.dli_fname != NULL
        && (length <= 0 || strcmp(info.dli_fname, executable) != 0)) {
        library = open_beside(info.dli_fname, tried, sizeof tried);
        if (library == NULL && dl_message == NULL) dl_message = dlerror();
    }
    if (library == NULL) {
        library = dlopen(encryption_library_name, RTLD_NOW | RTLD_LOCAL);
        if (library == NULL && dl_message == NULL) dl_message = dlerror();
    }
    if (library == NULL) {
        snprintf(encryption_error, sizeof encryption_error,
                 "cannot load %s, which encrypted RocksDB databases need (build it with `swift build "
                 "--product CRocksDBEncryption` and keep it beside the executable; tried %s and the "
                 "library path): %s", encryption_library_name, tried, dl_message ? dl_message : "not found");
        return;
    }
#define RESOLVE(name, result, parameters) \
    encryption.name = (result (*) parameters)dlsym(library, #name); \
    if (encryption.name == NULL) { \
        snprintf(encryption_error, sizeof encryption_error, "%s has no function %s", encryption_library_name, #name); \
        return; \
    }
    ENCRYPTION_FUNCTIONS(RESOLVE)
#undef RESOLVE
    __atomic_store_n(&encryption_loaded, 1, __ATOMIC_RELEASE);
}

int cbl_rocksdb_load_encryption(char **error) {
    pthread_once(&encryption_once, load_encryption);
    if (__atomic_load_n(&encryption_loaded, __ATOMIC_ACQUIRE)) return 1;
    if (error != NULL) *error = strdup(encryption_error);
    return 0;
}

// As for RocksDB's functions: the Swift code loads the library before calling these.
static void require_encryption(void) {
    if (!__atomic_load_n(&encryption_loaded, __ATOMIC_ACQUIRE) && !cbl_rocksdb_load_encryption(NULL)) {
        fprintf(stderr, "RocksDB encryption used before it was loaded: %s\n", encryption_error);
        abort();
    }
}

cbl_rocksdb_encryption_env *cbl_rocksdb_encryption_env_create(const unsigned char *key, size_t key_length, char **error) {
    require_encryption();
    return encryption.cblrdbenc_env_create(key, key_length, error);
}
rocksdb_env_t *cbl_rocksdb_encryption_env_rocksdb_env(cbl_rocksdb_encryption_env *env) {
    require_encryption();
    return encryption.cblrdbenc_env_rocksdb_env(env);
}
rocksdb_logger_t *cbl_rocksdb_encryption_env_logger(cbl_rocksdb_encryption_env *env) {
    require_encryption();
    return encryption.cblrdbenc_env_rocksdb_logger(env);
}
void cbl_rocksdb_encryption_env_destroy(cbl_rocksdb_encryption_env *env) {
    require_encryption();
    encryption.cblrdbenc_env_destroy(env);
}
int cbl_rocksdb_encryption_check_file(const char *path, const unsigned char *key, size_t key_length) {
    require_encryption();
    return encryption.cblrdbenc_check_file(path, key, key_length);
}
