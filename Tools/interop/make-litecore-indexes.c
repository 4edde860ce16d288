// make-litecore-indexes DIR NAME [fts] [INDEX=SPEC ...]: adds indexes to DIR/NAME.cblite2 through
// LiteCore 2.8's C API, as real Couchbase Lite would. With no further arguments: a value index
// "byCountryCity" on [country, city] and a full-text index "descFTS" on description (English).
// "fts": the full-text indexes only: "descFTS", "nameDescFTS" on name and description (English) and
// "descPlainFTS" on description with no language (no stemming, no stop words).
// INDEX=SPEC: a value index, SPEC its JSON expressions. Build against the reference peer (README.md).
#include "c4.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static void check(bool ok, C4Error e, const char* what) {
    if (!ok) { C4SliceResult m = c4error_getMessage(e); fprintf(stderr, "%s failed: %.*s\n", what, (int)m.size, (const char*)m.buf); exit(1); }
}
static void fts(C4Database* db, const char* name, const char* spec, const char* language) {
    C4Error e; C4IndexOptions o = {0}; o.language = language; o.ignoreDiacritics = false;
    check(c4db_createIndex(db, c4str(name), c4str(spec), kC4FullTextIndex, &o, &e), e, name);
}
int main(int argc, char** argv) {
    if (argc < 3) { fprintf(stderr, "usage: make-litecore-indexes DIR NAME [fts] [INDEX=SPEC ...]\n"); return 2; }
    C4DatabaseConfig2 cfg = {0}; cfg.parentDirectory = c4str(argv[1]); cfg.flags = kC4DB_SharedKeys;
    C4Error e; C4Database* db = c4db_openNamed(c4str(argv[2]), &cfg, &e); check(db != NULL, e, "open");
    if (argc == 3) {
        check(c4db_createIndex(db, c4str("byCountryCity"), c4str("[[\".country\"],[\".city\"]]"), kC4ValueIndex, NULL, &e), e, "value index");
        fts(db, "descFTS", "[[\".description\"]]", "en");
    }
    for (int i = 3; i < argc; i++) {
        if (strcmp(argv[i], "fts") == 0) {
            fts(db, "descFTS", "[[\".description\"]]", "en");
            fts(db, "nameDescFTS", "[[\".name\"],[\".description\"]]", "en");
            fts(db, "descPlainFTS", "[[\".description\"]]", NULL);
            continue;
        }
        char* eq = strchr(argv[i], '=');
        if (!eq) { fprintf(stderr, "not INDEX=SPEC: %s\n", argv[i]); return 2; }
        *eq = 0;
        check(c4db_createIndex(db, c4str(argv[i]), c4str(eq + 1), kC4ValueIndex, NULL, &e), e, argv[i]);
    }
    c4db_close(db, &e); c4db_release(db);
    printf("ok\n");
    return 0;
}
