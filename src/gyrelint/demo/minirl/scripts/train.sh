#!/usr/bin/env bash
# Launch one minirl run: the sampler processes and the trainer, on CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
python -m minirl.main --config configs/default.yaml --probe-log "${PROBE_LOG:-${TMPDIR:-/tmp}/minirl-probe.log}" "$@"
