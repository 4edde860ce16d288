#!/usr/bin/env python3
"""Random JSON Lines documents (numbers at every width, floats, unicode and escaped strings,
keys that shared keys take or refuse, nesting) for comparing revision IDs with the real tool:

    generate-documents.py SEED COUNT > docs.json
    $REAL_CBLITE cp docs.json real.cblite2 ; cblite import ours.cblite2 docs.json
    then compare each document's current revision ID (e.g. `cblite ls`/`cat --rev` on both).
"""
import json, random, sys, math
rng = random.Random(int(sys.argv[1]))
def rstr():
    k = rng.randrange(8)
    if k == 0: return ""
    if k == 1: return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randrange(1, 40)))
    if k == 2: return "".join(chr(rng.choice([0x41,0xe9,0x4e2d,0x1F600,0x20ac,0x3b1,0x0a,0x22,0x5c,0x09,0x7f,0x1f])) for _ in range(rng.randrange(1, 12)))
    if k == 3: return "x" * rng.choice([15,16,17,127,128,255,256,1000])
    if k == 4: return str(rng.randrange(-10**6, 10**6))
    return rng.choice(["hotel","Paris","true","null","2014-08-10 22:55:43 +0300","@type","blob","_id"])
def rnum():
    k = rng.randrange(12)
    if k == 0: return rng.randrange(-2048, 2048)
    if k == 1: return rng.randrange(-2**31, 2**31)
    if k == 2: return rng.randrange(-2**63, 2**63)
    if k == 3: return rng.randrange(2**63, 2**64)
    if k == 4: return rng.uniform(-1e3, 1e3)
    if k == 5: return rng.choice([0.5, 1.5, -0.0, 0.1, 1e100, 1e-300, 3.4028234663852886e38, 1.0000001, 123456789.0, 2.0**53, 2.0**53 + 2, 1e15, 1e16, 1e21, 5e-324])
    if k == 6: return float(rng.randrange(-10**6, 10**6))
    if k == 7: return rng.choice([255, 256, 65535, 65536, -1, -2049, 2047, 4095, 2**53, 2**53 + 1, -2**63, 2**64 - 1])
    if k == 8: return rng.uniform(-1, 1) * 10 ** rng.randrange(-20, 20)
    return round(rng.uniform(-100, 100), rng.randrange(0, 6))
def rkey():
    k = rng.randrange(6)
    if k == 0: return rng.choice(["name","type","a","b","z","_x","$x","0abc","with space","ünï","aaaaaaaaaaaaaaaa","aaaaaaaaaaaaaaaaa","k-1","k.1"])
    return "".join(rng.choice("abcdefghij_ABC019") for _ in range(rng.randrange(1, 20)))
def rval(d=0):
    k = rng.randrange(10 if d < 4 else 6)
    if k < 2: return rstr()
    if k < 4: return rnum()
    if k == 4: return rng.choice([True, False, None])
    if k == 5: return rstr()
    if k < 8: return [rval(d + 1) for _ in range(rng.randrange(0, 8 if rng.random() < .95 else 40))]
    return {rkey(): rval(d + 1) for _ in range(rng.randrange(0, 10))}
n = int(sys.argv[2])
for i in range(n):
    doc = {rkey(): rval() for _ in range(rng.randrange(0, 12))}
    doc.pop("_id", None)
    doc["_id"] = "d%05d" % i
    print(json.dumps(doc, ensure_ascii=rng.random() < 0.5))
