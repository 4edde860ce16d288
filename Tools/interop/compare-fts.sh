#!/bin/bash
# compare-fts.sh DB.cblite2 INDEX < expressions : each MATCH expression (one per line) through the
# real Couchbase Lite 2.8 tool and ours on the same file; prints same/DIFF and both counts.
REAL=${REAL_CBLITE:-/work/interop/peer/build/cblite}; OURS=${OURS_CBLITE:-.build/release/cblite}
DB=$1; INDEX=$2
while IFS= read -r M; do
  Q="{\"WHAT\":[[\"._id\"]],\"WHERE\":[\"MATCH\",\"$INDEX\",\"$M\"],\"ORDER_BY\":[[\"._id\"]]}"
  a=$($REAL query --raw "$DB" "$Q" 2>/dev/null | grep -o '"id": "[^"]*"' | sed 's/"id": //')
  b=$($OURS query "$DB" "$Q" 2>/dev/null | sed 's/^\[\(.*\)\]$/\1/')
  if [ "$a" == "$b" ]; then s=same; else s=DIFF; fi
  echo "$s real=$(echo -n "$a" | grep -c .) ours=$(echo -n "$b" | grep -c .) $M"
done
