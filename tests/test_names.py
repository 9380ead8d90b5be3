"""One meaning per output name (issue 10).

(a) every JSON/CSV key every command emits is in ``calc.output.names.NAMES`` (with its unit, scope
    and meaning), on dense, MoE, MLA, sliding-window and hybrid-SSM models;
(b) docs/names.md is what ``python -m calc.output.names`` prints;
(c) the cross-command agreement: at one operating point, memory (with -H), capacity, latency,
    flops, cost, sweep, check and plot data agree on the per-GPU ledger (weights, KV, SSM
    state, KV budget), fits and max concurrency, and every key two commands both emit has the
    same value (speculate's plain step and draft memory likewise with latency and memory).

A new command: its invocation goes in ``invocations`` (or ``LISTINGS``), its keys in
calc/output/names.py, one line each.
"""

from __future__ import annotations

import csv
import importlib.util
import io
from pathlib import Path

import pytest

from calc.output.names import NAMES, lookup, render_markdown

ROOT = Path(__file__).resolve().parents[1]
MODELS = ("llama3-8b", "mixtral-8x7b", "deepseek-v3", "gemma-2-9b", "jamba-v0.1")
HW = {"deepseek-v3": ("h200", "8"), "mixtral-8x7b": ("h100", "2"), "jamba-v0.1": ("h200", "2")}


def flatten(obj, prefix: str = "") -> set[str]:
    """Key paths of a JSON document: ``key`` at the top, ``parent.key`` in a nested object,
    ``list[].key`` in a list of records."""
    out: set[str] = set()
    if isinstance(obj, dict):
        for k, v in obj.items():
            path = f"{prefix}{k}"
            out.add(path)
            if isinstance(v, dict):
                out |= flatten(v, path + ".")
            elif isinstance(v, list) and any(isinstance(x, dict) for x in v):
                out.discard(path)  # a list of records is named by its records' keys
                for x in v:
                    out |= flatten(x, path + "[].")
    return out


def csv_keys(text: str, prefix: str) -> set[str]:
    header = next(csv.reader(io.StringIO(text)))
    return {prefix + k for k in header}


def check_spec(tmp_path: Path, model: str, hw: str, tp: int, pp: int = 1, *, ctx: int,
               batch: int, min_concurrency: int = 1, latency: bool = True) -> Path:  # fmt: skip
    reqs = f"must_fit: true, min_concurrency: {min_concurrency}"
    if latency:
        reqs += (
            ", max_tpot_ms: 1000, max_ttft_ms: 100000, max_usd_per_million_output_tokens: 1000, "
            "max_usd_per_million_input_tokens: 1000"
        )
    p = tmp_path / f"spec-{model}-{tp}-{pp}-{ctx}-{batch}.yaml"
    p.write_text(
        f"deployments:\n  - name: d\n    model: {model}\n    hardware: {hw}\n    tp: {tp}\n"
        f"    pp: {pp}\n    workload: {{ctx: {ctx}, batch: {batch}}}\n"
        f"    requirements: {{{reqs}}}\n"
    )
    return p


def invocations(model: str, tmp_path: Path) -> list[tuple[str, tuple, str]]:
    """(command, argv, format) of every command on ``model``."""
    hw, tp = HW.get(model, ("h100", "1"))
    m = ("-m", model)
    dep = (*m, "-H", hw, "--tp", tp)
    spec = check_spec(tmp_path, model, hw, int(tp), ctx=4096, batch=2)
    plot = ("-m", model, "-H", hw, "--tp", tp, "--max-ctx", "4096")
    draft = ("--mtp", "1") if model == "deepseek-v3" else ("--draft", "llama3-8b")
    ctx = ("--ctx", "4096")
    sim = ("--prompt", "uniform:100:2000", "--gen", "64", "-n", "40")
    return [
        ("memory", ("memory", *m, *ctx), "json"),
        ("memory", ("memory", *m, *ctx, "-H", hw, "--gpus", tp), "json"),
        ("memory", ("memory", *m, *ctx, "-H", hw, "--explain"), "json"),
        ("capacity", ("capacity", *dep, *ctx, *"--shared-prefix 1000 --users 4".split()), "json"),
        ("capacity", ("capacity", *dep, *ctx), "csv"),
        ("capacity", ("capacity", *dep, *ctx, "--explain"), "json"),
        ("latency", ("latency", *dep, *"--prompt 1000 --gen 100 -b 2".split()), "json"),
        ("latency", ("latency", *dep, *"--prompt 100 --gen 9 --explain".split()), "json"),
        ("roofline", ("roofline", *dep, *"--prompt 1000 --gen 1".split()), "json"),
        ("flops", ("flops", *m, "--prompt", "1000"), "json"),
        ("flops", ("flops", *m, *"--prompt 100 --explain".split()), "json"),
        ("flops", ("flops", *dep, *"--prompt 1000 --gen 10".split()), "json"),
        ("cost", ("cost", *dep, *ctx), "json"),
        ("cost", ("cost", *dep, *ctx, "--explain"), "json"),
        ("cost", ("cost", *dep, *ctx, *"--prompt 1000 --max-tpot-ms 100 --max-ttft-ms 1e5".split()),
         "json"),
        ("cost", ("cost", *dep, *ctx, "--max-tpot-ms", "0.001"), "json"),  # no batch meets it
        ("sweep", ("sweep", *m, "-H", hw, "--tp", tp, "--ctx", "1024,4096"), "json"),
        ("sweep", ("sweep", *m, "-H", hw, "--tp", tp, "--ctx", "1024"), "csv"),
        ("check", ("check", spec), "json"),
        ("check", ("check", spec), "csv"),
        *[("plot", ("plot", kind, *plot), f)
          for kind in ("roofline", "memory", "capacity", "frontier") for f in ("json", "csv")],
        ("speculate", ("speculate", *dep, *draft, *"--gamma 2 --alpha 0.7".split()), "json"),
        ("train", ("train", *dep, *ctx, "--tokens", "1e9"), "json"),
        ("train", ("train", *dep, *ctx, "--explain"), "json"),
        ("train", ("train", *dep, *ctx, "--finetune", "lora"), "csv"),
        *[("plan", ("plan", *m, "-H", hw, *"--rate 2 --prompt 1000 --gen 100 --ttft-p99 5s "
                    "--tpot-p99 200ms --method analytic".split(), *x), f)
          for x, f in (((), "csv"), (("--explain",), "json"))],
        ("simulate", ("simulate", *dep, *sim, "--rate", "2", "--ttft-slo", "2s"), "json"),
        ("simulate", ("simulate", *dep, *sim, "--rate", "2"), "csv"),
        ("simulate", ("simulate", *dep, *sim, "--sweep-rate", "1,8", "--tpot-slo", "50ms"),
         "json"),
        ("simulate", ("simulate", *dep, *sim, "--sweep-rate", "1,8"), "csv"),
    ]  # fmt: skip


ENGINE_LOGS = Path(__file__).resolve().parent / "data" / "engine_logs"
BENCH_RUN = (Path(__file__).resolve().parent / "data" / "bench_results"
             / "vllm-0.8.3_llama-3.3-70b_tp8_pp1_a100-40g_sharegpt_qps-04.json")  # fmt: skip
# commands run once (not per model); measure times kernels on the CPU (torch), ~10 s
LISTINGS = [
    ("models", ("models",), "json"),
    ("hardware", ("hardware",), "json"),
    *[("log", ("log", str(ENGINE_LOGS / name), "-m", "llama3-8b"), f) for name in (
        "vllm-h100-llama31-8b-tp2.log", "trtllm-h100-llama31-8b-fp8.log") for f in ("json", "csv")],
    ("log", ("log", str(ENGINE_LOGS / "vllm-h100-llama31-8b-tp1.log"), "--explain"), "json"),
    ("measure", ("measure", "-m", "llama3-8b", "--device", "cpu", "-b", "1", "--ctx", "64",
                 "--gemm-m", "1", "--repeats", "1", "--warmup", "0"), "json"),
    *[("score", ("score", str(BENCH_RUN), "-H", "h100", "--tp", "8", *x), f) for x, f in (
        (("--fit", "gemm,request"), "json"), ((), "csv"), (("--explain",), "json"))],
]  # fmt: skip
CSV_PREFIX = {"sweep": "rows[].", "plot": "rows[].", "check": "results[].", "measure": "rows[].",
              "log": "terms[].", "simulate": "rows[].", "plan": "rows[].",
              "score": "metrics[]."}  # fmt: skip


def emitted(cli, command: str, argv: tuple, fmt: str) -> set[str]:
    r = cli(*argv, "-f", fmt)
    assert r.code in (0, 1), f"kvcalc {' '.join(map(str, argv))} -f {fmt}: {r.err}"
    if fmt == "json":
        return flatten(r.json())
    return csv_keys(r.out, CSV_PREFIX.get(command, ""))


def test_registry_entries_are_complete():
    from calc.output.names import SCOPES, UNITS

    for key, n in NAMES.items():
        assert n.unit in UNITS, f"{key}: unit {n.unit!r} not one of {UNITS}"
        assert n.scope in SCOPES, f"{key}: scope {n.scope!r} not one of {SCOPES}"
        assert n.meaning and "\n" not in n.meaning, key
        assert n.commands, key


@pytest.mark.parametrize("model", MODELS)
def test_every_emitted_key_is_registered(cli, tmp_path, model):
    missing: dict[str, set[str]] = {}
    undeclared: dict[str, set[str]] = {}
    runs = invocations(model, tmp_path) + (LISTINGS if model == MODELS[0] else [])
    if importlib.util.find_spec("torch") is None:  # measure needs the `measure` extra
        runs = [r for r in runs if r[0] != "measure"]
    for command, argv, fmt in runs:
        for key in emitted(cli, command, argv, fmt):
            entry = lookup(key)
            if entry is None:
                missing.setdefault(key, set()).add(command)
            elif command not in entry.commands:
                undeclared.setdefault(key, set()).add(command)
    lines = [f"  {k}  (from {', '.join(sorted(c))})" for k, c in sorted(missing.items())]
    assert not missing, "keys missing from calc/output/names.py NAMES:\n" + "\n".join(lines)
    lines = [f"  {k}: add {', '.join(sorted(c))}" for k, c in sorted(undeclared.items())]
    assert not undeclared, "commands not listed in their NAMES entry:\n" + "\n".join(lines)


# commands that emit no JSON/CSV keys
NO_KEYS = {"import-hf": "writes a model YAML"}


def test_every_command_is_run_here(tmp_path):
    """A new command (train, log, ...) needs its invocation in ``invocations`` or
    ``LISTINGS`` (one line) and its keys in calc/output/names.py (one line each)."""
    from calc.cli.app import COMMANDS

    ran = {c for c, _, _ in invocations(MODELS[0], tmp_path) + LISTINGS}
    missing = set(COMMANDS) - ran - set(NO_KEYS)
    assert not missing, f"add an invocation of {sorted(missing)} to tests/test_names.py"


def test_docs_page_is_current():
    page = ROOT / "docs" / "names.md"
    assert page.read_text() == render_markdown(), "run: python -m calc.output.names > docs/names.md"


# -- (c) the cross-command agreement -------------------------------------------------------

# model, hardware, tp, pp, ep, prompt, gen[, batch]: dense, MoE, MLA, sliding-window, hybrid
# SSM, MQA; the last ones do not fit (batch above max_concurrency, or no KV budget at all)
CASES = [
    ("llama3-8b", "h100", 1, 1, 1, 3000, 1096),
    ("llama3-8b", "h100", 2, 2, 1, 3000, 1096),
    ("llama3-70b", "h100", 4, 1, 1, 3000, 1096),
    ("llama3-70b", "h100", 2, 2, 1, 3000, 1096),
    ("mixtral-8x7b", "h100", 2, 1, 1, 3000, 1096),
    ("mixtral-8x7b", "h100", 2, 2, 1, 3000, 1096),
    ("qwen3-30b-a3b", "h100", 8, 1, 1, 3000, 1096),
    ("gpt-oss-120b", "h200", 2, 1, 1, 3000, 1096),
    ("deepseek-v3", "h200", 8, 1, 1, 3000, 1096),
    ("deepseek-v3", "h200", 8, 2, 1, 3000, 1096),
    ("deepseek-v3", "h200", 1, 1, 8, 3000, 1096),
    ("deepseek-v2", "h200", 4, 1, 1, 3000, 1096),
    ("gemma-2-9b", "h100", 1, 1, 1, 3000, 1096),
    ("gemma-2-9b", "h100", 2, 2, 1, 6000, 2192),
    ("gemma-3-27b", "h100", 2, 1, 1, 6000, 2192),
    ("jamba-v0.1", "h200", 2, 1, 1, 500, 524),
    ("jamba-v0.1", "h200", 2, 2, 1, 3000, 1096),
    ("nemotron-h-56b", "h200", 2, 1, 1, 6000, 2192),
    ("nemotron-h-56b", "h200", 1, 4, 1, 6000, 2192),
    ("falcon-7b", "h100", 1, 2, 1, 1500, 548),
    ("llama3-70b", "h100", 2, 1, 1, 3000, 1096, 64),
    ("jamba-v0.1", "h200", 2, 1, 1, 500, 524, 8000),
    ("nemotron-h-56b", "h200", 1, 4, 1, 6000, 2192, 2000),
    ("mixtral-8x7b", "h100", 1, 1, 1, 3000, 1096),
]
BATCH = 8  # default batch of a case
# what every ledger-bearing command reports about the operating point
LEDGER = (
    "weights_bytes_per_gpu",
    "kv_cache_bytes_per_gpu",
    "ssm_state_bytes_per_gpu",
    "kv_budget_bytes",
    "fits",
    "max_concurrency",
)


def _same(a, b) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return a == pytest.approx(b, rel=1e-12, abs=0)
    return a == b


def _case_id(case) -> str:
    model, hw, tp, pp, ep, prompt, gen, *batch = case
    return f"{model}-{hw}-tp{tp}-pp{pp}-ep{ep}-ctx{prompt + gen}-b{batch[0] if batch else BATCH}"


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_commands_agree_at_one_operating_point(cli, tmp_path, case):
    model, hw, tp, pp, ep, prompt, gen, *batch = case
    batch = batch[0] if batch else BATCH
    ctx = prompt + gen
    assert ctx & (ctx - 1) == 0  # a point of the plot's x axis (powers of 2 from 512)
    par = ("--tp", tp, "--pp", pp, "--ep", ep)
    at = ("-m", model, "-H", hw, "-b", batch)

    def run(*argv):
        r = cli(*argv, "-f", "json")
        assert r.code == 0, f"kvcalc {' '.join(map(str, argv))}: {r.err}"
        return r.json()

    out = {
        "memory": run("memory", *at, "--ctx", ctx, *par),
        "capacity": run("capacity", *at, "--ctx", ctx, *par),
        "latency": run("latency", *at, "--prompt", prompt, "--gen", gen, *par),
        "flops": run("flops", *at, "--prompt", prompt, "--gen", gen, *par),
        # the same prompt as latency: the steady-state serving_* keys are of prompt + gen
        "cost": run("cost", *at, "--ctx", ctx, "--prompt", prompt, *par),
    }
    if pp == 1 and ep == 1:  # sweep and plot take --tp only
        rows = run("sweep", *at, "--ctx", ctx, "--prompt", prompt, "--tp", tp)["rows"]
        (row,) = [r for r in rows if r["ctx"] == ctx]
        out["sweep"] = row
        plot = run("plot", "capacity", *at, "--tp", tp, "--max-ctx", ctx)["rows"]
        (own,) = [r for r in plot if r["own"] and r["ctx"] == ctx]
        out["plot capacity"] = own
        plot = run("plot", "memory", *at, "--max-ctx", ctx)["rows"]
        (own,) = [r for r in plot if r["own"] and r["ctx"] == ctx]
        out["plot memory"] = own

    cap = out["capacity"]
    for cmd in ("memory", "latency", "cost", "sweep"):
        if cmd in out:
            missing = [k for k in LEDGER if k not in out[cmd]]
            assert not missing, f"{cmd} does not report {missing}"
    if "plot capacity" in out:
        assert out["plot capacity"]["max_concurrency"] == cap["max_concurrency"]

    # check: must_fit's limit is the KV budget and its figure the busiest GPU's sequences;
    # min_concurrency's figure is max_concurrency
    conc = max(1, cap["max_concurrency"])
    spec = check_spec(tmp_path, model, hw, tp, pp, ctx=ctx, batch=batch, min_concurrency=conc,
                      latency=False)  # fmt: skip
    if ep > 1:
        spec.write_text(spec.read_text().replace("    pp:", f"    ep: {ep}\n    pp:"))
    r = cli("check", spec, "-f", "json")
    assert r.code in (0, 1), r.err
    res = {x["requirement"]: x for x in r.json()["results"]}
    fit, mc = res["must_fit"], res["min_concurrency"]
    assert fit["limit"] == cap["kv_budget_bytes"]
    assert fit["passed"] == cap["fits"]
    sequences = -(-batch // (cap["gpus"] // (tp * pp) if ep == 1 else ep // tp))
    per_seq = cap["kv_bytes_per_sequence_per_gpu"] + cap["ssm_state_bytes_per_sequence_per_gpu"]
    assert fit["figure"] == sequences * per_seq
    assert mc["figure"] == cap["max_concurrency"]

    # any key two commands both emit has one value at this operating point
    mem = out["memory"]
    assert mem["kv_cache_bytes_per_gpu"] == cap["kv_cache_bytes_per_gpu"]
    if "plot memory" in out:
        assert out["plot memory"]["kv_cache_bytes"] == mem["kv_cache_bytes"]
    seen: dict[str, tuple[str, object]] = {}
    clashes = []
    for cmd, fields in out.items():
        for key, value in fields.items():
            if isinstance(value, list | dict) or (cmd.startswith("plot") and key != "ctx"):
                continue
            if key in seen and not _same(seen[key][1], value):
                clashes.append(f"{key}: {seen[key][0]} {seen[key][1]!r} vs {cmd} {value!r}")
            seen.setdefault(key, (cmd, value))
    assert not clashes, "same key, different value:\n  " + "\n  ".join(clashes)


def test_latency_ledger_holds_the_whole_request(cli):
    """latency's ``ctx`` is the reported decode step's context; its ledger keys (the memory the
    request needs) are sized at the whole request, prompt + gen = 4,096 tokens, as the registry
    says: they equal capacity's at --ctx 4096, whatever --ctx the decode step is timed at."""
    at = ("-m", "llama3-8b", "-H", "h100", "-f", "json")
    lat = cli("latency", *at, "--prompt", "3000", "--gen", "1096", "--ctx", "1024").json()
    assert lat["ctx"] == 1024
    cap = cli("capacity", *at, "--ctx", 3000 + 1096).json()
    for key in LEDGER:
        assert lat[key] == cap[key], key


@pytest.mark.parametrize("model, draft, tp", [("llama3-70b", "llama3-8b", 4),
                                              ("mixtral-8x7b", "mistral-7b", 2)])  # fmt: skip
def test_speculate_agrees_with_latency_and_memory(cli, model, draft, tp):
    """speculate's plain step is latency's TPOT at the same point, its plain tokens/s latency's
    output_tokens_per_s, and the draft's extra memory what memory says of the draft."""
    hw, ctx, batch = "h100", 4096, 8
    spec = cli("speculate", "-m", model, "--draft", draft, "-H", hw, "--tp", tp, "--gamma", 3,
               "--alpha", 0.7, "--ctx", ctx, "-b", batch, "-f", "json").json()  # fmt: skip
    lat = cli("latency", "-m", model, "-H", hw, "--tp", tp, "--prompt", ctx - 96, "--gen", 96,
              "-b", batch, "-f", "json").json()  # fmt: skip
    mem = cli("memory", "-m", draft, "--ctx", ctx, "-b", batch, "-f", "json").json()
    assert spec["target_step_s"] == pytest.approx(lat["tpot_s"], rel=1e-12)
    assert spec["tokens_per_s_plain"] == pytest.approx(lat["output_tokens_per_s"], rel=1e-12)
    assert spec["draft_weights_bytes"] == mem["weights_bytes"]
    assert spec["draft_kv_cache_bytes"] == mem["kv_cache_bytes"]
