"""The plan's cost ranking against published cross-vendor serving results
(docs/validation/cross_vendor_runs.yaml): for every pair of GPUs a published scenario ranks, the
published cost ratio against the plan's, and whether the published gap exceeds the two rows'
stated error bands (issue 22's "Done when": there the plan must agree).

Run: python bench/plan_cross_vendor.py [--method simulation|analytic]
(tests/test_plan_cross_vendor.py runs the same comparison with the analytic method.)

Each scenario point is planned once per GPU, the GPU alone (``--hardware``), on SemiAnalysis's
owned-TCO prices (the basis of InferenceX's published costs; its B300/GB300 figures are its own
1.2 × derivations, so ``--derived-prices``), at:

- the scenario's workload: InferenceX's input and output lengths, TPOT target 1 / the point's
  tokens/s per user, TTFT 30 s (InferenceX states none); MLPerf's p99 TTFT and TPOT rule, the
  rows' mean output tokens, and a prompt length the result files do not state (``PROMPT``,
  assumed per dataset, the same for every GPU of a scenario);
- a request rate that needs ``SYSTEM_GPUS`` (16) GPUs of the fastest (MLPerf: the best system's
  target QPS per GPU × 16; InferenceX: its best tokens/s per GPU × 16 / (input + output)
  tokens), so replica rounding does not decide;
- each row's precision where the source fixes it (InferenceX's fp8 DeepSeek, gpt-oss as
  released, MI355X fp4 and fp8) and its engine (TensorRT → trtllm, vLLM → vllm; InferenceX's
  "best available" → every engine the GPU runs); MLPerf rows otherwise get the plan's default
  search.

The published cost of a row: InferenceX's USD per million tokens; an MLPerf row's costh / (its
tokens/s per GPU × 3,600) × 10^6 (the same basis). The plan's: its winner's USD per hour (the
same load: cost per token ∝ USD/h). A row's band is the width (1 + p75) / (1 + p25) of its
class's TPOT band (the widest band measured for an unvalidated class); the pair must agree when
the published ratio is above the product of the two widths or below its inverse.

Left out, and why: MLPerf Offline scenarios (no latency rule to plan at), AMD's MLPerf v6.0
claims (ratios chosen by the vendor, precisions unstated), Artificial Analysis (another price
basis, its workload unstated), RTX PRO 6000 and L40S rows (no owned-TCO price), open-division
rows.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNS = ROOT / "docs" / "validation" / "cross_vendor_runs.yaml"
MODELS = {
    "Llama-2-70B": str(ROOT / "tests" / "data" / "models" / "llama2-70b.yaml"),
    "Llama-3.1-8B": "llama3.1-8b",
    "Mixtral-8x7B": "mixtral-8x7b",
    "Llama-3.1-405B": "llama3.1-405b",
    "DeepSeek-R1": "deepseek-r1",
    "gpt-oss-120b": "gpt-oss-120b",
    "Llama-3.3-70B": "llama3.3-70b",
}
# prompt tokens per request of each MLPerf dataset: not in the result files; ASSUMED, the same
# for every GPU of a scenario (the ranking of GPUs, not a throughput, is compared)
PROMPT = {
    "Llama-2-70B": 512,  # OpenOrca GPT-4 subset
    "Mixtral-8x7B": 512,  # OpenOrca, GSM8K, MBXP mix
    "Llama-3.1-405B": 8192,  # the long-context dataset
    "DeepSeek-R1": 1024,
    "Llama-3.1-8B": 1024,  # CNN/DailyMail articles
}
INFERENCEX_TTFT_S = 30.0
SYSTEM_GPUS = 16  # the load: what this many GPUs of the fastest row serve


@dataclass(frozen=True)
class Point:
    """One scenario point: the rows that rank GPUs at one operating point."""

    scenario: str
    model: str
    prompt: int
    gen: int
    rate: float
    ttft_s: float
    tpot_s: float
    rows: tuple  # the published rows (dicts)


def _model(sc) -> str | None:
    return next((v for k, v in MODELS.items() if sc["model"].startswith(k)), None)


def _prompt_key(sc) -> str:
    return next(k for k in PROMPT if sc["model"].startswith(k))


@cache
def _data() -> dict:
    import yaml

    return yaml.safe_load(RUNS.read_text())


def owned_price(profile: str) -> float:
    from calc.data.registry import load_hardware

    return load_hardware(profile).price("owned_tco").usd_per_gpu_hour


def points() -> list[Point]:
    """Every scenario point the comparison uses (module docstring)."""
    out = []
    for sc in _data()["scenarios"]:
        model = _model(sc)
        sid = sc["id"]
        if model is None or sid.startswith(("mlperf60", "artificialanalysis")):
            continue
        if sid.startswith("inferencex"):
            for u in sorted({r["tokens_per_s_per_user"] for r in sc["rows"]}):
                rows = [r for r in sc["rows"] if r["tokens_per_s_per_user"] == u]
                p, g = sc["input_len"], sc["output_len"]
                rate = max(r["tokens_per_s_per_gpu"] for r in rows) * SYSTEM_GPUS / (p + g)
                out.append(Point(sid, model, p, g, rate, INFERENCEX_TTFT_S, 1 / u, tuple(rows)))
            continue
        rule = re.search(r"TTFT <= ([\d.]+) (m?s), p99 TPOT <= ([\d.]+) ms",
                         sc.get("latency_constraint", ""))  # fmt: skip
        if rule is None:  # Offline: no latency rule to plan at
            continue
        rows = [r for r in sc["rows"] if r.get("division", "closed") == "closed"]
        rows = [r for r in rows if _has_owned_price(r["profile"])]
        if len(rows) < 2:
            continue
        ttft = float(rule.group(1)) * (1e-3 if rule.group(2) == "ms" else 1.0)
        tpot = float(rule.group(3)) * 1e-3
        gen = round(sum(r["output_tokens_per_sample"] for r in rows) / len(rows))
        rate = max(r["target_qps"] * SYSTEM_GPUS / r["gpus"] for r in rows)
        out.append(Point(sid, model, PROMPT[_prompt_key(sc)], gen, rate, ttft, tpot, tuple(rows)))
    return out


def _has_owned_price(profile: str) -> bool:
    from calc.data.registry import load_hardware

    return load_hardware(profile).price("owned_tco") is not None


def _engines(row) -> tuple[str, ...]:
    text = row.get("engine", "")
    if "TensorRT" in text:
        return ("trtllm",)
    if "vLLM" in text or "vllm" in text:
        return ("vllm",)
    if "SGLang" in text:
        return ("sglang",)
    return ("vllm", "sglang", "trtllm")  # "best available"; the plan drops what cannot run


def _weights(point: Point, row) -> tuple[str, ...] | None:
    if point.scenario.startswith(("inferencex-deepseek", "inferencex-gpt-oss")):
        return ("released",)
    if point.scenario.startswith("inferencex-llama"):
        return ("fp4",) if row["weights"] == "fp4" else ("fp8",)
    return None


def published_cost(row) -> float:
    """USD per million tokens as published, or costh / tokens/s per GPU for MLPerf."""
    if "usd_per_million_tokens" in row:
        return row["usd_per_million_tokens"]
    return owned_price(row["profile"]) / (row["tokens_per_s_per_gpu"] * 3600) * 1e6


@cache
def _plan_row(model, profile, prompt, gen, rate, ttft, tpot, weights, engines, method):
    from calc.deploy.pricing import Pricing
    from calc.reports.plan import PlanQuery, Slo, plan
    from calc.reports.plan_eval import Load

    q = PlanQuery(models=(model,), load=Load(rate, prompt, gen),
                  slo=Slo(ttft_p99_s=ttft, tpot_p99_s=tpot), hardware=(profile,),
                  pricing=Pricing(basis="owned_tco", derived=True), weight_dtypes=weights,
                  engines=engines)  # fmt: skip
    rows = plan(q, method=method).fields["rows"]
    return rows[0] if rows else None


def width(cls: str) -> float:
    """A row's band as a ratio: (1 + p75) / (1 + p25) of its class's TPOT band (or the widest
    band measured)."""
    from calc.reports.plan_confidence import bands

    data = bands()
    b = data["classes"].get(cls, {}).get("tpot")
    if b is None:
        w = data["widest"]["tpot"]
        b = w
    return (1 + b["p75"]) / (1 + b["p25"])


@dataclass(frozen=True)
class Pair:
    point: Point
    a: str
    b: str
    published: float  # published cost a / cost b
    planned: float | None  # the plan's USD/h a / b (None: a side has no row)
    band: float  # the two rows' widths multiplied

    @property
    def needed(self) -> bool:
        return self.published > self.band or self.published < 1 / self.band

    @property
    def agrees(self) -> bool:
        return self.planned is not None and (self.published > 1) == (self.planned > 1)


def pairs(method: str = "simulation") -> list[Pair]:
    out = []
    for pt in points():
        planned = {}
        for r in pt.rows:
            key = f"{r['profile']}" + (f" {r['weights']}" if "weights" in r else "")
            row = _plan_row(pt.model, r["profile"], pt.prompt, pt.gen, pt.rate, pt.ttft_s,
                            pt.tpot_s, _weights(pt, r), _engines(r), method)  # fmt: skip
            planned[key] = (published_cost(r), row)
        keys = list(planned)
        for i, a in enumerate(keys):
            for b in keys[i + 1 :]:
                (pa, ra), (pb, rb) = planned[a], planned[b]
                ratio = None
                band = 1.0
                if ra is not None and rb is not None:
                    ratio = ra["usd_per_hour_per_deployment"] / rb["usd_per_hour_per_deployment"]
                    band = width(ra["confidence_class"]) * width(rb["confidence_class"])
                out.append(Pair(pt, a, b, pa / pb, ratio, band))
    return out


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(ROOT))
    method = argv[argv.index("--method") + 1] if "--method" in argv else "simulation"
    res = pairs(method)
    print(f"| scenario | point | pair | published cost ratio | plan's | bands | must agree "
          f"| agrees |  ({method})")  # fmt: skip
    for p in res:
        where = f"{1 / p.point.tpot_s:.0f} tok/s/user" if p.point.scenario.startswith(
            "inferencex") else f"{p.point.rate:g}/s"  # fmt: skip
        planned = "-" if p.planned is None else f"{p.planned:.2f}"
        print(f"| {p.point.scenario} | {where} | {p.a} / {p.b} | {p.published:.2f} | {planned} "
              f"| {p.band:.2f} | {'yes' if p.needed else 'no'} | "
              f"{'yes' if p.agrees else 'NO'} |")  # fmt: skip
    need = [p for p in res if p.needed]
    ok = [p for p in need if p.agrees]
    print(f"{len(ok)} of {len(need)} pairs whose published gap exceeds the bands agree; "
          f"{sum(p.agrees for p in res)} of {len(res)} pairs in all")
    return 0 if len(ok) == len(need) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
