// run-litecore-queries DIR NAME < batch: runs queries through LiteCore 2.8's C API on DIR/NAME.cblite2
// (read-only) and prints their rows, for diff-generated.py. Input: two lines per query, the
// parameters as a JSON object ({} for none), then the JSON query. Output per query: one line per row,
// a JSON object keyed by column number ("0", "1", …) that leaves MISSING columns out, then a line
// "#ok" or "#error <domain>/<code> <message>". (`cblite query` cannot bind parameters and starts a
// process per query.) Build as make-litecore-indexes.c (README.md).
#include "c4.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char* readLine(void) {
    size_t cap = 0; char* line = NULL;
    ssize_t n = getline(&line, &cap, stdin);
    if (n < 0) { free(line); return NULL; }
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = 0;
    return line;
}

static void printError(C4Error e) {
    C4SliceResult m = c4error_getMessage(e);
    printf("#error %d/%d %.*s\n", (int)e.domain, (int)e.code, (int)m.size, (const char*)m.buf);
    c4slice_free(m);
}

int main(int argc, char** argv) {
    if (argc < 3) { fprintf(stderr, "usage: run-litecore-queries DIR NAME < batch\n"); return 2; }
    C4DatabaseConfig2 cfg = {0}; cfg.parentDirectory = c4str(argv[1]);
    cfg.flags = kC4DB_SharedKeys | kC4DB_ReadOnly;
    C4Error e; C4Database* db = c4db_openNamed(c4str(argv[2]), &cfg, &e);
    if (!db) { printError(e); return 1; }
    char* params;
    while ((params = readLine()) != NULL) {
        char* text = readLine();
        if (!text) { free(params); break; }
        int pos = -1;
        C4Query* q = c4query_new2(db, kC4JSONQuery, c4str(text), &pos, &e);
        if (!q) { printError(e); free(params); free(text); fflush(stdout); continue; }
        C4QueryEnumerator* en = c4query_run(q, NULL, c4str(params), &e);
        if (!en) { printError(e); c4query_release(q); free(params); free(text); fflush(stdout); continue; }
        bool ok = true;
        memset(&e, 0, sizeof e);
        while (c4queryenum_next(en, &e)) {
            printf("{");
            FLArrayIterator it = en->columns; unsigned col = 0, n = 0;
            for (FLValue v; (v = FLArrayIterator_GetValue(&it)) != NULL; FLArrayIterator_Next(&it), ++col) {
                if (col < 64 && (en->missingColumns & (1ull << col))) continue;
                FLStringResult json = FLValue_ToJSON(v);
                printf("%s\"%u\":%.*s", n++ ? "," : "", col, (int)json.size, (const char*)json.buf);
                FLSliceResult_Release(json);
            }
            printf("}\n");
        }
        if (e.code) { printError(e); ok = false; }
        if (ok) printf("#ok\n");
        c4queryenum_release(en); c4query_release(q);
        free(params); free(text); fflush(stdout);
    }
    c4db_close(db, &e); c4db_release(db);
    return 0;
}
