#!/usr/bin/env bash
# Mutation testing of the core and the report: does a wrong formula fail a test?
#
#   scripts/mutation.sh                          # every module of attn_tui/core and attn_tui/report
#   scripts/mutation.sh 'attn_tui.core.info.*'   # some modules only (mutmut's mutant-name globs)
#
# mutmut (pip install -e '.[mutation]'; config in pyproject.toml [tool.mutmut]) runs only the
# fast tests (tests/core, tests/report) against each mutant, in a copy of the work tree
# (MUTATION_REF=HEAD: of a commit) under /tmp (MUTATION_DIR to choose it, and to resume a run
# there), so its mutants/ folder and caches never touch the repository. Hypothesis runs its
# "mutation" profile (tests/conftest.py): derandomised like CI, so a mutant is killed or not
# the same way every time, and unshrunk, so a killed mutant costs one failure. Niced,
# MUTATION_JOBS (default 2) workers. Not part of CI (.ci/run): see docs/TESTING.md for the time and the scores.
# A mutant that loops without end fails its first test within 10x that test's clean time + 10 s
# of CPU (tests/conftest.py, ATTN_MUTATION): killed. One that still hits mutmut's timeout
# ((its tests' time + 5 s) x 20, pyproject.toml) hangs the suite: counted as killed too, as
# mutmut does, and listed by name. At the end: the survivors, the timeouts, and the score per
# module: (killed + timeout) / mutants (a mutant no test reaches counts as not killed), also
# written to $MUTATION_DIR/scores.txt. Equivalent mutants are listed in tests/core/EQUIVALENT_MUTANTS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PY=${PYTHON:-$ROOT/.venv/bin/python}
BIN=$(dirname "$PY")
if [ ! -x "$BIN/mutmut" ]; then
    "$PY" -m pip install -q -e '.[test,mutation]'
fi
WORK=${MUTATION_DIR:-$(mktemp -d /tmp/attn-mutation.XXXXXX)}
mkdir -p "$WORK"
if [ -n "${MUTATION_REF:-}" ]; then  # a commit, e.g. MUTATION_REF=HEAD
    git archive "$MUTATION_REF" | tar -xf - -C "$WORK"
else  # the work tree: tracked files and new ones git does not ignore
    git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
        [ -f "$f" ] && printf '%s\0' "$f"
    done | tar --null -T - -cf - | tar -xf - -C "$WORK"
fi
cd "$WORK"
echo "mutation run in $WORK" >&2
export HYPOTHESIS_PROFILE=mutation PYTHONDONTWRITEBYTECODE=1 ATTN_MUTATION=1  # ATTN_MUTATION: no torch in forked workers
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1  # BLAS threads after fork hung workers on a lock (core/ranks run, session 4)
nice -n 10 "$BIN/mutmut" run --max-children "${MUTATION_JOBS:-2}" "$@" || true
"$BIN/mutmut" results --all true >results.txt
"$PY" - "$@" <<'EOF' | tee scores.txt
"""Score per module from `mutmut results --all true` lines: '    attn_tui.core.x.x_f__mutmut_3: killed'."""
import collections
import fnmatch
import sys

globs = sys.argv[1:]
by_module = collections.defaultdict(collections.Counter)
for line in open("results.txt"):
    name, _, status = line.strip().rpartition(": ")
    if not name or (globs and not any(fnmatch.fnmatch(name, g) for g in globs)):
        continue
    module = name.split(".x", 1)[0]  # attn_tui.core.info.x_entropy_bits__mutmut_3 -> attn_tui.core.info
    by_module[module][status] += 1
total = collections.Counter()
lines = [line.strip() for line in open("results.txt")]
for title, keep in (("not killed:", lambda st: st not in ("killed", "timeout")), ("timeout (a hang):", "timeout".__eq__)):
    print(title)
    for s in lines:
        name, _, status = s.rpartition(": ")
        if keep(status) and (not globs or any(fnmatch.fnmatch(name, g) for g in globs)):
            print("  " + s)
print(f"\n{'module':34} {'mutants':>7} {'killed':>6} {'survived':>8} {'timeout':>7} {'no test':>7}  score")
for module in sorted(by_module):
    c = by_module[module]
    total += c
    ran = sum(v for k, v in c.items() if k not in ("skipped", "not checked"))
    # a timeout counts as killed (as in mutmut): past 20x its tests' time the suite hangs
    score = 100 * (c["killed"] + c["timeout"]) / ran if ran else float("nan")
    print(f"{module:34} {ran:7d} {c['killed']:6d} {c['survived']:8d} {c['timeout']:7d} {c['no tests']:7d}  {score:5.1f} %")
ran = sum(v for k, v in total.items() if k not in ("skipped", "not checked"))
if ran:
    print(f"{'all':34} {ran:7d} {total['killed']:6d} {total['survived']:8d} {total['timeout']:7d} "
          f"{total['no tests']:7d}  {100 * (total['killed'] + total['timeout']) / ran:5.1f} %")
EOF
