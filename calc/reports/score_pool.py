"""The deployment a benchmark file records the server ran with, beside kvcalc's for the same
deployment [tokens, sequences]: the KV pool of one GPU (SGLang's ``max_total_num_tokens``), the
running-request cap and the tokens per iteration (the chunk), each where the file records it
(``BenchRun.server_limits``), with the signed error (kvcalc − recorded) / recorded; and, with
``--pool-from-file``, those recorded figures in place of kvcalc's for the replay, so that a pool
error and a speed error can be told apart.

kvcalc's pool is the engine wing's for the release scored (``dep.per_gpu.prediction``: the
figure the engine prints) on the deployment as scored. kvcalc's cap and chunk are its own
resolution of the deployment with the file's figure for that limit left out (a limit the command
gives is kept): where the replay takes the file's setting, as it does by default, the check
still says what kvcalc would have chosen.
"""

from __future__ import annotations

# recorded figure -> (unit, what kvcalc's is)
CHECKED = {
    "kv_cache_tokens": "tokens",
    "max_num_seqs": "sequences",
    "max_batched_tokens": "tokens",
}
# the limits --pool-from-file takes as options (the pool goes in as blocks: pool_blocks)
LIMITS = ("max_num_seqs", "max_batched_tokens")


def replayed_options(run, options: dict, given: dict) -> tuple[dict, list[str]]:
    """``options`` with the server's recorded cap and chunk in place of the file's settings or
    kvcalc's defaults (the command's own options kept), and a note of each taken."""
    out, notes = dict(options), []
    for key in LIMITS:
        v = run.server_limits.get(key)
        if v is None or given.get(key) is not None or out.get(key) == v:
            continue
        out[key] = v
        notes.append(f"{key} {v} as the server ran (--pool-from-file)")
    return out, notes


def own_options(run, options: dict, given: dict) -> dict:
    """``options`` without the file's figure for each limit it records (kvcalc's own choice
    of it then), unless the command gave it."""
    return {k: v for k, v in options.items()
            if not (k in LIMITS and k in run.server_limits and given.get(k) is None)}  # fmt: skip


def recorded_pool_blocks(run, dep) -> int | None:
    """The server's recorded KV pool of one GPU in ``dep``'s blocks (None: none recorded)."""
    tokens = run.server_limits.get("kv_cache_tokens")
    return None if tokens is None else int(tokens) // int(dep.per_gpu.block_size)


def check_rows(run, dep, own, mean_tokens: float) -> list[dict]:
    """One metric row per figure the file records (``predicted``: kvcalc's, ``measured``: the
    file's), as ``calc.reports.score.metric_rows`` lays them out (``own``: the deployment of
    kvcalc's own limits, None to leave the cap and chunk out)."""
    from calc.serve.simulate import deployment_limits

    ours = {"kv_cache_tokens": dep.per_gpu.prediction.printed_tokens}
    if own is not None:  # (None: kvcalc's own limits could not be resolved)
        lim = deployment_limits(own, mean_tokens)
        ours.update(max_num_seqs=lim.max_num_seqs, max_batched_tokens=lim.max_batched_tokens)
    rows = []
    for key, unit in CHECKED.items():
        rec = run.server_limits.get(key)
        if rec is None or key not in ours:
            continue
        pred = int(ours[key])
        rows.append({"source": run.source, "metric": key, "stat": "", "unit": unit,
                     "predicted": pred, "measured": rec, "error": (pred - rec) / rec})  # fmt: skip
    return rows
