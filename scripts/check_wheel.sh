#!/usr/bin/env bash
# The wheel in a clean venv (no --system-site-packages, dependencies from the index): build it with
# `pip wheel . --no-deps`, install it, run `attn-tui --version`, `attn-tui report`, `attn-tui heads
# induction-demo` and `heads text-demo --text` (compared with the work tree's) and the explorer headless for one frame (its .tcss files load from the wheel).
# Run by .ci/run; usage: scripts/check_wheel.sh [PYTHON]   (default python3)
set -euo pipefail
cd "$(dirname "$0")/.."
python=$(command -v "${1:-python3}")
python="$(cd "$(dirname "$python")" && pwd)/$(basename "$python")"  # absolute, the venv kept (no symlink resolved)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$python" -m pip wheel . --no-deps -q -w "$tmp/dist"
"$python" -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install -q "$tmp"/dist/attn_tui-*.whl
cd "$tmp"  # away from the work tree: only the installed package can be imported
want=$("$python" -c 'import sys; sys.path.insert(0, sys.argv[1]); import attn_tui; print("attn-tui", attn_tui.__version__)' "$OLDPWD")
got=$("$tmp/venv/bin/attn-tui" --version)
[ "$got" = "$want" ] || { echo "check_wheel: --version says '$got', the package '$want'" >&2; exit 1; }
"$tmp/venv/bin/attn-tui" report > report.txt
(cd "$OLDPWD" && PYTHONPATH=. "$python" -m attn_tui report) > report.tree.txt
cmp -s report.txt report.tree.txt || { echo "check_wheel: the installed report differs from the work tree's" >&2; diff report.txt report.tree.txt | head >&2; exit 1; }
# the induction demo's weights (package-data, core/models/induction_demo.npz) load from the wheel
"$tmp/venv/bin/attn-tui" heads induction-demo --json > heads.json
(cd "$OLDPWD" && PYTHONPATH=. "$python" -m attn_tui heads induction-demo --json) > heads.tree.json
cmp -s heads.json heads.tree.json || { echo "check_wheel: the installed heads differs from the work tree's" >&2; exit 1; }
# the text model (package-data, core/models/text_model.safetensors + text_tokenizer.json) and its tokenizer
# (tokenizers, a dependency) from the wheel, once the trained model ships (scripts/train_text_model.py)
if [ -f "$OLDPWD/attn_tui/core/models/text_model.safetensors" ]; then
  "$tmp/venv/bin/attn-tui" heads text-demo --text "The cat sat on the mat. The cat sat on the mat." --json > text.json
  (cd "$OLDPWD" && PYTHONPATH=. "$python" -m attn_tui heads text-demo --text "The cat sat on the mat. The cat sat on the mat." --json) > text.tree.json
  cmp -s text.json text.tree.json || { echo "check_wheel: the installed text-demo differs from the work tree's" >&2; exit 1; }
fi
"$tmp/venv/bin/python" - <<'PY'
import asyncio

from attn_tui.tui.app import AttentionApp


async def main():
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert app.screen.query_one("#grid-A").size.width > 0, "the explorer drew no A"


asyncio.run(main())
PY
echo "check_wheel: the wheel installs in a clean venv; --version, report and the explorer run ($got)"
