"""Every ``--explain`` line is its figure's own arithmetic (issue 10, "explain from the same
numbers").

Each command that has --explain is run through the CLI on several models and deployments; the
figures it would print are captured, and each figure whose formula is arithmetic is rebuilt
from its template with the full-precision operands (``Figure.numbers``), evaluated safely
(``tests/formula_eval.py``: an ``ast`` whitelist, never ``eval``) and compared with the value
printed beside it. Prose formulas are skipped, but the key figures of each command must be
among the evaluated ones, so the test cannot pass vacuously.
"""

from __future__ import annotations

import math

import pytest

from calc.output.derivation import figure
from tests.formula_eval import Prose, evaluate

# model, hardware, deployment options: dense, MoE, MLA, sliding-window, hybrid SSM, pp, ep
DEPLOYMENTS = [
    ("llama3-8b", "h100", ()),
    ("llama3-70b", "h100", ("--tp", "2", "--pp", "2")),
    ("mixtral-8x7b", "h100", ("--tp", "2")),
    ("deepseek-v3", "h200", ("--tp", "8")),
    ("deepseek-v3", "h200", ("--ep", "8")),
    ("gemma-2-9b", "h100", ()),
    ("gpt-oss-120b", "h200", ("--tp", "2")),
    ("jamba-v0.1", "h200", ("--tp", "2")),
    ("nemotron-h-56b", "h200", ("--tp", "2", "--pp", "2")),
    ("qwen2.5-7b", "h100", ("--tp", "2")),
    ("qwen3-30b-a3b", "h100", ("--tp", "4", "--dp", "2")),
    ("deepseek-v2", "h200", ("--tp", "8")),
    ("falcon-7b", "h100", ()),
    ("gemma-3-27b", "h100", ("--tp", "2")),
    # the new state kinds (issue 24): gated DeltaNet with an output gate, sparse MLA with its
    # indexer, a Mamba-2 / MoE hybrid, per-layer q/k norms
    ("qwen3-next-80b-a3b", "h200", ("--tp", "4")),
    ("deepseek-v3.2", "b200", ("--tp", "8")),
    ("nemotron-3-nano-30b-a3b", "h100", ("--tp", "2")),
    ("minimax-m2.5", "h200", ("--tp", "4")),
]


def commands(model: str, hw: str, par: tuple) -> dict[str, tuple]:
    """Each --explain command (argv) on one deployment."""
    m = ("-m", model)
    dep = (*m, "-H", hw, *par)
    return {
        "memory": ("memory", *m, "--ctx", "8192", "-b", "4"),
        "memory -H": ("memory", *dep, "--ctx", "8192", "-b", "4"),
        "capacity": (
            "capacity",
            *dep,
            "--ctx",
            "8192",
            "-b",
            "4",
            "--shared-prefix",
            "1000",
            "--users",
            "8",
        ),
        "latency": ("latency", *dep, "--prompt", "2000", "--gen", "100", "-b", "4"),
        "roofline": ("roofline", *dep, "--prompt", "500", "--gen", "1"),
        "flops": ("flops", *m, "--prompt", "2000", "--gen", "100", "-b", "4"),
        "flops -H": ("flops", *dep, "--prompt", "2000", "-b", "4"),
        "cost": ("cost", *dep, "--ctx", "8192", "--prompt", "2000", "--max-tpot-ms", "200"),
    }


# figures each command must have evaluated (when it prints them)
KEY_FIGURES = {
    "memory": {"weights_bytes", "kv_bytes_per_token_per_layer", "kv_bytes_per_token",
               "kv_bytes_per_sequence", "kv_cache_bytes", "total_bytes", "embedding_params",
               "attention_params_per_layer", "attention_params", "norm_params",
               "params_total"},
    "memory -H": {"weights_bytes", "kv_bytes_per_token", "kv_bytes_per_sequence",
                  "weights_bytes_per_gpu", "activation_peak_bytes", "kv_budget_bytes",
                  "max_concurrency", "headroom_bytes_per_gpu", "memory_capacity_bytes"},
    "capacity": {"weights_bytes_per_gpu", "activation_peak_bytes", "kv_budget_bytes",
                 "kv_bytes_per_token_per_gpu", "kv_cache_blocks", "kv_cache_tokens",
                 "max_concurrency", "max_concurrency_contiguous", "shared_prefix_tokens",
                 "kv_saved_bytes", "max_concurrency_shared"},
    "latency": {"ridge_point_flop_per_byte", "achievable_flops_per_s", "achievable_bytes_per_s",
                "output_tokens_per_s", "memory_per_gpu_bytes", "lm_head_flops_per_token",
                "decode.lm_head.time_s", "prefill.lm_head.time_s"},
    "flops": {"lm_head_flops_per_token"},
    "flops -H": {"lm_head_flops_per_token", "ridge_point_flop_per_byte"},
    "cost": {"output_tokens_per_s_per_gpu", "usd_per_million_output_tokens",
             "input_tokens_per_s_per_gpu", "usd_per_million_input_tokens"},
}  # fmt: skip
KEY_FIGURES["roofline"] = KEY_FIGURES["latency"]  # the same command under its other name
# ... and where the model has the part
MOE = {"moe_routed_params", "moe_shared_and_router_params", "params_active"}
SSM = {"ssm_params", "ssm_state_bytes"}


def key_figures(name: str, model: str) -> set[str]:
    from calc.data.registry import load_model

    cfg = load_model(model)
    keys = set(KEY_FIGURES[name])
    if name.startswith("memory"):
        keys |= MOE if cfg.moe is not None else set()
        keys |= SSM if cfg.n_layers_of("mamba", "mamba2") else set()
        keys |= {"dense_ffn_params"} if cfg.n_dense_ffn_layers else set()
    return keys


def agrees(got, value) -> bool:
    """rel 1e-9, or within 1 of a whole value (a floor or ceil of a rounded float)."""
    if math.isclose(got, value, rel_tol=1e-9, abs_tol=1e-12):
        return True
    return float(value).is_integer() and abs(got - value) <= 1


def check(figures) -> tuple[set[str], list[str]]:
    """(keys evaluated, mismatches) over ``figures``."""
    evaluated, wrong = set(), []
    for f in figures:
        if not f.template:
            continue  # prose built directly (no operands)
        try:
            got = evaluate(f.template, f.numbers)
        except Prose:
            continue
        except ZeroDivisionError:
            wrong.append(f"{f.key}: division by zero in {f.line()}")
            continue
        evaluated.add(f.key)
        if not agrees(got, f.value):
            wrong.append(f"{f.key}: the formula gives {got!r}, the figure says {f.value!r}: "
                         f"{f.line()}")  # fmt: skip
    return evaluated, wrong


@pytest.fixture
def explain(cli, monkeypatch):
    """``explain(*argv)`` -> the figures ``argv --explain`` prints (captured as the CLI hands
    them to the renderer)."""
    import calc.cli.common as common

    captured = []
    real = common.emit_report

    def spy(report, fmt, output, *, explain=False, **kw):
        captured.append((report, explain))
        return real(report, fmt, output, explain=explain, **kw)

    monkeypatch.setattr(common, "emit_report", spy)

    def run(*argv):
        captured.clear()
        r = cli(*argv, "--explain")
        assert r.code == 0, f"kvcalc {' '.join(argv)} --explain: {r.err}"
        ((report, flag),) = captured
        assert flag is True
        printed = [line.strip() for line in r.out.split("Derivation:\n", 1)[1].splitlines()]
        assert printed == [f.line() for f in report.figures]  # --explain printed these
        return report.figures

    return run


@pytest.mark.parametrize("model, hw, par", DEPLOYMENTS, ids=lambda x: x if isinstance(x, str)
                         else "-".join(x) or "tp1")  # fmt: skip
def test_every_explain_line_is_its_own_arithmetic(explain, model, hw, par):
    wrong: list[str] = []
    for name, argv in commands(model, hw, par).items():
        figures = explain(*argv)
        keys = {f.key for f in figures}
        evaluated, bad = check(figures)
        wrong += [f"{name}: {b}" for b in bad]
        # the key figures printed are evaluated, not skipped as prose
        required = key_figures(name, model)
        assert required <= keys, f"{name} on {model} no longer prints {sorted(required - keys)}"
        skipped = required - evaluated
        assert not skipped, f"{name} on {model}: key figures not evaluated: {sorted(skipped)}"
        if name in ("latency", "roofline"):
            for phase, total in (("decode", "tpot_s"), ("prefill", "ttft_s")):
                ops = [f for f in figures if f.key.startswith(f"{phase}.")]
                assert ops and {f.key for f in ops} <= evaluated, f"{phase} op times evaluated"
                (step,) = [f for f in figures if f.key == total]
                assert math.isclose(sum(f.value for f in ops), step.value, rel_tol=1e-9)
    assert not wrong, "explain lines whose arithmetic is not their value:\n" + "\n".join(wrong)


def test_the_evaluator_catches_a_formula_typed_apart_from_its_code():
    """The shipped bug of issue 10: `memory -m gemma-2-9b --ctx 8192 -H h100 --explain` printed
    max_ctx_that_fits = floor((capacity − weights) / (per_token × batch)) = 387,784 while that
    arithmetic is 195,940 (the figure came from code that caps the sliding layers)."""
    wrong = figure(
        "max_ctx_that_fits",
        387_784,
        "tokens",
        "floor(({capacity} − {weights}) / ({per_token} × {batch}))",
        capacity=85_899_345_920,
        weights=18_483_411_968,
        per_token=344_064,
        batch=1,
    )
    assert evaluate(wrong.template, wrong.numbers) == 195_940
    evaluated, bad = check([wrong])
    assert evaluated == {"max_ctx_that_fits"} and len(bad) == 1


@pytest.mark.parametrize(
    "template, numbers, value",
    [
        ("{a} × {b} − {c}", {"a": 3, "b": 4, "c": 5}, 7),
        ("floor({a} / {b}) × {g}", {"a": 10, "b": 3, "g": 2}, 6),
        ("max({f} FLOP / {r} FLOP/s, {b} B / {w} B/s)", {"f": 4, "r": 2, "b": 9, "w": 3}, 3),
        ("{u} / 3600 / {t} × 10^6", {"u": 3.6, "t": 1.0}, 1000.0),
        ("2·{d}·2·{E} (in_proj) + 2·{E}·{K} (conv1d)", {"d": 1, "E": 2, "K": 3}, 20),
        ("{n} × ({k} + {v}) × {b}", {"n": 2, "k": 3, "v": 4, "b": 2}, 28),
    ],
)
def test_evaluator(template, numbers, value):
    assert evaluate(template, numbers) == pytest.approx(value)


@pytest.mark.parametrize(
    "template",
    ["Σ decode op times (above)", "{a} attention layers × per-layer", "__import__('os')",
     "{a}.__class__", "{a} if {a} else {a}", "[{a}]"],
)  # fmt: skip
def test_evaluator_refuses_prose_and_code(template):
    with pytest.raises(Prose):
        evaluate(template, {"a": 1})
