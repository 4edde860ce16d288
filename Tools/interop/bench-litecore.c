// bench-litecore DIR NAME: times work on the real LiteCore 2.8 through its C API, for `cblite-bench`'s
// rows beside the real core (issue 39). Opens (creating) DIR/NAME.cblite2 with shared keys and reads
// commands from stdin, one per line; each answers one line, "ok ..." or "error <message>":
//   import FILE              every line of FILE ("ID<TAB>JSON") saved as a new document, one transaction
//                            per 1,000 → "ok NS"
//   save FILE ROUND          every document of FILE updated to its JSON with ,"round":ROUND appended, in one
//                            transaction → "ok NS"
//   index NAME SPEC          value index, SPEC its JSON expressions → "ok NS"
//   fts NAME LANG SPEC       full-text index (LANG "-": none) → "ok NS"
//   drop NAME                deletes an index → "ok NS"
//   query SLOT JSON          compiles a JSON query into SLOT (0–63) → "ok NS"
//   run SLOT [PARAMS]        runs it, reading every row's first column → "ok ROWS NS"
//   explain SLOT             → "ok PLAN", the plan's lines joined with "|"
// NS is the command's own wall time in nanoseconds (CLOCK_MONOTONIC), so a pipe's round trip is not
// counted. Build against the reference peer as make-litecore-indexes.c (README.md), with -O2.
#include "c4.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static C4Database* db;
static C4Query* slots[64];
static volatile size_t sink;   // keeps the reads of each row's first column from being optimised away

static long long nowNS(void) {
    struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void fail(C4Error e) {
    C4SliceResult m = c4error_getMessage(e);
    printf("error %d/%d %.*s\n", (int)e.domain, (int)e.code, (int)m.size, (const char*)m.buf);
    c4slice_free(m);
}

// The lines of `path`, each split at its first tab into *ids and *bodies; returns the count.
static int readDocuments(const char* path, char*** ids, char*** bodies) {
    FILE* f = fopen(path, "r");
    if (!f) return -1;
    int n = 0, cap = 0; char* line = NULL; size_t lineCap = 0; ssize_t len;
    *ids = NULL; *bodies = NULL;
    while ((len = getline(&line, &lineCap, f)) > 0) {
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = 0;
        char* tab = strchr(line, '\t');
        if (!tab) continue;
        *tab = 0;
        if (n == cap) { cap = cap ? cap * 2 : 1024; *ids = realloc(*ids, cap * sizeof(char*)); *bodies = realloc(*bodies, cap * sizeof(char*)); }
        (*ids)[n] = strdup(line); (*bodies)[n] = strdup(tab + 1); n++;
    }
    free(line); fclose(f);
    return n;
}

static void freeDocuments(int n, char** ids, char** bodies) {
    for (int i = 0; i < n; i++) { free(ids[i]); free(bodies[i]); }
    free(ids); free(bodies);
}

// Saves `json` as a new revision of `docID` (a new document when `create`).
static bool put(const char* docID, const char* json, bool create, C4Error* e) {
    C4SliceResult body = c4db_encodeJSON(db, c4str(json), e);
    if (!body.buf) return false;
    C4Document* doc;
    if (create) {
        doc = c4doc_create(db, c4str(docID), (C4Slice){body.buf, body.size}, 0, e);
    } else {
        C4Document* current = c4doc_get(db, c4str(docID), true, e);
        doc = current ? c4doc_update(current, (C4Slice){body.buf, body.size}, 0, e) : NULL;
        if (current) c4doc_release(current);
    }
    c4slice_free(body);
    if (!doc) return false;
    c4doc_release(doc);
    return true;
}

static void importFile(const char* path) {
    char **ids, **bodies; int n = readDocuments(path, &ids, &bodies);
    if (n < 0) { printf("error cannot read %s\n", path); return; }
    C4Error e = {0};
    long long start = nowNS();
    bool ok = true;
    for (int i = 0; i < n && ok; i += 1000) {
        ok = c4db_beginTransaction(db, &e);
        for (int j = i; ok && j < n && j < i + 1000; j++) ok = put(ids[j], bodies[j], true, &e);
        ok = c4db_endTransaction(db, ok, ok ? &e : NULL) && ok;
    }
    long long took = nowNS() - start;
    if (ok) printf("ok %lld\n", took); else fail(e);
    freeDocuments(n, ids, bodies);
}

static void saveFile(const char* path, long round) {
    char **ids, **bodies; int n = readDocuments(path, &ids, &bodies);
    if (n < 0) { printf("error cannot read %s\n", path); return; }
    // The bodies with the round appended, made before the clock starts (the caller's side does the same
    // to its JSON text before saving).
    char** updated = malloc(n * sizeof(char*));
    for (int i = 0; i < n; i++) {
        size_t len = strlen(bodies[i]);
        updated[i] = malloc(len + 40);
        memcpy(updated[i], bodies[i], len - 1);
        sprintf(updated[i] + len - 1, ",\"round\":%ld}", round);
    }
    C4Error e = {0};
    long long start = nowNS();
    bool ok = c4db_beginTransaction(db, &e);
    for (int i = 0; ok && i < n; i++) ok = put(ids[i], updated[i], false, &e);
    ok = c4db_endTransaction(db, ok, ok ? &e : NULL) && ok;
    long long took = nowNS() - start;
    if (ok) printf("ok %lld\n", took); else fail(e);
    for (int i = 0; i < n; i++) free(updated[i]);
    free(updated);
    freeDocuments(n, ids, bodies);
}

static void createIndex(const char* name, const char* spec, C4IndexType type, const char* language) {
    C4Error e = {0};
    C4IndexOptions options = {0};
    options.language = language;
    long long start = nowNS();
    bool ok = c4db_createIndex(db, c4str(name), c4str(spec), type, type == kC4FullTextIndex ? &options : NULL, &e);
    long long took = nowNS() - start;
    if (ok) printf("ok %lld\n", took); else fail(e);
}

static void runQuery(C4Query* query, const char* params) {
    C4Error e = {0};
    long long start = nowNS();
    C4QueryEnumerator* en = c4query_run(query, NULL, params ? c4str(params) : kC4SliceNull, &e);
    if (!en) { fail(e); return; }
    long rows = 0; size_t touched = 0;
    while (c4queryenum_next(en, &e)) {
        FLArrayIterator it = en->columns;
        FLValue first = FLArrayIterator_GetValue(&it);
        FLSlice s = FLValue_AsString(first);
        touched += s.size + (size_t)FLValue_GetType(first);
        rows++;
    }
    bool failed = e.code != 0;
    if (failed) fail(e);
    // Freeing the results is part of a run, as it is of ours (a ResultSet is freed in the timed closure).
    c4queryenum_release(en);
    long long took = nowNS() - start;
    sink += touched;
    if (!failed) printf("ok %ld %lld\n", rows, took);
}

int main(int argc, char** argv) {
    if (argc < 3) { fprintf(stderr, "usage: bench-litecore DIR NAME < commands\n"); return 2; }
    c4log_setCallbackLevel(kC4LogWarning);
    C4DatabaseConfig2 cfg = {0}; cfg.parentDirectory = c4str(argv[1]); cfg.flags = kC4DB_SharedKeys | kC4DB_Create;
    C4Error e; db = c4db_openNamed(c4str(argv[2]), &cfg, &e);
    if (!db) { fail(e); return 1; }
    char* line = NULL; size_t cap = 0; ssize_t len;
    while ((len = getline(&line, &cap, stdin)) > 0) {
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = 0;
        char* rest = strchr(line, ' ');
        if (rest) *rest++ = 0;
        if (strcmp(line, "import") == 0 && rest) {
            importFile(rest);
        } else if (strcmp(line, "save") == 0 && rest && strchr(rest, ' ')) {
            char* round = strrchr(rest, ' '); *round++ = 0;
            saveFile(rest, atol(round));
        } else if (strcmp(line, "index") == 0 && rest && strchr(rest, ' ')) {
            char* spec = strchr(rest, ' '); *spec++ = 0;
            createIndex(rest, spec, kC4ValueIndex, NULL);
        } else if (strcmp(line, "fts") == 0 && rest && strchr(rest, ' ')) {
            char* language = strchr(rest, ' '); *language++ = 0;
            char* spec = strchr(language, ' ');
            if (!spec) { printf("error fts NAME LANG SPEC\n"); fflush(stdout); continue; }
            *spec++ = 0;
            createIndex(rest, spec, kC4FullTextIndex, strcmp(language, "-") == 0 ? NULL : language);
        } else if (strcmp(line, "drop") == 0 && rest) {
            long long start = nowNS();
            if (c4db_deleteIndex(db, c4str(rest), &e)) printf("ok %lld\n", nowNS() - start); else fail(e);
        } else if (strcmp(line, "query") == 0 && rest && strchr(rest, ' ')) {
            char* json = strchr(rest, ' '); *json++ = 0;
            int slot = atoi(rest);
            if (slot < 0 || slot >= 64) { printf("error slot\n"); fflush(stdout); continue; }
            if (slots[slot]) c4query_release(slots[slot]);
            int position = -1;
            long long start = nowNS();
            slots[slot] = c4query_new2(db, kC4JSONQuery, c4str(json), &position, &e);
            if (slots[slot]) printf("ok %lld\n", nowNS() - start); else fail(e);
        } else if (strcmp(line, "run") == 0 && rest) {
            char* params = strchr(rest, ' ');
            if (params) *params++ = 0;
            int slot = atoi(rest);
            if (slot < 0 || slot >= 64 || !slots[slot]) printf("error no query in slot\n");
            else runQuery(slots[slot], params);
        } else if (strcmp(line, "explain") == 0 && rest) {
            int slot = atoi(rest);
            if (slot < 0 || slot >= 64 || !slots[slot]) { printf("error no query in slot\n"); fflush(stdout); continue; }
            C4StringResult plan = c4query_explain(slots[slot]);
            for (size_t i = 0; i < plan.size; i++) if (((char*)plan.buf)[i] == '\n') ((char*)plan.buf)[i] = '|';
            printf("ok %.*s\n", (int)plan.size, (const char*)plan.buf);
            c4slice_free(plan);
        } else {
            printf("error unknown command %s\n", line);
        }
        fflush(stdout);
    }
    free(line);
    for (int i = 0; i < 64; i++) if (slots[i]) c4query_release(slots[i]);
    c4db_close(db, &e); c4db_release(db);
    return 0;
}
