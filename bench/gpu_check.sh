#!/usr/bin/env bash
# The whole measurement on ONE GPU (H100 or H200), as one command (about 6-8 minutes; cap 9).
#
#   bench/gpu_check.sh [OUT_FOLDER]
#
# Runs `kvcalc measure` on the GPU for one layer of llama3-8b and llama3-70b (prefill,
# MHA/GQA/MQA decode, paged decode, decode GEMMs) and for deepseek-v3 (MLA decode in the
# absorbed form, its prefill and GEMMs) at batch 1, 16, 64 and context 1024 and 8192, plus
# in every run the fixed cost of one kernel (200 tiny kernels, eagerly and replayed from a
# CUDA graph) and the small-M GEMM curve (each GEMM shape at M = 1, 2, 4, ..., 256). Writes
# into OUT_FOLDER (default: docs/measurements/<UTC date>-<gpu>/, e.g.
# docs/measurements/2026-12-01-nvidia-h200/):
#   <model>.md / .txt / .json / .csv    predicted vs measured, one row per kernel
#   <model>.calibration.yaml             what that run calibrates (kvcalc measure --save-calibration)
#   all.csv                              every row of every model
#   calibration.yaml                     the calibration of all rows together: bands, kernel
#                                        cost, small-M curve (for --calibration FILE)
#   tables.md                            the three Markdown tables, one after another
#   <model>.stderr.log                   each run's warnings (rejected or too-noisy kernels)
#
# It installs nothing. It needs a Python with kvcalc's dependencies and a CUDA build of
# torch already installed (PYTHON=/path/to/python to choose one). HARDWARE=h100|h200
# overrides the profile picked from the device name; BATCH, CTX, GEMM_M, REPEATS override
# the sizes. The CPU path of the same command (no GPU needed; small shapes, seconds):
#   DEVICE=cpu BATCH=1 CTX=64 GEMM_M=1,4,16 bench/gpu_check.sh /tmp/check
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
py=${PYTHON:-python3}
export PYTHONPATH="$repo${PYTHONPATH:+:$PYTHONPATH}"

device=${DEVICE:-cuda}
if [ "$device" = cpu ]; then
  gpu=cpu; hw=cpu
else
gpu=$("$py" - <<'PY'
import sys
try:
    import torch
except ImportError:
    sys.exit("torch is not installed in this Python; install a CUDA build first (pinned), "
             "e.g. pip install 'torch==<version>' --index-url https://download.pytorch.org/whl/cu124")
if not torch.cuda.is_available():
    sys.exit(f"torch {torch.__version__} sees no CUDA device")
print(torch.cuda.get_device_name(0))
PY
)
case "${HARDWARE:-}" in
  "") case "$gpu" in *H200*) hw=h200 ;; *H100*) hw=h100 ;;
        *) echo "gpu_check: $gpu is neither an H100 nor an H200; set HARDWARE=" >&2; exit 2 ;;
      esac ;;
  *) hw=$HARDWARE ;;
esac
fi
# "NVIDIA H200" -> nvidia-h200: the folder name of this GPU's measurements
slug=$(printf '%s' "$gpu" | tr '[:upper:]' '[:lower:]' | tr -cs 'a-z0-9' '-' | sed 's/^-*//; s/-*$//')
out=${1:-$repo/docs/measurements/$(date -u +%Y-%m-%d)-$slug}
mkdir -p "$out"
echo "gpu_check: $gpu -> profile $hw; writing to $out" >&2

if [ "$device" = cpu ]; then
  common=(--device cpu --dtype fp32)
else
  common=(--device cuda --hardware "$hw" --dtype bf16)
fi
common+=(--batch "${BATCH:-1,16,64}" --ctx "${CTX:-1024,8192}" --repeats "${REPEATS:-20}"
         --warmup 5 --format json)
if [ -n "${GEMM_M:-}" ]; then common+=(--gemm-m "$GEMM_M"); fi
status=0
reports=()
for model in llama3-8b llama3-70b deepseek-v3; do
  start=$SECONDS
  # 170 s per model keeps the whole check under 9 minutes even if one model is slow
  if timeout 170 "$py" -m calc measure --model "$model" "${common[@]}" \
      --output "$out/$model.json" --save-calibration "$out/$model.calibration.yaml" \
      2> "$out/$model.stderr.log"; then
    :
  else
    rc=$?
    echo "gpu_check: $model exited $rc (1: a kernel was rejected; 124: timed out);" \
         "see $out/$model.stderr.log" >&2
    status=1
  fi
  [ -s "$out/$model.json" ] && reports+=("$out/$model.json")
  echo "gpu_check: $model took $((SECONDS - start)) s" >&2
done
if [ ${#reports[@]} -gt 0 ]; then
  "$py" -m calc.measure.report "${reports[@]}" "$out" > /dev/null
  for r in "${reports[@]}"; do cat "${r%.json}.md"; echo; done > "$out/tables.md"
  cat "$out"/*.txt
fi
exit $status
