#!/usr/bin/env python3
"""Share of a FinePack trace's store records by size bucket (<= 4 B,
<= 8 B, ... 128 B), as JSON: the store-size mix beside the paper's Fig 4."""
import json
import struct
import sys

BUCKETS = (4, 8, 16, 32, 64, 128)

with open(sys.argv[1], "rb") as f:
    b = f.read()
n = struct.unpack_from("<Q", b, 16)[0]
count = {k: 0 for k in BUCKETS}
under32 = 0
for i in range(n):
    t, length = struct.unpack_from("<B3xI", b, 32 + 24 * i)
    if t == 1:
        count[next(k for k in BUCKETS if length <= k or k == 128)] += 1
        under32 += length < 32
total = sum(count.values()) or 1
out = {str(k): count[k] / total for k in BUCKETS}
# The paper's one number of the mix (§I): transfers carrying < 32 B.
out["under32"] = under32 / total
json.dump(out, sys.stdout, indent=1)
print()
