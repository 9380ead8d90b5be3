"""Writes docs/validation/error_bands.yaml: the measured signed error of kvcalc's serving speed
[fraction] per class of deployment (vendor × weight dtype × dense/MoE), for each figure
(output throughput, TPOT/ITL, TTFT), from every validation record of the step-time model: the
file ``plan`` reads for its margins (issue 22). Also the section of docs/validation.md that
shows the same table (written by bench/validation_doc.py).

Run: python bench/validation_bands.py            (prints the section)
     python bench/validation_bands.py --write    (rewrites docs/validation/error_bands.yaml)

Error = (predicted − measured) / measured: a positive throughput error means kvcalc promises
more tokens/s than was measured; a positive TPOT or TTFT error, a longer latency. Per class and
figure: the rows, the signed median and the 10th and 90th percentiles of the signed error (a
row's prediction × 1 / (1 + p90) … 1 / (1 + p10) spans what the measurements showed), the same
over the rows of held-out sources alone, and the sources. ``widest``: per figure the widest
10-90 band of any class with at least ``MIN_ROWS`` rows (the margin for a class nothing
measured).

Records (each module's docstring says how it predicts):

- aiconfigurator's silicon sample (``validation_serving``): TPOT, TTFT and the closed-loop
  output throughput c × osl / (TTFT + (osl − 1) × TPOT), measured and predicted alike;
- TensorRT-LLM's perf-overview throughput table (``validation_throughput`` training rows and
  ``validation_heldout``): output throughput at max load;
- the published MI300X runs (``validation_amd``): output throughput; the MI355X serving runs
  (``validation_amd_serving``): TPOT, TTFT and the closed-loop output throughput, as above;
- the published benchmark-result files scored uncalibrated (``validation_score``): TTFT p50,
  TPOT mean (where the file has none, what stands in for it: the E2E mean for SGLang 0.4's
  files, ``calc.reports.score_fit.TPOT_STAND_INS``) and output throughput; the runs of eager
  servers (--enforce-eager) left out: plan's deployments run CUDA graphs.
"""

from __future__ import annotations

import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "validation" / "error_bands.yaml"
FIGURES = ("throughput", "tpot", "ttft")
MIN_ROWS = 8  # a class's band counts towards ``widest`` from this many rows
# source id -> (what it is, whether any constant of the step model was fitted to it)
SOURCES = {
    "aiconfigurator-silicon": (
        "ai-dynamo/aiconfigurator@095f58a51 silicon_sample.csv: measured aggregated serving runs "
        "at fixed concurrency (NVIDIA H100-GB300; vLLM, SGLang, TensorRT-LLM)", "fitted"),
    "trtllm-perf-overview": (
        "NVIDIA/TensorRT-LLM@00f37686 docs/source/performance/perf-overview.md (v1.0): "
        "trtllm-bench throughput at max load", "held-out"),
    "trtllm-perf-overview-train": (
        "the same table's four Llama-3.1-8B H100 rows the fp8 band rule was fitted to",
        "fitted"),
    "amd-mi300x-vllm": (
        "AMD ROCm performance results (rocm/vllm 0.10.2) and Oracle Cloud's MI300X blog: vLLM "
        "on MI300X TP8", "fitted"),
    "amd-mi300x-vllm-releases": (
        "the same AMD page's table under four other rocm/vllm releases (0.9.0.1, 0.9.1, 0.10.1, "
        "0.11.1; 2025-06 to 2025-11): vLLM on MI300X TP8", "held-out"),
    "amd-mi300x-rocm-vllm-readme": (
        "ROCm/vllm@040de12 docs/dev-docker/README.md (vLLM 0.10.0, 2025-08): throughput at max "
        "load and benchmark_latency batches 1-128, vLLM on MI300X TP8", "held-out"),
    "amd-mi355x-serving": (
        "llm-d/llm-d@a974157 docs/accelerators/amd-mi355x-perf.md (plain vLLM 0.15.1, MI355X "
        "TP8, Llama-3.3-70B FP8): no expected figure fitted to them (mi355x's unmeasured bands' "
        "low edges widened to hold them)", "held-out"),
    "amd-mi355x-serving-fit": (
        "vLLM pull 25135 (Llama-3.1-405B MXFP4 on one MI355X, AMD's 355_wip build): the mi355x "
        "MXFP4 GEMM rate", "fitted"),
    "benchmark-files": (
        "surajssd/llm-k8s@58b61c5 (vLLM 0.8.3, A100 40GB) and datacrunch-research/"
        "h200-benchmarks@c091ef5 (SGLang 2024-12, H200) result files, scored uncalibrated",
        "held-out"),
    "published-runs-2026": (
        "docs/validation/published_runs_2026.yaml: published serving runs of current engines "
        "(SGLang cookbook, Vultr, InferenceX issues and pulls, vLLM and recipes pulls; vLLM, "
        "SGLang; NVIDIA and AMD) replayed through `kvcalc score`'s simulation, without the "
        "rows whose harness has runs in the silicon sample", "held-out"),
    "published-runs-2026-harness": (
        "the same file's rows from InferenceX's own harness (issues 870, 828), whose dashboard "
        "runs of the same model, GPU and engine are in the fitted silicon sample: nothing "
        "fitted to these rows, but not independent of what was", "fitted"),
}


@dataclass(frozen=True)
class Record:
    source: str
    vendor: str  # nvidia, amd
    dtype: str  # bf16, fp8, fp4, mxfp4
    kind: str  # dense, moe
    figure: str  # throughput, tpot, ttft
    error: float

    @property
    def klass(self) -> str:
        return f"{self.vendor}/{self.dtype}/{self.kind}"


def _silicon() -> list[Record]:
    import validation_serving as vs

    out = []
    for r in vs.results():
        row = r.row
        kind = "moe" if row.moe else "dense"
        life_p = r.ttft_s + (row.osl - 1) * r.tpot_s
        life_m = row.ttft_s + (row.osl - 1) * row.tpot_s
        for fig, err in (("tpot", r.tpot_error), ("ttft", r.ttft_error),
                         ("throughput", life_m / life_p - 1)):  # fmt: skip
            out.append(Record("aiconfigurator-silicon", "nvidia", row.dtype, kind, fig, err))
    return out


def _trtllm() -> list[Record]:
    import validation_heldout as vh
    import validation_throughput as vt

    out = []
    for source, rows in (("trtllm-perf-overview-train", vt.ROWS),
                         ("trtllm-perf-overview", vh.rows())):  # fmt: skip
        for row in rows:
            res = vt.predict(row)
            dtype = "fp4" if row.weight_dtype == "nvfp4" else "fp8"
            out.append(Record(source, "nvidia", dtype, _kind(row.model), "throughput", res.error))
    return out


def _amd() -> list[Record]:
    import validation_amd as va
    import validation_amd_serving as vas

    out = [Record("amd-mi300x-vllm", "amd", "fp8", "dense", "throughput", e)
           for e in va.errors(va.RECORDS)] + [
        Record("amd-mi300x-vllm-releases", "amd", "fp8", "dense", "throughput", e)
        for e in va.errors(va.HELD_OUT)] + [
        Record("amd-mi300x-rocm-vllm-readme", "amd", "fp8", "dense", "throughput", e)
        for e in va.errors(va.DEV_DOCKER_RECORDS)]  # fmt: skip
    for p in vas.after():
        source = "amd-mi355x-serving-fit" if p.run.fit else "amd-mi355x-serving"
        dtype = "mxfp4" if p.run.weight_dtype == "mxfp4" else "fp8"
        for fig, err in (("throughput", p.tokens_error), ("tpot", p.tpot_error),
                         ("ttft", p.ttft_error)):  # fmt: skip
            if err is not None:
                out.append(Record(source, "amd", dtype, "dense", fig, err))
    return out


def _score() -> list[Record]:
    import validation_score as vsc

    out = []
    for s, plain, _ in vsc.evaluate(fits={}):
        if ("cuda_graphs", False) in s.settings:
            continue  # eager servers (--enforce-eager): not what plan's deployments run
        vendor = "amd" if s.hardware.startswith("mi") else "nvidia"
        for sc in plain:
            for metric, stat, _ in vsc.FIGURES:
                row, _ = vsc._figure(sc.rows, metric, stat)
                if row is None:
                    continue
                fig = {"ttft": "ttft", "tpot": "tpot"}.get(metric, "throughput")
                out.append(Record("benchmark-files", vendor, "bf16", _kind(s.model), fig,
                                  row["error"]))  # fmt: skip
    return out


def _newruns() -> list[Record]:
    import validation_newruns as vn

    from calc.data.registry import load_hardware
    from calc.reports.plan_confidence import dtype_class

    out = []
    for r in vn.results():
        run = r.run
        source = "published-runs-2026-harness" if run.overlaps_fit else "published-runs-2026"
        vendor = load_hardware(run.hardware).vendor.lower()
        dtype = dtype_class(run.weight_format)
        for fig, key in (("tpot", "tpot"), ("ttft", "ttft"), ("throughput", "tokens")):
            err = r.error(key)
            if err is not None:
                out.append(Record(source, vendor, dtype, _kind(run.model), fig, err))
    return out


def _kind(model: str) -> str:
    from calc.data.registry import load_model

    return "moe" if load_model(model).moe is not None else "dense"


def records() -> list[Record]:
    return _silicon() + _trtllm() + _amd() + _score() + _newruns()


def _band(errs: list[float]) -> dict:
    qs = statistics.quantiles(errs, n=10, method="inclusive") if len(errs) > 1 else errs * 9
    return {"rows": len(errs), "median": round(statistics.median(errs), 4),
            "p10": round(qs[0], 4), "p90": round(qs[-1], 4)}  # fmt: skip


def bands(recs: list[Record]) -> dict:
    """{class: {figure: band, ..., "sources": [...]}} and the widest band per figure."""
    classes: dict = {}
    for r in recs:
        c = classes.setdefault(r.klass, {"vendor": r.vendor, "dtype": r.dtype, "kind": r.kind,
                                         "sources": set(), "_e": {}})  # fmt: skip
        c["sources"].add(r.source)
        c["_e"].setdefault(r.figure, []).append((r.error, SOURCES[r.source][1] == "held-out"))
    widest: dict = {}
    for name, c in classes.items():
        for fig, pairs in c.pop("_e").items():
            b = _band([e for e, _ in pairs])
            held = [e for e, h in pairs if h]
            if held:
                hb = _band(held)
                b.update(held_out_rows=hb["rows"], held_out_median=hb["median"])
            c[fig] = b
            w = widest.get(fig)
            if b["rows"] >= MIN_ROWS and (w is None or b["p90"] - b["p10"] > w["p90"] - w["p10"]):
                widest[fig] = {"class": name, "p10": b["p10"], "p90": b["p90"]}
        c["sources"] = sorted(c["sources"])
    return dict(sorted(classes.items())), widest


def to_yaml(recs: list[Record]) -> str:
    classes, widest = bands(recs)
    lines = [
        "# Measured signed error of kvcalc's serving speed per deployment class: written by",
        "# bench/validation_bands.py --write from every validation record of the step-time model",
        "# (docs/validation.md); do not edit. plan reads it for its margins (issue 22).",
        "schema: kvcalc-error-bands/1",
        'error: "(predicted - measured) / measured; throughput > 0 promises more tokens/s than '
        'measured, tpot/ttft > 0 a longer latency"',
        'class_key: "vendor/dtype/kind (vendor nvidia|amd; dtype bf16|fp8|fp4|mxfp4 of the '
        'weights; kind dense|moe)"',
        "figures: [throughput, tpot, ttft]",
        'band: "rows, signed median, p10 and p90 of the signed error over every record; '
        'held_out_rows and held_out_median over the records of held-out sources alone"',
        f'widest_rule: "per figure, the widest p10-p90 band of any class with >= {MIN_ROWS} rows: '
        'the margin of a class with no row"',
        "classes:",
    ]
    for name, c in classes.items():
        lines.append(f"  {name}:")
        lines.append(f"    vendor: {c['vendor']}")
        lines.append(f"    dtype: {c['dtype']}")
        lines.append(f"    kind: {c['kind']}")
        for fig in FIGURES:
            if fig in c:
                body = ", ".join(f"{k}: {v}" for k, v in c[fig].items())
                lines.append(f"    {fig}: {{{body}}}")
        lines.append(f"    sources: [{', '.join(c['sources'])}]")
    lines.append("widest:")
    for fig in FIGURES:
        if fig in widest:
            w = widest[fig]
            lines.append(f"  {fig}: {{class: {w['class']}, p10: {w['p10']}, p90: {w['p90']}}}")
    lines.append("sources:")
    for sid, (what, role) in SOURCES.items():
        lines.append(f"  {sid}: {{role: {role}, what: \"{what}\"}}")
    return "\n".join(lines) + "\n"


def render(recs: list[Record] | None = None) -> str:
    recs = records() if recs is None else recs
    classes, widest = bands(recs)
    lines = [
        "## Error bands by deployment class",
        "",
        "<!-- generated by bench/validation_bands.py -->",
        "",
        "Every record above of the step-time model (serving runs, throughput tables, AMD runs,",
        "benchmark files scored uncalibrated), grouped by vendor × weight dtype × dense/MoE:",
        "the signed error's median and its 10th and 90th percentiles per figure; `held-out`",
        "is the signed median over the sources nothing was fitted to. The same figures are",
        "written to `docs/validation/error_bands.yaml` (`python bench/validation_bands.py",
        "--write`), which `plan` reads for its margins.",
        "",
        "| class | figure | rows | signed median | p10 | p90 | held-out rows | held-out median "
        "| sources |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for name, c in classes.items():
        for fig in FIGURES:
            b = c.get(fig)
            if b is None:
                continue
            held = (f"{b['held_out_rows']} | {b['held_out_median']:+.1%}" if "held_out_rows" in b
                    else "0 | ")  # fmt: skip
            lines.append(
                f"| {name} | {fig} | {b['rows']} | **{b['median']:+.1%}** | {b['p10']:+.1%} | "
                f"{b['p90']:+.1%} | {held} | {', '.join(c['sources'])} |"
            )
    lines += ["", "Widest band of any class (the margin where nothing was measured):", ""]
    for fig in FIGURES:
        if fig in widest:
            w = widest[fig]
            lines.append(f"- {fig}: {w['p10']:+.1%} … {w['p90']:+.1%} ({w['class']})")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "bench"))
    recs = records()
    if "--write" in argv:
        OUT.write_text(to_yaml(recs))
        print(f"wrote {OUT}")
    else:
        sys.stdout.write(render(recs))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
