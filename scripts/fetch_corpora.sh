#!/usr/bin/env bash
# Fetch the real corpora (wheels of six RL frameworks, PyCG's micro-benchmark) into a cache
# outside the repository. Nothing fetched here is ever committed. Idempotent: what is already
# there is neither downloaded nor unpacked again.
# GYRELINT_FETCH_SCALE=1 also fetches transformers 4.57.1 (about 2,200 files), the scale corpus.
set -euo pipefail
CACHE=${GYRELINT_CORPORA:-$HOME/.cache/gyrelint-corpora}
mkdir -p "$CACHE/wheels" "$CACHE/sdist" "$CACHE/src" "$CACHE/pycg"
cd "$CACHE"
[ -n "$(ls wheels/verl-*.whl 2>/dev/null)" ] || pip download -q --no-deps verl==0.9.1 openrlhf==0.11.2 trl==1.16.0 areal==1.0.4 -d wheels
# held-out frameworks (tests/corpus_truth_heldout); oat-llm requires Python < 3.11, so pip is told 3.10
[ -n "$(ls wheels/nemo_aligner-0.7.0-*.whl 2>/dev/null)" ] || pip download -q --no-deps nemo-aligner==0.7.0 -d wheels
[ -n "$(ls wheels/oat_llm-0.2.4-*.whl 2>/dev/null)" ] || pip download -q --no-deps oat-llm==0.2.4 --python-version 3.10 --only-binary=:all: -d wheels
if [ "${GYRELINT_FETCH_SCALE:-0}" = 1 ]; then
  [ -n "$(ls wheels/transformers-4.57.1-*.whl 2>/dev/null)" ] || pip download -q --no-deps transformers==4.57.1 -d wheels
fi
[ -n "$(ls sdist/pycg-*.tar.gz 2>/dev/null)" ] || pip download -q --no-deps --no-binary :all: pycg==0.0.8 -d sdist
for w in wheels/*.whl; do
  n=$(basename "$w" | cut -d- -f1)
  [ -d "src/$n" ] || (mkdir -p "src/$n" && cd "src/$n" && unzip -qo "../../$w")
done
[ -d pycg/pycg-0.0.8 ] || tar xzf sdist/pycg-0.0.8.tar.gz -C pycg
echo "$CACHE"
