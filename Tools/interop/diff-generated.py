#!/usr/bin/env python3
"""Seeded differential of generated JSON queries and full-text match expressions: the real
Couchbase Lite 2.8 core against ours on the travel set, with our SQLite and RocksDB engines, with
and without value indexes (issue 38). Developer tool: needs the reference peer
(../shared/reference-peer), see README.md.

  diff-generated.py prepare WORK        build the databases in WORK (once)
  diff-generated.py run WORK [--seed S] [--queries N] [--matches M] [--only CONFIG,...] [--listed yes]
                                        generate, run everywhere, print every difference
  diff-generated.py show WORK [--seed S] [--queries N] [--matches M] [--index I]
                                        print generated queries (or just number I) without running

Environment: REAL_CBLITE (the real `cblite`), LITECORE_TOOLS (folder with run-litecore-queries and
make-litecore-indexes built from this folder), OUR_CBLITE, OUR_CONVERT (our release tools).

Configurations: real-plain / real-indexed are files the real tool imported, with LiteCore's own
full-text indexes, the second also with LiteCore's value indexes; ours-sqlite-* are copies of
those files (ours adopts LiteCore's indexes); ours-rocksdb-* are `cblite-convert`ed to RocksDB,
ours-rocksdb-indexed gets the value indexes from our `cblite index`. Each ours-X-Y is compared with
real-Y. Rows compare as multisets unless ORDER BY fixes their order; numbers with a relative
tolerance of 1e-9; booleans as 0/1 (2.8 answers 0/1 in places, docs/query-semantics.md).
"""
import json, math, os, random, shutil, subprocess, sys, collections

# Forms whose answers differ from 2.8's by design (docs/query-semantics.md) are generated only
# with --listed yes: LIKE on mixed case, || and CONCAT of nulls, % of non-integers, TOSTRING of
# booleans, CONTAINS of "", aggregates of empty arrays.
LISTED = False

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "..", "..", "shared", "fixtures", "travel")
if not os.path.isdir(FIXTURES):
    FIXTURES = "/work/shared/fixtures/travel"
REAL = os.environ.get("REAL_CBLITE", "/work/refpeer/build/cblite")
LCT = os.environ.get("LITECORE_TOOLS", "/work/refpeer/interop")
OURS = os.environ.get("OUR_CBLITE", ".build/release/cblite")
CONVERT = os.environ.get("OUR_CONVERT", ".build/release/cblite-convert")
ENV = dict(os.environ, TZ="UTC", LD_LIBRARY_PATH=os.path.dirname(os.path.abspath(REAL)) + "/LiteCore")

VALUE_INDEXES = {
    "byCountryCity": [[".country"], [".city"]],
    "byCollection": [[".collection"]],
    "byName": [[".name"]],
    "byStopsAirline": [[".stops"], [".airline"]],
    "byDistance": [[".distance"]],
    "bySource": [[".sourceairport"], [".destinationairport"]],
}
FTS_INDEXES = ["descFTS", "nameDescFTS", "descPlainFTS"]
CONFIGS = ["ours-sqlite-plain", "ours-sqlite-indexed", "ours-rocksdb-plain", "ours-rocksdb-indexed"]

def sh(*args, **kw):
    print("+", " ".join(args)); sys.stdout.flush()
    subprocess.run(list(args), check=True, env=ENV, **kw)

# ---------------------------------------------------------------- preparation

def prepare(work):
    os.makedirs(work, exist_ok=True)
    travel = os.path.join(work, "travel.json")
    with open(travel, "w") as out:
        for f in ["travel.airlines.jsonl", "travel.hotels.jsonl", "travel.routes.jsonl", "travel-sg.json"]:
            for line in open(os.path.join(FIXTURES, f)):
                if line.strip(): out.write(line.rstrip("\n") + "\n")
    def db(name): return os.path.join(work, name + ".cblite2")
    for name in ["real-plain", "real-indexed"] + CONFIGS:
        shutil.rmtree(db(name), ignore_errors=True)
    sh(REAL, "cp", travel, db("real-plain"))
    sh(os.path.join(LCT, "make-litecore-indexes"), work, "real-plain", "fts")
    shutil.copytree(db("real-plain"), db("real-indexed"))
    sh(os.path.join(LCT, "make-litecore-indexes"), work, "real-indexed",
       *["%s=%s" % (k, json.dumps(v)) for k, v in VALUE_INDEXES.items()])
    shutil.copytree(db("real-plain"), db("ours-sqlite-plain"))
    shutil.copytree(db("real-indexed"), db("ours-sqlite-indexed"))
    sh(CONVERT, db("real-plain"), db("ours-rocksdb-plain"), "--engine", "rocksdb", "--quiet")
    sh(CONVERT, db("real-plain"), db("ours-rocksdb-indexed"), "--engine", "rocksdb", "--quiet")
    for k, v in VALUE_INDEXES.items():
        sh(OURS, "index", db("ours-rocksdb-indexed"), k, json.dumps(v))
    # the converted files need our full-text indexes: build them as `cblite index --fts` would
    for conf in ["ours-rocksdb-plain", "ours-rocksdb-indexed"]:
        existing = subprocess.run([OURS, "indexes", db(conf)], capture_output=True, text=True, env=ENV).stdout
        for name, props, lang in [("descFTS", ["description"], "en"), ("nameDescFTS", ["name", "description"], "en"),
                                  ("descPlainFTS", ["description"], None)]:
            if name in existing: continue
            sh(OURS, "index", db(conf), name, json.dumps(props), "--fts", *(["--language", lang] if lang else ["--no-stemming"]))

# ---------------------------------------------------------------- data model

class Field:
    def __init__(self, path):
        self.path = path; self.types = collections.Counter(); self.values = []; self.missing = 0
    @property
    def kind(self):
        t = set(self.types) - {"null"}
        return t.pop() if len(t) == 1 else ("mixed" if t else "null")
    @property
    def nullable(self): return "null" in self.types or self.missing > 0

def tname(v):
    if v is None: return "null"
    if isinstance(v, bool): return "bool"
    if isinstance(v, (int, float)): return "num"
    if isinstance(v, str): return "str"
    if isinstance(v, list): return "array"
    return "dict"

def load_model():
    docs = collections.defaultdict(list)
    for f in ["travel.airlines.jsonl", "travel.hotels.jsonl", "travel.routes.jsonl", "travel-sg.json"]:
        for line in open(os.path.join(FIXTURES, f)):
            if line.strip():
                d = json.loads(line); docs[d["collection"]].append(d)
    model = {}
    for coll, ds in docs.items():
        fields = {}
        for d in ds:
            for k, v in d.items():
                if k in ("_id", "scope", "collection"): continue
                paths = [(k, v)]
                if isinstance(v, dict): paths += [(k + "." + k2, v2) for k2, v2 in v.items() if "@" not in k2]
                for p, x in paths:
                    f = fields.setdefault(p, Field(p)); f.types[tname(x)] += 1
                    if not isinstance(x, (list, dict)) and x is not None and len(f.values) < 400: f.values.append(x)
        for f in fields.values():
            f.missing = len(ds) - sum(f.types.values())
            f.values = sorted(set(f.values), key=lambda x: (str(type(x)), x)) or [0]
        model[coll] = fields
    return model, docs

# ---------------------------------------------------------------- query generator

def P(path): return ["." + path]

class QueryGen:
    def __init__(self, seed, model, docs):
        self.r = random.Random(seed); self.model = model; self.docs = docs
        self.params = {}

    def pick(self, xs): return self.r.choice(xs)
    def chance(self, p): return self.r.random() < p

    def fields(self, coll, kind, allow_null=True):
        return [f for f in self.model[coll].values() if f.kind == kind and (allow_null or not f.nullable)]

    def literal(self, v):
        """A literal, sometimes as a query parameter."""
        if not isinstance(v, (list, dict)) and v is not None and self.chance(0.08):
            name = "p%d" % len(self.params); self.params[name] = v
            return ["$" + name]
        return v

    def value_of(self, f):
        v = self.pick(f.values)
        if isinstance(v, float) and self.chance(0.5): v = round(v, self.r.randrange(0, 3))
        return v

    # numbers
    def num(self, coll, depth=0):
        # 2.8 fails the whole query when a math function meets a non-number (MISSING included) in
        # any row ("Invalid numeric value"; docs/query-semantics.md): numbers come from fields
        # every document of the collection has
        fs = self.fields(coll, "num", allow_null=False)
        k = self.r.randrange(26 if depth < 3 else 4)
        if k < 2 and fs: return P(self.pick(fs).path)
        if k == 2: return self.literal(self.pick([0, 1, 2, 3, 7, 10, -4, 0.5, 2.5, 100, 1e3]))
        if k == 3: return ["LENGTH()", self.str_(coll, depth + 1, plain=True)]
        if k == 4:
            op = self.pick(["+", "*", "-"])
            return [op] + [self.num(coll, depth + 1) for _ in range(2 if op == "-" else self.pick([2, 2, 3, 4]))]
        if k == 5: return ["-", self.num(coll, depth + 1)]
        if k == 6: return ["/", self.num(coll, depth + 1), self.pick([2.5, 4.0, 0.25, 3.0])]
        if k == 7: return ["%", self.num(coll, depth + 1) if LISTED else ["TRUNC()", self.num(coll, depth + 1)], self.pick([2, 3, 7, 10])]
        if k == 8: return [self.pick(["ABS()", "CEIL()", "FLOOR()", "SIGN()", "ROUND()", "TRUNC()"]), self.num(coll, depth + 1)]
        if k == 9: return [self.pick(["ROUND()", "TRUNC()"]), self.num(coll, depth + 1), self.pick([0, 1, 2, 3, -1])]
        if k == 10: return [self.pick(["SQRT()", "LN()", "LOG()"]), ["+", ["ABS()", self.num(coll, depth + 1)], 1]]
        if k == 11: return [self.pick(["SIN()", "COS()", "TAN()", "ATAN()", "DEGREES()", "RADIANS()", "EXP()"]),
                            ["/", self.num(coll, depth + 1), 1000.0]]
        if k == 12: return [self.pick(["ASIN()", "ACOS()"]), ["/", ["%", ["TRUNC()", self.num(coll, depth + 1)], 100], 100.0]]
        if k == 13: return ["ATAN2()", self.num(coll, depth + 1), ["+", ["ABS()", self.num(coll, depth + 1)], 1]]
        if k == 14: return ["POWER()", ["%", ["TRUNC()", self.num(coll, depth + 1)], 10], self.pick([0, 1, 2, 3, 0.5])]
        if k == 15: return [self.pick(["PI()", "E()"])]
        if k == 16: return [self.pick(["GREATEST()", "LEAST()"])] + [self.num(coll, depth + 1) for _ in range(self.pick([2, 3]))]
        if k == 17:
            arr = self.num_array(coll, depth + 1)
            return [self.pick(["ARRAY_LENGTH()", "ARRAY_COUNT()", "ARRAY_SUM()", "ARRAY_AVG()", "ARRAY_MAX()", "ARRAY_MIN()"]), arr]
        if k == 18: return ["ARRAY_LENGTH()", self.any_array(coll)]
        if k == 19: return ["TONUMBER()", self.pick([self.num(coll, depth + 1), ["TOSTRING()", self.num(coll, depth + 1)], self.lit_str(["12", "3.5", "-7", "1e3", " 42 "])])]
        if k == 20: return ["CASE", None, self.pred(coll, depth + 1), self.num(coll, depth + 1), self.num(coll, depth + 1)]
        if k == 21: return ["REGEXP_POSITION()", self.str_(coll, depth + 1, plain=True), self.pick(["a", "[0-9]+", "e.", "^[A-Z]", "o\\b", "x"])]
        if k == 22: return ["STR_TO_MILLIS()", self.date_str(coll, depth + 1)]
        if k == 23:
            if coll == "hotels": return ["_.ratings.Overall", P("reviews[%d]" % self.r.randrange(0, 3))]
            if coll == "routes": return P("schedule[%d].day" % self.r.randrange(0, 4))
            return ["_.lat", P("geo")] if "geo.lat" in self.model[coll] else self.literal(3)
        if k == 24: return [self.pick(["IFNULL()", "IFMISSING()", "IFMISSINGORNULL()"]), self.num(coll, depth + 1), self.num(coll, depth + 1)]
        if k == 25: return ["ARRAY_COUNT()", self.any_array(coll)]
        return self.literal(1)

    def date_str(self, coll, depth):
        k = self.r.randrange(3)
        if k == 0 and coll == "hotels": return P("reviews[%d].date" % self.r.randrange(0, 2))
        if k == 1: return ["MILLIS_TO_STR()", self.literal(self.pick([0, 1e12, 1234567890123, 1600000000000, 86399999]))]
        return self.lit_str(["2015-07-08 03:14:11 +0300", "2013-06-22T18:33:50Z", "2020-02-29", "2001-01-01T00:00:00.123+01:00",
                             "1999-12-31T23:59:59", "2013-06-22 18:33:50", "not a date", "2012-13-40"])

    def lit_str(self, xs): return self.literal(self.pick(xs))

    def num_array(self, coll, depth):
        k = self.r.randrange(3)
        if k == 0: return ["[]"] + [self.num(coll, depth + 1) for _ in range(self.r.randrange(0 if LISTED else 1, 4))]
        if k == 1 and coll == "hotels":
            return ["ARRAY_OF()"] + [["_.ratings.%s" % self.pick(["Overall", "Value", "Rooms"]), P("reviews[%d]" % i)] for i in range(self.r.randrange(1, 3))]
        return ["ARRAY_OF()"] + [self.num(coll, depth + 1) for _ in range(self.r.randrange(1, 4))]

    def any_array(self, coll):
        arrays = [f.path for f in self.model[coll].values() if f.kind == "array"]
        return P(self.pick(arrays)) if arrays else ["[]", 1, 2]

    # strings
    def str_(self, coll, depth=0, plain=False):
        fs = self.fields(coll, "str", allow_null=not plain)
        k = self.r.randrange(16 if depth < 3 else 3)
        if k < 2 and fs: return P(self.pick(fs).path)
        if k == 2 or not fs: return self.lit_str(["abc", "Hotel", "", "x y", "ÉTÉ", "San Francisco", "  pad  "])
        if k == 3: return [self.pick(["UPPER()", "LOWER()", "TRIM()", "LTRIM()", "RTRIM()"]), self.str_(coll, depth + 1, plain)]
        if k == 4: return ["||"] + [self.str_(coll, depth + 1, not LISTED) for _ in range(self.pick([2, 2, 3]))]
        if k == 5: return ["CONCAT()"] + [self.str_(coll, depth + 1, not LISTED) for _ in range(self.pick([2, 3]))]
        if k == 6: return ["TOSTRING()", self.pick([self.num(coll, depth + 1), self.str_(coll, depth + 1, plain)]
                                                   + ([self.pred(coll, depth + 1)] if LISTED else []))]
        if k == 7: return ["TYPE()", self.pick([P(self.pick(list(self.model[coll]))), self.num(coll, depth + 1), ["[]"], {"a": 1}])]
        if k == 8: return ["REGEXP_REPLACE()", self.str_(coll, depth + 1, plain), self.pick(["a", "[aeiou]", "\\s+", "^(\\w+)", "o(.)"]),
                           self.pick(["-", "", "$1", "<$&>", "$$"])] + ([self.pick([1, 2])] if self.chance(0.3) else [])
        if k == 9: return [self.pick(["MILLIS_TO_STR()", "MILLIS_TO_UTC()"]), self.pick([self.literal(self.pick([0, 1e12, 1234567890123, 1600000000000])),
                                                                                           ["STR_TO_MILLIS()", self.date_str(coll, depth + 1)]])]
        if k == 10: return ["STR_TO_UTC()", self.date_str(coll, depth + 1)]
        if k == 11: return ["CASE", self.str_(coll, depth + 1, plain)] + sum([[self.value_of(self.pick(fs)), self.str_(coll, depth + 1, plain)] for _ in range(self.pick([1, 2]))], []) + [self.str_(coll, depth + 1, plain)]
        if k == 12: return [self.pick(["IFNULL()", "IFMISSINGORNULL()"]), self.str_(coll, depth + 1), self.str_(coll, depth + 1, plain)]
        if k == 13: return ["NULLIF()", self.str_(coll, depth + 1, plain), self.str_(coll, depth + 1, plain)] if not plain else self.str_(coll, depth + 1, plain)
        if k == 14 and coll == "hotels": return ["_.author", P("reviews[%d]" % self.r.randrange(0, 3))]
        if k == 14: return ["_.accuracy", P("geo")] if "geo.accuracy" in self.model[coll] else P(self.pick(fs).path)
        return ["._id"]

    # predicates
    def cmp_pair(self, coll, depth):
        kind = self.pick(["num", "num", "str", "str", "bool"])
        if kind == "bool":
            fs = self.fields(coll, "bool")
            if not fs: kind = "num"
            else: return P(self.pick(fs).path), self.literal(self.pick([True, False]))
        if kind == "num":
            fs = self.fields(coll, "num", allow_null=False)
            if fs and self.chance(0.6):
                f = self.pick(fs); return P(f.path), self.literal(self.value_of(f))
            return self.num(coll, depth + 1), self.num(coll, depth + 1)
        fs = self.fields(coll, "str", allow_null=False)
        if fs and self.chance(0.6):
            f = self.pick(fs); return P(f.path), self.literal(self.value_of(f))
        return self.str_(coll, depth + 1, plain=True), self.str_(coll, depth + 1, plain=True)

    def pred(self, coll, depth=0):
        k = self.r.randrange(24 if depth < 3 else 8)
        if k < 3:
            a, b = self.cmp_pair(coll, depth)
            return [self.pick(["=", "=", "!=", "<", "<=", ">", ">="]), a, b]
        if k == 3:
            f = self.pick(list(self.model[coll].values()))
            return [self.pick(["IS", "IS NOT"]), P(f.path), self.pick([None, ["MISSING"]])]
        if k == 4:
            fs = self.fields(coll, "str", allow_null=False) + self.fields(coll, "num", allow_null=False)
            f = self.pick(fs)
            vals = [self.literal(self.value_of(f)) for _ in range(self.r.randrange(1, 5))]
            return [self.pick(["IN", "IN", "NOT IN"]), P(f.path), ["[]"] + vals]
        if k == 5:
            f = self.pick(self.fields(coll, "num", allow_null=False) + self.fields(coll, "str", allow_null=False))
            lo, hi = sorted([self.value_of(f), self.value_of(f)], key=lambda x: (str(type(x)), x))
            return ["BETWEEN", P(f.path), self.literal(lo), self.literal(hi)]
        if k == 6:
            f = self.pick(self.fields(coll, "str", allow_null=False))
            v = str(self.value_of(f))
            i = self.r.randrange(0, len(v) + 1); j = self.r.randrange(i, len(v) + 1)
            pat = self.pick(["%s%%" % v[:i], "%%%s%%" % v[i:j], "%s_%s" % (v[:i], v[i + 1:]), v, "%", "_%"])
            if self.chance(0.5) or not LISTED: return ["LIKE", ["LOWER()", P(f.path)], self.literal(pat.lower())]
            return ["LIKE", P(f.path), self.literal(pat)]
        if k == 7:
            s = self.str_(coll, depth + 1, plain=True)
            return [self.pick(["REGEXP_LIKE()", "REGEXP_CONTAINS()"]), s,
                    self.pick(["^A", "a$", "[0-9]", "\\bAir\\b", "^[A-Z]{3}$", "(on|in)\\b", "\\bEng.*e\\b", "^.{4,6}$", "ll", "\\d{2}"])]
        if k == 8:
            return ["CONTAINS()", self.str_(coll, depth + 1, plain=True), self.lit_str(["a", "Air", "on", "in", "Hotel", "e"] + ([""] if LISTED else []))]
        if k == 9: return ["AND"] + [self.pred(coll, depth + 1) for _ in range(self.pick([2, 2, 3]))]
        if k == 10: return ["OR"] + [self.pred(coll, depth + 1) for _ in range(self.pick([2, 2, 3]))]
        if k == 11: return ["NOT", self.pred(coll, depth + 1)]
        if k == 12: return self.quantified(coll, depth)
        if k == 13:
            fs = self.fields(coll, "array")
            if coll == "hotels" and self.chance(0.5):
                return ["ARRAY_CONTAINS()", P("public_likes"), self.lit_str(["Mittie Pollich", "Jackie Kirlin", "nobody"])]
            return ["ARRAY_CONTAINS()", P("channels"), self.lit_str(["United States", "France", "United Kingdom", "Germany"])]
        if k == 14:
            f = self.pick(list(self.model[coll].values()))
            return [self.pick(["ISSTRING()", "ISNUMBER()", "ISBOOLEAN()", "ISARRAY()", "ISOBJECT()", "ISATOM()"]), P(f.path)]
        if k == 15:
            return ["CASE", None, self.pred(coll, depth + 1), self.pred(coll, depth + 1), self.pred(coll, depth + 1)]
        if k == 16:
            return ["=", ["TOBOOLEAN()", self.pick([self.num(coll, depth + 1), self.str_(coll, depth + 1, plain=True)])], self.pick([True, False])]
        if k == 17:
            return [self.pick(["<", ">", "="]), self.num(coll, depth + 1), self.num(coll, depth + 1)]
        if k == 18:
            f = self.pick(self.fields(coll, "str", allow_null=False))
            return ["=", P(f.path), ["CASE", None, self.pred(coll, depth + 1), self.literal(self.value_of(f)), P(f.path)]]
        if k == 19:
            return ["=", ["[]", self.num(coll, depth + 1), self.str_(coll, depth + 1, plain=True)],
                    ["ARRAY_OF()", self.num(coll, depth + 1), self.str_(coll, depth + 1, plain=True)]]
        if k == 20:
            f = self.pick(self.fields(coll, "str", allow_null=False))
            return ["=", ["_.k", {"k": P(f.path), "n": 1}], self.literal(self.value_of(f))]
        if k == 21:
            f = self.pick(list(self.model[coll].values()))
            return [self.pick(["IS VALUED", "IS NOT VALUED"]), P(f.path)] if False else ["IS NOT", ["IFMISSINGORNULL()", P(f.path), None], None]
        if k == 22:
            return ["=", ["MISSINGIF()", self.num(coll, depth + 1), self.num(coll, depth + 1)], ["MISSINGIF()", self.num(coll, depth + 1), 0]]
        return ["BETWEEN", self.num(coll, depth + 1), self.num(coll, depth + 1), self.num(coll, depth + 1)]

    def quantified(self, coll, depth):
        q = self.pick(["ANY", "ANY", "EVERY", "ANY AND EVERY"])
        if coll == "routes":
            return [q, "s", P("schedule"), self.pick([[self.pick(["=", "<", ">="]), ["?s", "day"], self.literal(self.r.randrange(0, 7))],
                                                    ["LIKE", ["?s.utc"], self.pick(["0%", "1_:%", "%:00:00"])],
                                                    ["AND", [">", ["?s.day"], 2], ["LIKE", ["LOWER()", ["?s", "flight"]], self.pick(["q5%", "af%", "%1"])]]])]
        if coll == "hotels":
            if self.chance(0.3): return [q, "p", P("public_likes"), ["LIKE", ["LOWER()", ["?p"]], self.pick(["m%", "%son", "ms.%", "%e%"])]]
            return [q, "r", P("reviews"), self.pick([[self.pick([">", "<", "=", ">="]), ["?r", "ratings", "Overall"], self.literal(self.r.randrange(1, 6))],
                                                    ["<", ["?r.date"], self.lit_str(["2013", "2014-06", "2015-01-01"])],
                                                    ["IS", ["?r.ratings.Rooms"], ["MISSING"]]])]
        return [q, "c", P("channels"), ["=", ["?c"], self.lit_str(["United States", "France", "United Kingdom"])]]

    def what_expr(self, coll):
        k = self.r.randrange(12)
        if k < 3: return P(self.pick(list(self.model[coll])))
        # (`._expiration` is left out: 2.8 adds its column on first use and fails read-only)
        if k == 3: return self.pick([["._id"], ["._sequence"], ["._revisionID"], ["._deleted"]])
        if k < 6: return self.num(coll)
        if k < 8: return self.str_(coll)
        if k == 8: return self.pred(coll, 1)
        if k == 9: return ["[]", self.num(coll, 2), self.str_(coll, 2)]
        if k == 10: return {"n": self.num(coll, 2), "s": self.str_(coll, 2), "l": ["[]", 1, "x"]}
        # (TOARRAY and TOOBJECT are "unimplemented N1QL function"s in 2.8)
        return self.pick([["TOATOM()", ["[]", self.num(coll, 2)]], ["TOATOM()", self.str_(coll, 2)],
                          ["ARRAY_IFNULL()", ["[]", None, self.num(coll, 2)]], ["ISATOM()", P("geo")] if "geo" in self.model[coll] else ["ISATOM()", None]])

    def query(self):
        """A query and whether its row order is fixed."""
        self.params = {}
        coll = self.pick(["hotels", "hotels", "routes", "routes", "airlines", "airports", "landmarks"])
        where = ["=", P("collection"), coll] if self.chance(0.85) else ["=", ["._id"], ["||", coll[:-1] + "_", self.lit_str(["1", "10", "2", "137"])]]
        where = ["AND", where, self.pred(coll)]
        q = {"WHAT": [["AS", self.what_expr(coll), "c%d" % j] for j in range(self.r.randrange(1, 4))], "WHERE": where}
        ordered = False
        r = self.r.random()
        if r < 0.25:
            sortable = [f for f in self.fields(coll, "num", False) + self.fields(coll, "str", False)]
            keys = []
            for _ in range(self.r.randrange(1, 3)):
                e = self.pick([P(self.pick(sortable).path), ["LENGTH()", P(self.pick(self.fields(coll, "str", False)).path)], ["._id"]])
                keys.append(["DESC", e] if self.chance(0.4) else (["ASC", e] if self.chance(0.2) else e))
            q["ORDER_BY"] = keys + [["._id"]]; ordered = True
            if self.chance(0.6):
                q["LIMIT"] = self.literal(self.r.randrange(0, 25))
                if self.chance(0.5): q["OFFSET"] = self.r.randrange(0, 10)
        elif r < 0.45:
            g = self.pick(self.fields(coll, "str", False) + self.fields(coll, "num", False) + self.fields(coll, "bool", False))
            # (`%` of a non-integer field here differs by design: docs/query-semantics.md)
            gexpr = P(g.path) if self.chance(0.8) else ["LOWER()", P(g.path)] if g.kind == "str" else ["%", P(g.path), 3] if g.kind == "num" else P(g.path)
            numf = self.fields(coll, "num", False)
            aggs = [["COUNT()", ["."]], ["COUNT()", ["._id"]]]
            if numf:
                aggs += [[self.pick(["SUM()", "AVG()", "MIN()", "MAX()"]), P(self.pick(numf).path)] for _ in range(2)]
            strf = self.fields(coll, "str", False)
            aggs += [[self.pick(["MIN()", "MAX()"]), P(self.pick(strf).path)]]
            what = [gexpr] + self.r.sample(aggs, self.r.randrange(1, 3))
            q["WHAT"] = [["AS", e, "c%d" % j] for j, e in enumerate(what)]
            q["GROUP_BY"] = [gexpr]
            if self.chance(0.4):
                q["HAVING"] = [self.pick([">", ">=", "<"]), ["COUNT()", ["."]], self.r.randrange(1, 20)]
            if self.chance(0.3):
                q["ORDER_BY"] = [gexpr]; ordered = True
                if self.chance(0.5): q["LIMIT"] = self.r.randrange(1, 10)
        elif r < 0.55:
            q["DISTINCT"] = True
            q["WHAT"] = [["AS", P(self.pick(self.fields(coll, "str") + self.fields(coll, "num") + self.fields(coll, "bool")).path), "c0"]]
            if self.chance(0.5):
                q["WHAT"].append(["AS", self.pick([self.num(coll, 2), self.str_(coll, 2)]), "c1"])
        text = json.dumps(q)   # parameters of discarded alternatives are left out (2.8 refuses unknown ones)
        return q, {k: v for k, v in self.params.items() if '["$%s"]' % k in text}, ordered

# ---------------------------------------------------------------- match generator

STOP = ["the", "a", "and", "of", "to", "in", "is", "not", "or", "it", "with", "for", "an", "at", "by", "this", "be", "are", "from"]

class MatchGen:
    def __init__(self, seed, docs):
        self.r = random.Random(seed)
        words = collections.Counter(); self.phrases = []
        import re
        for d in docs["hotels"]:
            ws = re.findall(r"[A-Za-z]+", d.get("description", ""))
            words.update(w.lower() for w in ws)
            if len(ws) > 4:
                i = self.r.randrange(0, len(ws) - 3); self.phrases.append(ws[i:i + self.r.randrange(2, 5)])
        common = [w for w, _ in words.most_common(400) if w not in STOP and len(w) > 2]
        self.common = common
        self.rare = [w for w, n in words.items() if n <= 3 and len(w) > 3][:600]
        self.inflected = [w for w in common + self.rare if w.endswith(("s", "es", "ed", "ing", "ies", "ly"))]

    def pick(self, xs): return self.r.choice(xs)
    def chance(self, p): return self.r.random() < p

    def word(self):
        k = self.r.randrange(10)
        w = self.pick(self.common) if k < 6 else self.pick(self.rare) if k < 8 else self.pick(self.inflected)
        if self.chance(0.1): w = w.upper()
        elif self.chance(0.1): w = w.capitalize()
        return w

    def term(self, depth=0):
        k = self.r.randrange(12)
        if k < 4: return self.word()
        if k == 4: return self.pick(self.inflected)[: None if self.chance(0.5) else -1] + "*"
        if k == 5: return self.word()[:self.r.randrange(2, 5)] + "*"
        if k == 6:
            ph = list(self.pick(self.phrases))
            if self.chance(0.3): ph[-1] = ph[-1] + "*"
            return '"' + " ".join(ph) + '"'
        if k == 7: return self.pick(STOP) + " " + self.word()
        if k == 8: return self.word() + " " + self.pick(STOP)
        if k == 9 and depth < 2: return "(" + self.expr(depth + 1) + ")"
        if k == 10: return self.pick(self.columns) + ":" + self.word()
        return self.pick(STOP) if self.chance(0.3) else self.word()

    def expr(self, depth=0):
        parts = [self.term(depth)]
        for _ in range(self.r.randrange(0, 3 if depth < 2 else 1)):
            op = self.pick(["", "", "AND", "OR", "NOT", "NEAR", "NEAR/%d" % self.r.randrange(0, 6), "or", "OR " + self.pick(STOP)])
            parts += ([op] if op else []) + [self.term(depth)]
        return " ".join(parts)

    def query(self):
        index = self.pick(["descFTS", "descFTS", "descFTS", "nameDescFTS", "descPlainFTS"])
        # FTS4 takes only its table's columns as filters (docs/query-semantics.md lists the rest)
        self.columns = ["name", "description"] if index == "nameDescFTS" else ["description"]
        text = self.expr()
        where = ["MATCH", index, text]
        if self.chance(0.1):
            where = ["AND", where, ["=", [".country"], self.pick(["France", "United States", "United Kingdom"])]]
        return {"WHAT": [["._id"]], "WHERE": where}, {}, False

# ---------------------------------------------------------------- running and comparing

def run_batch(cmd, items, cwd=None):
    text = "".join(json.dumps(p) + "\n" + json.dumps(q) + "\n" for q, p in items)
    # (2.8's regular expressions match bytes, so REGEXP_REPLACE may cut a UTF-8 character in two:
    # such text is compared with U+FFFD in place of the bad bytes)
    p = subprocess.run(cmd, input=text, capture_output=True, encoding="utf-8", errors="replace", env=ENV, cwd=cwd)
    results, rows = [], []
    for line in p.stdout.splitlines():
        if line == "#ok": results.append(("ok", rows)); rows = []
        elif line.startswith("#error"): results.append(("error", line[7:])); rows = []
        elif line.startswith("{"): rows.append(json.loads(line))
    if len(results) != len(items):
        sys.exit("batch %s answered %d of %d queries; stderr: %s" % (cmd[0], len(results), len(items), p.stderr[-2000:]))
    return results

def norm(v):
    if v is True: return 1
    if v is False: return 0
    if isinstance(v, float):
        if v == int(v) and abs(v) < 1e15: return int(v)
        return v
    if isinstance(v, list): return [norm(x) for x in v]
    if isinstance(v, dict): return {k: norm(x) for k, x in v.items()}
    return v

def dropnull(v):
    """Nulls left out at every level (2.8 leaves MISSING elements out of arrays and objects)."""
    if isinstance(v, dict): return {k: dropnull(x) for k, x in v.items() if x is not None}
    if isinstance(v, list): return [dropnull(x) for x in v if x is not None]
    return v

def key(row): return json.dumps(row, sort_keys=True)

def close(x, y):
    """Equal, numbers within a relative 1e-6 (2.8's tool prints 32-bit floats with 7 digits)."""
    if isinstance(x, (int, float)) and isinstance(y, (int, float)) and not isinstance(x, bool) and not isinstance(y, bool):
        return x == y or abs(x - y) <= 1e-6 * max(abs(x), abs(y))
    if isinstance(x, list) and isinstance(y, list):
        return len(x) == len(y) and all(close(a, b) for a, b in zip(x, y))
    if isinstance(x, dict) and isinstance(y, dict):
        return x.keys() == y.keys() and all(close(x[k], y[k]) for k in x)
    return x == y

def coarse(v):
    if isinstance(v, float): return float("%.3g" % v)
    if isinstance(v, list): return [coarse(x) for x in v]
    if isinstance(v, dict): return {k: coarse(x) for k, x in v.items()}
    return v

def same_rows(a, b, ordered, loose=False):
    """Loose: a null column equals a MISSING one (2.8 answers MISSING, SQLite's NULL, where N1QL
    answers NULL: docs/query-semantics.md)."""
    ra = [norm(r) for r in a]; rb = [norm(r) for r in b]
    if loose: ra = [dropnull(r) for r in ra]; rb = [dropnull(r) for r in rb]
    if len(ra) != len(rb): return False
    if not ordered:
        ra.sort(key=lambda r: (key(coarse(r)), key(r))); rb.sort(key=lambda r: (key(coarse(r)), key(r)))
    return all(close(x, y) for x, y in zip(ra, rb))

def generate(seed, nq, nm):
    model, docs = load_model()
    qg = QueryGen(seed, model, docs); mg = MatchGen(seed + 1, docs)
    return [("query",) + qg.query() for _ in range(nq)] + [("match",) + mg.query() for _ in range(nm)]

def main():
    if len(sys.argv) < 3: sys.exit(__doc__)
    cmd, work = sys.argv[1], sys.argv[2]
    opts = dict(seed="38", queries="2500", matches="1200", only=",".join(CONFIGS), index=None)
    args = sys.argv[3:]
    while args:
        k = args.pop(0).lstrip("-"); opts[k] = args.pop(0)
    if cmd == "prepare": return prepare(work)
    global LISTED
    LISTED = opts.get("listed", "no") == "yes"
    items = generate(int(opts["seed"]), int(opts["queries"]), int(opts["matches"]))
    if cmd == "show":
        sel = range(len(items)) if opts["index"] is None else [int(opts["index"])]
        for i in sel: print(i, json.dumps(items[i][2]), json.dumps(items[i][1]))
        return
    batch = [(q, p) for _, q, p, _ in items]
    real = {}
    sides = sorted({conf.rsplit("-", 1)[1] for conf in opts["only"].split(",")})
    for side in sides:
        # the real core's answers depend only on the generated items: kept for reruns after fixes
        import hashlib
        digest = hashlib.sha1(json.dumps(batch).encode()).hexdigest()[:12]
        cache = os.path.join(work, "real-%s-%s.json" % (side, digest))
        if os.path.exists(cache):
            real[side] = [tuple(x) for x in json.load(open(cache))]
        else:
            real[side] = run_batch([os.path.join(LCT, "run-litecore-queries"), work, "real-" + side], batch)
            json.dump(real[side], open(cache, "w"))
    # the real core with and without its indexes must agree (else the harness is wrong)
    for i, (a, b) in enumerate(zip(real.get("plain", []), real.get("indexed", []))):
        if a[0] != b[0] or (a[0] == "ok" and not same_rows(a[1], b[1], items[i][3])):
            print("REAL-SELF-DIFF", i, json.dumps(items[i][1]))
    total = collections.Counter(); diffs = collections.Counter(); real_errors = collections.Counter()
    nullmissing = collections.Counter()
    for conf in opts["only"].split(","):
        side = conf.rsplit("-", 1)[1]
        ours = run_batch([os.path.abspath(OURS), "query", os.path.join(work, conf + ".cblite2"), "-"], batch)
        for i, (a, b) in enumerate(zip(real[side], ours)):
            kind = items[i][0]; total[(conf, kind)] += 1
            if a[0] == "error":
                if b[0] == "error": continue
                real_errors[(conf, kind)] += 1
                print("REAL-ERROR", conf, i, kind, json.dumps(items[i][1]), "|", a[1][:160]); continue
            if b[0] == "error":
                d = "ours error: " + b[1][:200]
            elif same_rows(a[1], b[1], items[i][3]):
                continue
            elif same_rows(a[1], b[1], items[i][3], loose=True):
                nullmissing[(conf, kind)] += 1
                print("NULL-MISSING", conf, i, kind, json.dumps(items[i][1]))
                continue
            else:
                ra = [norm(r) for r in a[1]]; rb = [norm(r) for r in b[1]]
                ca = collections.Counter(map(key, ra)); cb = collections.Counter(map(key, rb))
                extra = [json.loads(k) for k in (cb - ca)][:3]; lacking = [json.loads(k) for k in (ca - cb)][:3]
                d = "real %d rows, ours %d; only real: %s; only ours: %s" % (len(ra), len(rb), json.dumps(lacking)[:400], json.dumps(extra)[:400])
            diffs[(conf, kind)] += 1
            print("DIFF", conf, i, kind, json.dumps(items[i][1]), json.dumps(items[i][2]) if items[i][2] else "", "|", d)
        sys.stdout.flush()
    print("SUMMARY seed=%s" % opts["seed"])
    for (conf, kind), n in sorted(total.items()):
        print("  %-22s %-6s run %5d  differ %4d  null-vs-missing only %4d  real-only-errors %4d"
              % (conf, kind, n, diffs[(conf, kind)], nullmissing[(conf, kind)], real_errors[(conf, kind)]))

if __name__ == "__main__":
    main()
