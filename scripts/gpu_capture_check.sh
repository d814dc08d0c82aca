#!/usr/bin/env bash
# One run on a machine with a CUDA GPU (issue 48 items 3-5): the figures docs/CAPTURE.md leaves a
# place for. Run from anywhere inside a checkout:   bash scripts/gpu_capture_check.sh
# With $OUT set, every figure is also saved there (gpu_capture_check.log and the bench's JSON).
#
#   1. versions (python, torch and its CUDA, transformers, ...); only what is missing is installed,
#      from the package registry, never torch over a CUDA torch already there;
#   2. the check on the GPU against the NumPy oracle (capture.check_torch vs core's layer_figures);
#   3. `attn-tui capture` with its default --device auto on a tiny model: its first line names cuda;
#   4. scripts/bench_capture.py --device cuda, bfloat16, on the Llama shape (hidden 2048, 16 heads x
#      128, 4 K/V heads, 2 layers) at 4,096 tokens (3 rounds) and 16,384 tokens (2 rounds):
#      capture wall against load + forward + write (target <= 2x), host peak RSS against the model
#      + the file's arrays + 1 GiB (target <= 1x), the forward cold and warm.
# Budget: under 6 minutes on an H200 (each step has its own timeout).
# A dry run of the same steps on the CPU, small:  DEVICE=cpu SIZES="512:1" bash scripts/gpu_capture_check.sh
# On a machine with no package registry, INSTALL=0 installs nothing (carry the wheels, PYTHONPATH them).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PY=${PYTHON:-python3}
DEVICE=${DEVICE:-cuda}
SIZES=${SIZES:-"4096:3 16384:2"}
export DEVICE
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
LOG=/dev/null
if [ -n "${OUT:-}" ]; then mkdir -p "$OUT"; LOG="$OUT/gpu_capture_check.log"; fi
exec > >(tee "$LOG") 2>&1
T0=$(date +%s)
step() { echo; echo "== $1 (at $(( $(date +%s) - T0 )) s)"; }

step "versions"
"$PY" - <<'EOF'
import importlib, sys
print("python", sys.version.split()[0])
for m in ("torch", "transformers", "tokenizers", "accelerate", "safetensors", "numpy", "threadpoolctl", "textual"):
    try:
        print(f"{m:<14}", getattr(importlib.import_module(m), "__version__", "?"))
    except Exception as exc:  # noqa: BLE001
        print(f"{m:<14} missing ({type(exc).__name__})")
EOF

step "installing only what is missing (never torch over the one here)"
MISSING=$("$PY" - <<'EOF'
import importlib.util
want = {"transformers": "transformers==5.24.0", "tokenizers": "tokenizers==0.23.3", "accelerate": "accelerate==1.15.0",
        "safetensors": "safetensors>=0.8,<0.9", "numpy": "numpy>=1.26", "threadpoolctl": "threadpoolctl>=3.1",
        "textual": "textual>=8,<9", "pytest": "pytest>=8,<9", "torch": "torch==2.13.0"}
print(" ".join(spec for mod, spec in want.items() if importlib.util.find_spec(mod) is None))
EOF
)
if [ -n "$MISSING" ] && [ "${INSTALL:-1}" = 0 ]; then
    echo "missing: $MISSING (INSTALL=0: nothing installed; the steps below say what they lack)"
elif [ -n "$MISSING" ]; then
    echo "pip install $MISSING"
    timeout 240 "$PY" -m pip install --quiet $MISSING || echo "pip install failed: the steps below say what they lack"
else
    echo "nothing missing"
fi
"$PY" -c "import torch; print('torch', torch.__version__, 'CUDA', torch.version.cuda, 'available', torch.cuda.is_available()); print(torch.cuda.get_device_name(0) if torch.cuda.is_available() else 'no GPU seen')"
if [ "$DEVICE" = cuda ]; then
    "$PY" -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" || { echo "torch sees no CUDA device: nothing to measure here"; exit 1; }
fi

if [ "${BENCH_ONLY:-0}" != 1 ]; then  # BENCH_ONLY=1: the bench alone (a re-measure)
step "the check on the GPU against the NumPy oracle"
timeout 120 "$PY" - <<'EOF'
import os
import numpy as np, torch
from tests.capture.test_check_torch import _layer, _oracle
from attn_tui.capture.check_torch import layer_figures
from attn_tui.core.heads.multihead_settings import read_mask_kind
for kind in ("causal", "window:5", "none", "additive"):
    for dtype in ("float32", "bfloat16"):
        Q, K, A, scale, k, M, kv = _layer(kind, H=8, H_kv=2, T=300, d=64, dtype=getattr(torch, dtype))
        want, allowed = _oracle(Q, K, A, scale, k, M, kv, dtype)
        dev = os.environ["DEVICE"]
        got, allowed_gpu = layer_figures(Q.to(dev), K.to(dev), A.to(dev), scale, read_mask_kind(k, 0), dtype, kv, M=M)
        gap = float(np.max(np.abs(got - want)))
        print(f"{kind:<9} {dtype:<9} max |dA| GPU {got.max():.3g}, NumPy {want.max():.3g}, apart {gap:.2g}; "
              f"allowances equal: {np.allclose(allowed, allowed_gpu, rtol=1e-9)}")
EOF

step "attn-tui capture, default --device auto, on a tiny model"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
timeout 120 "$PY" - "$TMP" <<'EOF'
import sys
from pathlib import Path
from tests.capture.tiny_models import CORPUS, save_tiny
folder = save_tiny(Path(sys.argv[1]) / "tiny", "llama", max_position_embeddings=1024)
(Path(sys.argv[1]) / "text.txt").write_text(" ".join(CORPUS * 8))
EOF
timeout 120 "$PY" -m attn_tui capture "$TMP/tiny" --file "$TMP/text.txt" --out "$TMP/tiny.safetensors" --dtype bfloat16
timeout 60 "$PY" -m attn_tui heads "$TMP/tiny.safetensors" --layer 0 | head -5
fi

for spec in $SIZES; do
    set -- ${spec/:/ }
    step "bench: Llama shape, hidden 2048, 2 layers, bfloat16, $DEVICE, $1 tokens, $2 rounds"
    JSON=/dev/null
    [ -n "${OUT:-}" ] && JSON="$OUT/bench_capture_${DEVICE}_$1.json"
    timeout 200 "$PY" scripts/bench_capture.py --device "$DEVICE" --dtype bfloat16 --hidden 2048 --layers 2 \
        --tokens "$1" --rounds "$2" --no-opening --json "$JSON" 2>&1 | grep -v "Writing model shards" \
        || echo "bench at $1 tokens did not finish (timeout or error above)"
done
step "done"
