#!/usr/bin/env bash
# One prepared device call (issue 28): install, check the CUDA plugin loads (stop otherwise), run the
# equality checks, time reinitialize on the copy context, run CG twice with the same seeds, measure
# steady-state WE rates (implicit and CG run_we) and a 2-worker `processes` run. Results land in
# $OUT after every stage: stages.jsonl (one line per stage: name, exit status, seconds), <stage>.log,
# and the JSON each benchmark writes. Stage limits add up to 450 s (the device tool allows 8 minutes).
#
#   bash benchmarks/gpu_session.sh                         # on the lent GPU machine
#   WESTBENCH_GPU_DRY_RUN=1 bash benchmarks/gpu_session.sh # here: CPU platform, tiny sizes (CI runs this)
#
# Environment: OUT (results folder; default benchmarks/runs/gpu_session), WESTBENCH_GPU_BUNDLE (the
# folder benchmarks/gpu_bundle.py builds; default benchmarks/gpu_bundle; a missing one is replaced by
# a stand-in, recorded in bundle.json), PYTHON (default python3 on the device, the checkout's .venv in
# a dry run).
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$HERE"
DRY=${WESTBENCH_GPU_DRY_RUN:-0}
OUT=${OUT:-$HERE/benchmarks/runs/gpu_session}
BUNDLE=${WESTBENCH_GPU_BUNDLE:-$HERE/benchmarks/gpu_bundle}
if [ "$DRY" = 1 ] && [ -x "$HERE/.venv/bin/python" ]; then PY=${PYTHON:-$HERE/.venv/bin/python}; else PY=${PYTHON:-python3}; fi
mkdir -p "$OUT"
: > "$OUT/stages.jsonl"

if [ "$DRY" = 1 ]; then
  PLATFORM=CPU; DEVICE=cpu; COPIES=4; STEPS=20; SAVE=10; CG_WALKERS="1 8"; CG_STEPS=5
  WALKERS=4; ITERATIONS=2; PROC_ITERATIONS=2; REPEATS=2
else
  PLATFORM=CUDA; DEVICE=cuda; COPIES=128; STEPS=1000; SAVE=100; CG_WALKERS="1 120 1200"; CG_STEPS=50
  WALKERS=128; ITERATIONS=6; PROC_ITERATIONS=3; REPEATS=5
fi

log() { echo "[gpu_session $(date -u +%H:%M:%S)] $*" | tee -a "$OUT/session.log"; }

# stage NAME LIMIT_S COMMAND...: run with a time limit, output to $OUT/NAME.log, one line in stages.jsonl.
stage() {
  local name=$1 limit=$2 start rc
  shift 2
  start=$(date +%s)
  log "stage $name (at most ${limit} s): $*"
  timeout --kill-after=5 "$limit" "$@" > "$OUT/$name.log" 2>&1
  rc=$?
  printf '{"stage": "%s", "rc": %d, "seconds": %d, "limit_s": %d}\n' "$name" "$rc" "$(( $(date +%s) - start ))" \
    "$limit" >> "$OUT/stages.jsonl"
  log "stage $name: exit $rc"
  tail -n 5 "$OUT/$name.log" | sed 's/^/    /' | tee -a "$OUT/session.log"
  return $rc
}

log "dry run: $DRY; platform $PLATFORM, device $DEVICE; bundle $BUNDLE; results in $OUT"
stage env 20 bash -c "uname -a; $PY --version; (nvidia-smi -L || echo 'no nvidia-smi'); \
  $PY -c 'import torch; print(\"torch\", torch.__version__, \"cuda\", torch.cuda.is_available(), torch.cuda.device_count())'"

if [ "$DRY" != 1 ]; then
  SITE_DIR=${WESTBENCH_SITE:-/tmp/westbench-site}
  if ls "$BUNDLE"/wheels/*.whl > /dev/null 2>&1; then
    stage install 60 "$PY" -m pip install --no-index --no-deps --target "$SITE_DIR" "$BUNDLE"/wheels/*.whl
  else
    log "no wheels in $BUNDLE/wheels: using what $PY has"
  fi
  SYSTEM_SITE=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  # OpenMM's CUDA plugin needs libnvrtc and libcufft from the nvidia wheels torch brought (shared/notes/gpu.md).
  NVIDIA_LIBS=$(ls -d "$SYSTEM_SITE"/nvidia/*/lib "$SITE_DIR"/nvidia/*/lib 2> /dev/null | tr '\n' ':')
  export LD_LIBRARY_PATH="${NVIDIA_LIBS}${LD_LIBRARY_PATH:-}"
  export PYTHONPATH="$SITE_DIR:$HERE/src:$HERE${PYTHONPATH:+:$PYTHONPATH}"
else
  export PYTHONPATH="$HERE/src:$HERE${PYTHONPATH:+:$PYTHONPATH}"
fi

# The plugin: OpenMM's platforms and load failures, a context on the platform and its device. Stop without it.
stage plugin 60 "$PY" - "$PLATFORM" "$OUT/plugin.json" << 'EOF' || { log "OpenMM platform unusable: stopping"; exit 1; }
import json, sys
import openmm
name, path = sys.argv[1], sys.argv[2]
report = {"openmm": openmm.__version__, "failures": list(openmm.Platform.getPluginLoadFailures()),
          "platforms": [openmm.Platform.getPlatform(i).getName() for i in range(openmm.Platform.getNumPlatforms())]}
try:
    from westbench.simulation.platforms import context_record, create_context
    system = openmm.System(); system.addParticle(1.0)
    context, used = create_context(system, openmm.VerletIntegrator(0.001), {"name": name, "fallback": []})
    report.update(used=used, context=context_record(context))
finally:
    open(path, "w").write(json.dumps(report, indent=2) + "\n")
print(json.dumps(report, indent=2))
EOF

if [ ! -f "$BUNDLE/results/chignolin/prepare/implicit.xml" ]; then
  log "no prepared system in $BUNDLE: building a stand-in (benchmarks/gpu_bundle.py --stand-in)"
  stage bundle 90 "$PY" benchmarks/gpu_bundle.py --stand-in --output "$BUNDLE" || { log "no bundle: stopping"; exit 1; }
fi
cp "$BUNDLE/manifest.json" "$OUT/bundle.json" 2> /dev/null || true
RESULTS=$BUNDLE/results

# shellcheck disable=SC2086  # word splitting of the walker lists is intended
stage gpu_check 110 "$PY" benchmarks/we_gpu_check.py --results "$RESULTS" --platform "$PLATFORM" --device "$DEVICE" \
  --copies "$COPIES" --steps "$STEPS" --save-every "$SAVE" --cg-walkers $CG_WALKERS --cg-steps "$((CG_STEPS < 20 ? CG_STEPS : 20))" \
  --reinitialize-repeats "$REPEATS" --output "$OUT/we_gpu_check.json"

IMPLICIT_STAGES="null implicit"
[ -f "$RESULTS/chignolin/prepare/explicit.xml" ] && IMPLICIT_STAGES="$IMPLICIT_STAGES explicit"
COMMON=(--results "$RESULTS" --platform "$PLATFORM" --cg-device "$DEVICE" --steps "$STEPS" --save-every "$SAVE")
# shellcheck disable=SC2086
stage throughput_openmm 100 "$PY" benchmarks/we_throughput.py "${COMMON[@]}" --only $IMPLICIT_STAGES \
  --implicit-walkers "$WALKERS" --we-iterations "$ITERATIONS" --null-iterations "$ITERATIONS" \
  --explicit-walkers 2 --explicit-we-iterations "$((ITERATIONS < 2 ? ITERATIONS : 2))" \
  --output "$OUT/we_throughput_openmm.json"
# shellcheck disable=SC2086
stage throughput_cg 100 "$PY" benchmarks/we_throughput.py "${COMMON[@]}" --only cg cg_we --cg-walkers $CG_WALKERS \
  --cg-steps "$CG_STEPS" --cg-we-iterations "$ITERATIONS" --output "$OUT/we_throughput_cg.json"
stage processes 60 "$PY" benchmarks/we_throughput.py "${COMMON[@]}" --only processes --processes-workers 2 \
  --processes-iterations "$PROC_ITERATIONS" --output "$OUT/we_throughput_processes.json"

log "done: $(wc -l < "$OUT/stages.jsonl") stages in $OUT/stages.jsonl"
