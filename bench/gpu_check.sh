#!/usr/bin/env bash
# Predicted-vs-measured check on ONE H100 or H200 (about 5-7 minutes; hard cap 8).
#
#   bench/gpu_check.sh OUT_FOLDER
#
# Runs `kvcalc measure` on the GPU for one layer of llama3-8b and llama3-70b (prefill,
# MHA/GQA/MQA decode, paged decode, decode GEMMs) and for deepseek-v3 (MLA decode in the
# absorbed form, its prefill and GEMMs) at batch 1, 16, 64 and context 1024 and 8192, and
# writes each report as JSON, CSV and table text into OUT_FOLDER, plus all.csv (every row)
# and the calibration YAML each run measured.
#
# It installs nothing. It needs a Python with kvcalc's dependencies and a CUDA build of
# torch already installed (PYTHON=/path/to/python to choose one). HARDWARE=h100|h200
# overrides the profile picked from the device name. A dry run of the script itself on a
# machine without a GPU: DEVICE=cpu BATCH=1 CTX=64 bench/gpu_check.sh /tmp/check
set -euo pipefail

out=${1:?usage: bench/gpu_check.sh OUT_FOLDER}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
py=${PYTHON:-python3}
export PYTHONPATH="$repo${PYTHONPATH:+:$PYTHONPATH}"
mkdir -p "$out"

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
echo "gpu_check: $gpu -> profile $hw; writing to $out" >&2

if [ "$device" = cpu ]; then
  common=(--device cpu --dtype fp32)
else
  common=(--device cuda --hardware "$hw" --dtype bf16)
fi
common+=(--batch "${BATCH:-1,16,64}" --ctx "${CTX:-1024,8192}" --repeats 20 --warmup 5
         --format json)
status=0
reports=()
for model in llama3-8b llama3-70b deepseek-v3; do
  start=$SECONDS
  # 150 s per model keeps the whole check under 8 minutes even if one model is slow
  if timeout 150 "$py" -m calc measure --model "$model" "${common[@]}" \
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
  cat "$out"/*.txt
fi
exit $status
