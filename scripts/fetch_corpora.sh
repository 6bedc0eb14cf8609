#!/usr/bin/env bash
# Fetch the real corpora (wheels of four RL frameworks, PyCG's micro-benchmark) into a cache
# outside the repository. Nothing fetched here is ever committed.
set -euo pipefail
CACHE=${GYRELINT_CORPORA:-$HOME/.cache/gyrelint-corpora}
mkdir -p "$CACHE/wheels" "$CACHE/sdist" "$CACHE/src" "$CACHE/pycg"
cd "$CACHE"
[ -n "$(ls wheels/*.whl 2>/dev/null)" ] || pip download -q --no-deps verl==0.9.1 openrlhf==0.11.2 trl==1.16.0 areal==1.0.4 -d wheels
[ -n "$(ls sdist/pycg-*.tar.gz 2>/dev/null)" ] || pip download -q --no-deps --no-binary :all: pycg==0.0.8 -d sdist
for w in wheels/*.whl; do
  n=$(basename "$w" | cut -d- -f1)
  [ -d "src/$n" ] || (mkdir -p "src/$n" && cd "src/$n" && unzip -qo "../../$w")
done
[ -d pycg/pycg-0.0.8 ] || tar xzf sdist/pycg-0.0.8.tar.gz -C pycg
echo "$CACHE"
