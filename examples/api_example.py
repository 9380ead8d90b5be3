"""The README's main jobs through kvcalc's Python API, in one import (docs/api.md).

Run: python examples/api_example.py   (tests/test_api.py runs it)

Every function takes the CLI command's options by their Python names and returns a frozen
report: outputs as attributes in base units (bytes, s, USD), ``to_dict()`` (the JSON of
``-f json``), ``to_pandas()`` (the rows of ``-f csv``; needs pandas), ``warnings`` and
``derivation()`` (what ``--explain`` prints).
"""

from pathlib import Path

import calc as kvcalc

GB = 1e9

# 1. Memory: Llama 3 70B at 8k context, 4 sequences, on 4 H100s
mem = kvcalc.memory("llama3-70b", ctx=8192, batch=4, hardware="h100", gpus=4)
print(f"memory: weights {mem.weights_bytes / GB:,.1f} GB, KV {mem.kv_cache_bytes / GB:,.2f} GB, "
      f"fits on {mem.deployment.gpus} GPUs: {mem.fits}")  # fmt: skip
print(f"  {mem.derivation()[0]}")

# 2. Capacity: how many 8k-token sequences vLLM holds on them
cap = kvcalc.capacity("llama3-70b", "h100", ctx=8192, tp=4, engine="vllm")
print(f"capacity: {cap.max_concurrency} sequences, KV pool {cap.kv_cache_tokens:,} tokens/GPU")

# 3. Latency: TTFT and TPOT of 8 requests of 2,048 + 256 tokens
lat = kvcalc.latency("llama3-70b", "h100", prompt=2048, gen=256, batch=8, tp=4)
print(f"latency: TTFT {lat.ttft_s * 1e3:,.0f} ms, TPOT {lat.tpot_s * 1e3:,.1f} ms")

# 4. Cost: USD per million output tokens at the largest batch that fits
cost = kvcalc.cost("llama3-70b", "h100", ctx=4096, tp=4, max_tpot_ms=50)
print(f"cost: ${cost.usd_per_million_output_tokens:,.3f} per million output tokens at batch 1")

# 5. Sweep: a small grid, one row per combination (to_pandas() for a DataFrame)
grid = kvcalc.sweep("llama3-8b", ["h100", "h200"], ctx=[2048, 8192], tp=[1, 2])
best = max(grid.rows, key=lambda r: r["max_concurrency"])
print(f"sweep: {grid.n_rows} rows; most sequences: {best['max_concurrency']:,} on "
      f"{best['hardware']} tp {best['tp']} at ctx {best['ctx']:,}")  # fmt: skip

# 6. Plan: the cheapest deployment serving 2 requests/s within p99 targets
plan = kvcalc.plan("llama3-8b", rate=2, prompt=1000, gen=100, ttft_p99="5s",
                   tpot_p99="200ms", hardware="h100", method="analytic")  # fmt: skip
win = plan.rows[0]
print(f"plan: {win['gpus']} × {win['hardware']} tp {win['tp']} at "
      f"${win['usd_per_hour_per_deployment']:,.2f}/h")  # fmt: skip

# 7. Simulate: 40 requests at 2 requests/s, percentiles
sim = kvcalc.simulate("llama3-8b", "h100", rate=2, prompt="uniform:100:2000", gen=64,
                      requests=40, ttft_slo="2s")  # fmt: skip
print(f"simulate: p99 TTFT {sim.ttft_p99_s * 1e3:,.0f} ms, "
      f"goodput {sim.goodput_requests_per_s:.2f} requests/s")  # fmt: skip

# 8. Train: memory per GPU and the cost of 1e9 tokens
tr = kvcalc.train("llama3-8b", "h100", ctx=4096, tokens=1e9, zero=1, gpus=8)
print(f"train: {tr.total_bytes_per_gpu / GB:,.1f} GB per GPU, ${tr.run_usd:,.0f} for 1e9 tokens")

# 9. Check: the shipped example spec, pass/fail per requirement
spec = Path(__file__).resolve().parent / "check-spec.yaml"
chk = kvcalc.check(spec)
print(f"check: {len(chk.rows) - chk.failed} passed, {chk.failed} failed")

# Typed errors, one line each, as the CLI prints them
try:
    kvcalc.memory("llama3-70b", ctx=8192, tp=3, hardware="h100")
except kvcalc.KvcalcError as exc:
    print(f"error: {exc}")
