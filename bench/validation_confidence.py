"""The confidence bands of docs/validation.md (written by bench/validation_doc.py): kvcalc's
measured error by class (vendor × weight dtype × dense/MoE), per time a plan promises (TPOT and
TTFT), and the same numbers as data for ``kvcalc plan`` (calc/data/error_bands.json, written by
``python bench/validation_doc.py``; plan reads the numbers, never this page).

Run: python bench/validation_confidence.py     (prints the section)

Records, each a signed error of a predicted time, (predicted − measured) / measured, on data no
constant was fitted to (an error band is the model's error where it was not tuned):

- the held-out half of the serving runs at a fixed concurrency (bench/validation_serving.py:
  NVIDIA, vLLM, SGLang, TensorRT-LLM; the other half fitted the host costs): each run's TPOT and
  TTFT;
- the published runs of current engines (bench/validation_newruns.py: SGLang and vLLM on NVIDIA
  and AMD GPUs, replayed through `kvcalc score`'s simulation), without the rows whose harness
  has runs in the fitted silicon sample: each run's TPOT and TTFT where the source states it;
- the steady-state throughput rows against TensorRT-LLM's table (bench/validation_throughput.py,
  whose four rows fit nothing since issue 20, and bench/validation_heldout.py): a throughput
  error e is a per-output-token time error 1 / (1 + e) − 1 (the same tokens in 1 / (1 + e) of
  the time), counted as TPOT.

Left out: the MI300X vLLM runs (bench/validation_amd.py fits the CDNA3 bands to all of them: their
residuals are in-sample; the AMD classes rest on the published runs above), the
serving runs' training half, and the gpt-fast decode-speed rows (bench/validation_latency.py:
gpt-fast runs torch.compile's kernels, not a serving engine's, and fits the kernel fixed cost).

A class's band is the 25th and 75th percentiles of its records' signed errors (the spread the
kernel curves' bands use too): half of the measured runs fall inside it. Its pessimistic end
for a time is the 25th percentile: the real time is predicted / (1 + p25) when the model runs
fast there (p25 < 0), the prediction itself otherwise. A class with fewer than ``MIN_RECORDS``
records of a metric is unvalidated for it: a plan gives it the widest band measured anywhere
(the largest pessimistic factor of any validated class), and says so.
"""

from __future__ import annotations

import json
import math
import statistics
import sys
from pathlib import Path

from calc.reports.plan_confidence import dtype_class  # the plan maps a deployment the same way

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "calc" / "data" / "error_bands.json"
MIN_RECORDS = 8
PERCENTILES = (25, 75)
METRICS = ("tpot", "ttft")


def _time_error(throughput_error: float) -> float:
    return 1 / (1 + throughput_error) - 1


def _module(name: str):
    if name in sys.modules:
        return sys.modules[name]
    import importlib

    sys.path.insert(0, str(ROOT / "bench"))
    return importlib.import_module(name)


def records() -> list[tuple[str, str, float, str]]:
    """(class, metric, signed time error, source) of every record (module docstring)."""
    from calc.data.registry import load_model

    out = []
    serving = _module("validation_serving")
    for r in serving.results("held-out"):
        row = r.row
        cls = f"{row.vendor} {row.dtype} {'MoE' if row.moe else 'dense'}"
        out.append((cls, "tpot", r.tpot_error, "serving runs (held-out half)"))
        out.append((cls, "ttft", r.ttft_error, "serving runs (held-out half)"))
    throughput = _module("validation_throughput")
    heldout = _module("validation_heldout")
    for res in [*throughput.results(), *(heldout.predict(row) for row in heldout.rows())]:
        row = res.row
        moe = load_model(row.model).moe is not None
        cls = f"NVIDIA {dtype_class(row.weight_dtype)} {'MoE' if moe else 'dense'}"
        out.append((cls, "tpot", _time_error(res.error), "TensorRT-LLM throughput table"))
    newruns = _module("validation_newruns")
    for res in newruns.results():
        run = res.run
        if run.overlaps_fit:
            continue  # their harness's other runs are in the fitted silicon sample
        from calc.data.registry import load_hardware

        moe = load_model(run.model).moe is not None
        cls = (f"{load_hardware(run.hardware).vendor} {dtype_class(run.weight_format)} "
               f"{'MoE' if moe else 'dense'}")  # fmt: skip
        for metric in METRICS:
            err = res.error(metric)
            if err is not None:
                out.append((cls, metric, err, "published runs of current engines"))
    return out


def _pct(xs: list[float], q: float) -> float:
    """The q-th percentile, linear between order statistics (numpy's default)."""
    s = sorted(xs)
    k = (len(s) - 1) * q / 100
    lo, hi = math.floor(k), math.ceil(k)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def factor(p25: float) -> float:
    """The pessimistic multiplier of a predicted time: 1 / (1 + p25) where p25 < 0, else 1."""
    return 1 / (1 + p25) if p25 < 0 else 1.0


SOURCES = (
    "the bands above: the held-out half of ai-dynamo/aiconfigurator's silicon_sample.csv "
    "(docs/validation/aiconfigurator_silicon_agg.csv) and NVIDIA/TensorRT-LLM's "
    "perf-overview.md throughput table (v1.0), and docs/validation/published_runs_2026.yaml "
    "(the published runs of current engines, held out), as their sections state",
    "docs/validation/prices.yaml (every provider's price with its page, date and "
    "transcription: CoreWeave, Lambda, Nebius, Crusoe, RunPod, Hyperstack, Vultr, TensorWave, "
    "DigitalOcean, AWS, Azure, Google Cloud, Oracle, marketplaces; SemiAnalysis's InferenceX "
    "TCO constants): the profiles' prices, written by tools/profile_prices.py",
    "docs/validation/board_power.yaml (MLPerf Inference v4.1 and v5.1 system descriptions, "
    "NVIDIA DGX user guides, Hugging Face's hardware table): the profiles' board power",
    "docs/validation/provenance_audit.md: the profiles' provenance entries",
    "docs/validation/cross_vendor_runs.yaml (MLPerf Inference v5.1 results, "
    "mlcommons/inference_results_v5.1@965182b; SemiAnalysis InferenceX compare pages; AMD's "
    "MLPerf v6.0 claims and Artificial Analysis, looked at, not used): the plan's cost "
    "ranking checked against it (bench/plan_cross_vendor.py), nothing fitted",
    "published quantised checkpoints (calc/data/quantised_checkpoints.yaml): "
    "NVIDIA/Model-Optimizer README news, NVIDIA/TensorRT-LLM perf-overview.md FP4 models, "
    "Hugging Face model cards (nvidia/Llama-3.1-405B-Instruct-FP4, "
    "nvidia/Llama-3.1-8B-Instruct-FP4), ROCm documentation and sgl-project/sglang MI35x tests "
    "(amd/DeepSeek-R1-MXFP4-Preview)",
    "MLPerf llama2-70b harness scripts (mlcommons/inference, vendors' MLPerf repositories): "
    "looked at for the OpenOrca prompt lengths, not found; bench/plan_cross_vendor.py states "
    "its assumption",
)
_CACHE: dict = {}


def bands() -> dict:
    """Every class's band per metric, the widest, and what they rest on (the data file)."""
    if "bands" in _CACHE:
        return _CACHE["bands"]
    groups: dict[tuple[str, str], list[float]] = {}
    sources: dict[tuple[str, str], set] = {}
    for cls, metric, err, src in records():
        groups.setdefault((cls, metric), []).append(err)
        sources.setdefault((cls, metric), set()).add(src)
    classes: dict[str, dict] = {}
    for (cls, metric), errs in sorted(groups.items()):
        if len(errs) < MIN_RECORDS:
            continue
        lo, hi = (_pct(errs, q) for q in PERCENTILES)
        classes.setdefault(cls, {})[metric] = {
            "n": len(errs),
            "p25": round(lo, 4),
            "median": round(statistics.median(errs), 4),
            "p75": round(hi, 4),
            "factor": round(factor(round(lo, 4)), 4),
            "sources": sorted(sources[(cls, metric)]),
        }
    widest = {}
    for metric in METRICS:
        cls = max((c for c in classes if metric in classes[c]),
                  key=lambda c: (classes[c][metric]["factor"], c))  # fmt: skip
        widest[metric] = {"class": cls, **{k: classes[cls][metric][k] for k in
                                          ("n", "p25", "median", "p75", "factor")}}  # fmt: skip
    out = {
        "what": "kvcalc's signed time error (predicted - measured) / measured by class, from "
        "docs/validation.md (bench/validation_confidence.py); a plan's pessimistic end of a "
        "time is predicted x factor, factor = 1 / (1 + p25) where p25 < 0, else 1",
        "percentiles": list(PERCENTILES),
        "min_records": MIN_RECORDS,
        "classes": classes,
        "widest": widest,
    }
    _CACHE["bands"] = out
    return out


def band_line(cls: str, metric: str, b: dict) -> str:
    """One row of the page's table (the data file's test reads it back)."""
    return (
        f"| {cls} | {metric.upper()} | {b['n']:,} | {b['p25']:+.1%} | {b['median']:+.1%} | "
        f"{b['p75']:+.1%} | ×{b['factor']:.3f} |"
    )


def render() -> str:
    b = bands()
    lines = [
        "## Confidence bands by class (what `kvcalc plan` margins on)",
        "",
        "<!-- generated by bench/validation_confidence.py -->",
        "",
        "Every record above that times a serving deployment and fitted nothing, grouped by",
        "class (vendor × weight dtype × dense/MoE): the held-out serving runs' TPOT and TTFT,",
        "the published runs of current engines' (held out, without those from a harness whose",
        "other runs were fitted), and TensorRT-LLM's throughput rows as a time per output",
        "token, 1 / (1 + throughput error) − 1. The MI300X runs of the AMD section are left",
        "out: the CDNA3 bands are fitted to them, so their residuals are in-sample; the AMD",
        "classes rest on the published runs alone (too few yet). The band is the 25th–75th",
        "percentile of the signed errors; its pessimistic end multiplies a predicted time by",
        "1 / (1 + p25) where the model runs fast (p25 < 0). `kvcalc plan` ranks a deployment",
        "only if its p99s times these factors meet the SLOs. A class with fewer than",
        f"{MIN_RECORDS} records of a time is unvalidated: it takes the widest band measured",
        "anywhere (below). The numbers are also written to `calc/data/error_bands.json`, which",
        "`plan` reads.",
        "",
        "| class | time | records | p25 | median | p75 | pessimistic factor |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for cls, metrics in b["classes"].items():
        for metric in METRICS:
            if metric in metrics:
                lines.append(band_line(cls, metric, metrics[metric]))
    lines += ["", "Widest band measured (an unvalidated class's):", ""]
    for metric, w in b["widest"].items():
        lines.append(f"- {metric.upper()}: {w['class']}, ×{w['factor']:.3f} (p25 {w['p25']:+.1%},"
                     f" {w['n']:,} records)")  # fmt: skip
    validated = [
        f"{c} ({', '.join(m.upper() for m in b['classes'][c])})" for c in sorted(b["classes"])
    ]
    lines += [
        "",
        f"Validated: {'; '.join(validated)}. Any other class, or time of a class, is "
        "unvalidated.",
        "",
        "Sources of issue 22's plan (prices, provenance, margins): fitted to nothing; used or "
        "looked at:",
        "",
        *[f"- {s}" for s in SOURCES],
        "",
    ]
    return "\n".join(lines)


def write(path: Path = DATA) -> None:
    path.write_text(json.dumps(bands(), indent=1, sort_keys=True) + "\n")


def stale(path: Path = DATA) -> bool:
    return not path.exists() or path.read_text() != json.dumps(bands(), indent=1,
                                                               sort_keys=True) + "\n"  # fmt: skip


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.stdout.write(render())
