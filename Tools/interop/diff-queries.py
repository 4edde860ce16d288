#!/usr/bin/env python3
"""Random JSON queries through the real Couchbase Lite 2.8 `cblite` and ours on the same file;
prints each query whose rows differ (after mapping booleans to 0/1, as 2.8 returns them).

usage: diff-queries.py DB.cblite2 [OUR_CBLITE] [SEED] [COUNT]
       (REAL_CBLITE: the real tool, built by ../shared/reference-peer; made for the travel set)

Expect the differences docs/query-semantics.md lists (nulls compared as blobs, type coercion,
COUNT of nulls); anything else is a finding.
"""
import json, os, subprocess, sys, random

REAL = os.environ.get("REAL_CBLITE", "/work/interop/peer/build/cblite")
OURS = sys.argv[2] if len(sys.argv) > 2 else ".build/release/cblite"
DB = sys.argv[1]

def run_real(q):
    p = subprocess.run([REAL, "query", "--raw", DB, json.dumps(q)], capture_output=True, text=True, timeout=60)
    if p.returncode != 0 or p.stdout.strip().startswith("Error"):
        return ("error", (p.stdout + p.stderr).strip()[:200])
    out = p.stdout.strip()
    try:
        rows = json.loads(out) if out else []
    except Exception as e:
        return ("error", "unparsable: " + out[:200])
    n = len(q["WHAT"])
    return ("ok", [[r.get("c%d" % i) for i in range(n)] for r in rows])

def run_ours(q):
    p = subprocess.run([OURS, "query", DB, json.dumps(q)], capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        return ("error", (p.stdout + p.stderr).strip()[:200])
    rows = [json.loads(l) for l in p.stdout.splitlines() if l.strip()]
    return ("ok", rows)

def norm(v):
    if v is True: return 1
    if v is False: return 0
    if isinstance(v, float):
        if v == int(v) and abs(v) < 1e15: return int(v)
        return round(v, 9)
    if isinstance(v, list): return [norm(x) for x in v]
    if isinstance(v, dict): return {k: norm(x) for k, x in v.items()}
    return v

def key(row): return json.dumps(row, sort_keys=True)

def compare(q, ordered):
    a, b = run_real(q), run_ours(q)
    if a[0] != "ok" or b[0] != "ok":
        if a[0] == "error": return None
        return ("status", a, b)
    ra = [norm(r) for r in a[1]]; rb = [norm(r) for r in b[1]]
    if not ordered:
        ra = sorted(ra, key=key); rb = sorted(rb, key=key)
    if ra != rb:
        return ("rows", ra[:6], rb[:6], len(ra), len(rb))
    return None

P = lambda name: ["." + name]
fields = {
 "airlines": ["callsign", "icao", "country", "iata", "name", "id", "type", "channels"],
 "hotels": ["country", "city", "name", "free_internet", "free_breakfast", "pets_ok", "vacancy", "state", "price", "public_likes", "reviews", "geo.lat", "geo.lon", "title", "phone", "email"],
 "routes": ["airline", "airlineid", "sourceairport", "destinationairport", "stops", "equipment", "distance", "schedule"],
}
rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)

def sample_values(coll, f):
    q = {"WHAT": [["AS", P(f), "c0"]], "WHERE": ["=", P("collection"), coll], "LIMIT": 40}
    st, rows = run_ours(q)
    vals = [r[0] for r in rows if r and r[0] is not None and not isinstance(r[0], (list, dict))] if st == "ok" else []
    return vals or [0, "x"]

cache = {}
def val(coll, f):
    if (coll, f) not in cache: cache[(coll, f)] = sample_values(coll, f)
    return rng.choice(cache[(coll, f)])

def pred(coll, depth=0):
    f = rng.choice(fields[coll]); v = val(coll, f)
    kind = rng.randrange(12 if depth < 2 else 9)
    if kind == 0: return ["=", P(f), v]
    if kind == 1: return ["=", P(f), v]
    if kind == 2: return [rng.choice(["<", "<=", ">", ">="]), P(f), v]
    if kind == 3: return ["BETWEEN", P(f), v, val(coll, f)]
    if kind == 4: return ["IN", P(f), ["[]", v, val(coll, f), val(coll, f)]]
    if kind == 5: return [rng.choice(["IS", "IS NOT"]), P(f), None]
    if kind == 6: return ["IS", P(f), ["MISSING"]] if rng.random() < 0.5 else ["IS NOT", P(f), ["MISSING"]]
    if kind == 7:
        if isinstance(v, str) and v:
            pat = v[:rng.randrange(1, len(v) + 1)] + "%"
            return ["LIKE", P(f), pat]
        return ["=", P(f), v]
    if kind == 8: return [rng.choice(["<", ">"]), ["+", P(f), 1], v] if typed(coll, f) == "num" else ["=", ["LOWER()", P(f)], str(v).lower()] if typed(coll, f) == "str" else ["=", P(f), v]
    if kind == 9:
        if rng.random() < 0.3 and coll == "routes":
            return [rng.choice(["ANY", "EVERY", "ANY AND EVERY"]), "s", P("schedule"), ["=", ["?s", "day"], rng.randrange(0, 7)]]
        if rng.random() < 0.3 and coll == "hotels":
            return [rng.choice(["ANY", "EVERY"]), "r", P("reviews"), [rng.choice([">", "<", "="]), ["?r", "ratings", "Overall"], rng.randrange(1, 6)]]
        return ["AND", pred(coll, depth + 1), pred(coll, depth + 1)]
    if kind == 10: return ["OR", pred(coll, depth + 1), pred(coll, depth + 1)]
    return ["OR", pred(coll, depth + 1), pred(coll, depth + 1)]

def typed(coll, f):
    v = val(coll, f)
    if isinstance(v, bool): return "bool"
    if isinstance(v, (int, float)): return "num"
    if isinstance(v, str): return "str"
    return "other"

def expr(coll):
    f = rng.choice(fields[coll]); t = typed(coll, f); k = rng.randrange(6)
    if k < 3: return P(f)
    if k == 3: return ["._id"]
    if t == "str": return [rng.choice(["UPPER()", "LOWER()", "LENGTH()"]), P(f)]
    if t == "str": return rng.choice([[rng.choice(["UPPER()", "LOWER()", "LENGTH()", "TRIM()", "LTRIM()", "RTRIM()"]), P(f)],
                                      ["CONTAINS()", P(f), "a"], ["||", P(f), "-x"]])
    if t == "num": return rng.choice([["ABS()", P(f)], ["*", P(f), 2], ["+", P(f), 1], ["ROUND()", P(f)], ["-", P(f), 0.5],
                                      ["FLOOR()", P(f)], ["CEIL()", P(f)], ["SIGN()", P(f)], ["TRUNC()", P(f)], ["ROUND()", P(f), 2], ["%", P(f), 7]])
    return P(f)

failures = 0; total = 0
for i in range(int(sys.argv[4]) if len(sys.argv) > 4 else 200):
    coll = rng.choice(list(fields))
    where = ["AND", ["=", P("collection"), coll], pred(coll)]
    n = rng.randrange(1, 4)
    what = [["AS", expr(coll), "c%d" % j] for j in range(n)]
    q = {"WHAT": what, "WHERE": where}
    ordered = False
    r = rng.random()
    if r < 0.12:
        of = rng.choice(fields[coll])
        if typed(coll, of) in ("str", "num"):
            q["WHERE"] = ["AND", where, ["IS VALUED", P(of)]] if False else ["AND", where, ["=", ["TYPE()", P(of)], "string" if typed(coll, of) == "str" else "number"]]
            q["ORDER_BY"] = [["DESC", P(of)] if rng.random() < 0.5 else P(of), ["._id"]]; ordered = True
            if rng.random() < 0.5: q["LIMIT"] = rng.randrange(1, 20)
    elif r < 0.25:
        q["ORDER_BY"] = [["._id"]]; ordered = True
        if rng.random() < 0.5: q["LIMIT"] = rng.randrange(1, 20); q["OFFSET"] = rng.randrange(0, 5)
    elif r < 0.4:
        g = rng.choice(fields[coll])
        q["WHAT"] = [["AS", P(g), "c0"], ["AS", ["COUNT()", ["."]], "c1"]]
        af = rng.choice(fields[coll]); agg = rng.choice(["SUM()", "MIN()", "MAX()", "AVG()", "COUNT()"] if typed(coll, af) == "num" else ["MIN()", "MAX()", "COUNT()"])
        q["WHAT"].append(["AS", [agg, P(af)], "c2"])
        q["GROUP_BY"] = [P(g)]
    elif r < 0.5:
        q["DISTINCT"] = True; q["WHAT"] = [["AS", P(rng.choice(fields[coll])), "c0"]]
    total += 1
    d = compare(q, ordered)
    if d:
        failures += 1
        print("DIFF", json.dumps(q)); print("   ", d); sys.stdout.flush()
print("total", total, "diffs", failures)
