// make-litecore-indexes DIR NAME: adds to DIR/NAME.cblite2 a value index "byCountryCity" on
// [country, city] and a full-text index "descFTS" on description (English), through LiteCore 2.8's
// C API, as real Couchbase Lite would. Build against the reference peer (see README.md).
#include "c4.h"
#include <stdio.h>
#include <stdlib.h>
static void check(bool ok, C4Error e, const char* what) {
    if (!ok) { C4SliceResult m = c4error_getMessage(e); fprintf(stderr, "%s failed: %.*s\n", what, (int)m.size, (const char*)m.buf); exit(1); }
}
int main(int argc, char** argv) {
    C4DatabaseConfig2 cfg = {0}; cfg.parentDirectory = c4str(argv[1]); cfg.flags = kC4DB_SharedKeys;
    C4Error e; C4Database* db = c4db_openNamed(c4str(argv[2]), &cfg, &e); check(db != NULL, e, "open");
    check(c4db_createIndex(db, c4str("byCountryCity"), c4str("[[\".country\"],[\".city\"]]"), kC4ValueIndex, NULL, &e), e, "value index");
    C4IndexOptions o = {0}; o.language = "en"; o.ignoreDiacritics = false;
    check(c4db_createIndex(db, c4str("descFTS"), c4str("[[\".description\"]]"), kC4FullTextIndex, &o, &e), e, "fts index");
    c4db_close(db, &e); c4db_release(db);
    printf("ok\n");
    return 0;
}
