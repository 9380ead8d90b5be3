"""Invariants of the training estimates (hypothesis): model states never grow with the ZeRO
stage or dp; activations are linear in the micro-batch and never grow with recomputation;
the reported largest micro-batch fits and one more does not; the bubble is in [0, 1) and
falls with more micro-batches."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from calc.data.registry import load_hardware, load_model
from calc.training import time as tt
from calc.training.report import TrainSetup, train_report

H100 = load_hardware("h100")
MODELS = ("llama3-8b", "mistral-7b", "gemma-2-9b", "qwen3-30b-a3b", "jamba-v0.1", "deepseek-v2")
CFG = {m: load_model(m) for m in MODELS}


def _f(model, **kw):
    return train_report(CFG[model], H100, TrainSetup(**kw)).fields


@settings(max_examples=25, deadline=None)
@given(
    model=st.sampled_from(MODELS),
    dp=st.sampled_from([1, 2, 8, 64]),
    recipe=st.sampled_from(["bf16", "bf16-fp32-grads", "fp32", "fp8"]),
)
def test_model_states_never_grow_with_the_zero_stage(model, dp, recipe):
    states = []
    for z in (0, 1, 2, 3):
        f = _f(model, ctx=1024, dp=dp, zero=z, recipe=recipe)
        states.append(
            f["weights_bytes_per_gpu"] + f["grads_bytes_per_gpu"] + f["optimizer_bytes_per_gpu"]
        )
    assert states == sorted(states, reverse=True) or dp == 1
    assert all(math.isfinite(x) and x > 0 for x in states)


@settings(max_examples=25, deadline=None)
@given(
    model=st.sampled_from(MODELS),
    ctx=st.sampled_from([256, 1024, 4096]),
    mb=st.integers(1, 4),
    flash=st.booleans(),
)
def test_activations_linear_in_micro_batch_and_recompute_never_adds(model, ctx, mb, flash):
    one = _f(model, ctx=ctx, micro_batch=1, flash=flash)["activation_bytes_per_gpu"]
    many = _f(model, ctx=ctx, micro_batch=mb, flash=flash)["activation_bytes_per_gpu"]
    assert many == mb * one
    sel = _f(model, ctx=ctx, flash=flash, recompute="selective")["activation_bytes_per_gpu"]
    full = _f(model, ctx=ctx, flash=flash, recompute="full")["activation_bytes_per_gpu"]
    assert full <= sel <= one


@settings(max_examples=20, deadline=None)
@given(
    model=st.sampled_from(MODELS),
    ctx=st.sampled_from([1024, 8192]),
    finetune=st.sampled_from(["full", "lora", "qlora"]),
    pp=st.sampled_from([1, 2]),
)
def test_largest_micro_batch_fits_and_one_more_does_not(model, ctx, finetune, pp):
    kw = dict(ctx=ctx, finetune=finetune, pp=pp, dp=8, zero=3, recompute="full")
    best = _f(model, **kw)["max_micro_batch_that_fits"]
    if best:
        assert _f(model, **kw, micro_batch=best)["fits"]
    assert not _f(model, **kw, micro_batch=best + 1)["fits"]


@given(pp=st.integers(1, 64), m=st.integers(1, 512), v=st.integers(1, 8))
def test_bubble_fraction_bounds(pp, m, v):
    b = tt.bubble_fraction(pp, m, v)
    assert 0 <= b < 1
    assert tt.bubble_fraction(pp, m + 1, v) <= b
    assert tt.bubble_fraction(pp, m, v + 1) <= b
