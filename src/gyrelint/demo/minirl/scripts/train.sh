#!/usr/bin/env bash
# Launch one minirl run: a sampler process and the trainer, on CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
python -m minirl.main --config configs/default.yaml --probe-log "${PROBE_LOG:-run.log}" "$@"
