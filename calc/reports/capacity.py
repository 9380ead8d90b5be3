"""KV-cache capacity of a deployment [bytes, tokens, sequences]: a view of its per-GPU ledger
(``calc.deploy.ledger``): the KV budget on its busiest GPU, the pool it holds [tokens], concurrent
sequences at a context, the longest context at a batch, and paged vs contiguous waste.

KV budget = what the engine leaves of the GPU after weights, activation peak and non-torch
memory, by the engine's own start-up accounting (``calc.deploy.engines``). Paged allocation
rounds each sequence up to whole blocks of ``block_size`` tokens; contiguous preallocation
reserves ``max_model_len`` tokens per sequence. Models with Mamba layers also hold a fixed SSM
state per sequence, counted in every concurrency figure.
"""

from __future__ import annotations

from dataclasses import dataclass

from calc.deploy.deployment import Deployment, Workload
from calc.deploy.ledger import PerGpu, paged_tokens, pool_units, waste_bytes
from calc.output.derivation import Figure, figure, whole
from calc.output.result import Report


@dataclass(frozen=True)
class CapacityReport(Report):
    """``kvcalc capacity``'s result: KV budget, pool, concurrency, max context, paging and
    prefix sharing."""

    command = "capacity"


def activation_figure(dep: Deployment, g: PerGpu) -> Figure:
    """The activation peak's derivation: the engine model's own (``calc.deploy.engines``)."""
    from dataclasses import replace

    if not g.activation_estimated:
        return Figure(
            "activation_peak_bytes", g.activation_peak_bytes, "bytes", "given (--activation)"
        )
    for f in g.figures:
        if f.key == "activation_bytes":
            return replace(f, key="activation_peak_bytes")
    # engines that do not subtract an activation peak (SGLang: it fits the 1 − fraction share)
    return Figure("activation_peak_bytes", g.activation_peak_bytes, "bytes", "not subtracted")


def budget_figure(dep: Deployment, g: PerGpu) -> Figure:
    """The KV budget as the engine computes it, with the engine's own name for the fraction
    (the engine's derivation, ``calc.deploy.engines``), floored to whole bytes."""
    from dataclasses import replace

    for f in g.figures:
        if f.key == "kv_budget_bytes":
            return replace(
                f,
                value=g.kv_budget_bytes,
                formula=f"floor({f.formula})",
                substituted=f"floor({f.substituted})",
            )
    return Figure("kv_budget_bytes", g.kv_budget_bytes, "bytes", "the engine's budget")


def reserve_figure(g: PerGpu) -> Figure:
    """What the engine's memory fraction holds back: usable memory less the ledger's other
    terms and the budget (``PerGpu.budget_terms``)."""
    t = g.budget_terms()
    return figure(
        "memory_fraction_reserve_bytes", t["memory_fraction_reserve_bytes"], "bytes",
        "{usable} − {weights} − {rope_table} − {activation} − {non_torch} − {cuda_graphs} − "
        "{state_pool} − {budget} (the fraction's share, with the budget's floor)",
        usable=t["usable_memory_bytes"], weights=t["weights_bytes_per_gpu"],
        rope_table=t["rope_table_bytes"], activation=t["activation_peak_bytes"],
        non_torch=t["overhead_bytes"], cuda_graphs=t["cuda_graph_bytes"],
        state_pool=t["state_pool_bytes"], budget=t["kv_budget_bytes"],
    )  # fmt: skip


def pool_figure(g: PerGpu) -> Figure:
    """The pool in tokens as the engine pages it (its derivation, ``calc.deploy.engines``)."""
    from dataclasses import replace

    for f in g.figures:
        if f.key == "tokens":
            return replace(f, key="kv_cache_tokens")
    return Figure("kv_cache_tokens", g.kv_cache_tokens, "tokens", "the engine's pool")


def weights_figure(dep: Deployment, g: PerGpu) -> Figure:
    checkpoint = g.params * dep.weight_bytes_per_element
    loading = g.weights_bytes - checkpoint  # the engine's own layout (calc.deploy.engines)
    as_loaded = {} if abs(loading) < 1 else {"as_loaded": loading}
    return figure(
        "weights_bytes_per_gpu",
        whole(g.weights_bytes),
        "bytes",
        "{params} × {bytes}" + " + {as_loaded}" * bool(as_loaded),
        params=g.params,
        bytes=dep.weight_bytes_per_element,
        **as_loaded,
    )


def concurrency_figure(work: Workload, g: PerGpu) -> Figure:
    if g.paging is not None:  # vLLM counts requests in its blocks
        return figure(
            "max_concurrency",
            int(g.max_concurrency(work.ctx)),
            "sequences",
            "floor({blocks} / {blocks_per_request}) × {groups}",
            blocks=g.paging.num_blocks,
            blocks_per_request=g.paging.blocks_per_request(work.ctx),
            groups=g.groups,
        )
    if g.state_slots is not None:  # the state in a pool of its own (SGLang's hybrid models)
        return figure(
            "max_concurrency",
            int(g.max_concurrency(work.ctx)),
            "sequences",
            "min(floor({budget} / {kv_bytes}), {state_slots}) × {groups}",
            budget=g.kv_budget_bytes,
            kv_bytes=g.sequence_bytes(work.ctx) - g.ssm_state_bytes_per_sequence,
            state_slots=g.state_slots,
            groups=g.groups,
        )
    return figure(
        "max_concurrency",
        int(g.max_concurrency(work.ctx)),
        "sequences",
        "floor({budget} / {sequence_bytes}) × {groups}",
        budget=g.kv_budget_bytes,
        sequence_bytes=g.sequence_bytes(work.ctx),
        groups=g.groups,
    )


def sequence_figure(g: PerGpu, ctx: int, kv_bytes, state) -> Figure:
    """KV of one sequence on the busiest GPU as its pool reserves it."""
    if g.paging is not None:
        return figure(
            "kv_bytes_per_sequence_per_gpu",
            kv_bytes,
            "bytes",
            "{blocks_per_request} × {block_bytes} − {ssm_state}",
            blocks_per_request=g.paging.blocks_per_request(ctx),
            block_bytes=g.paging.block_bytes,
            ssm_state=state,
        )
    if not any(s.layout.windowed for s in g.stages):
        return figure(
            "kv_bytes_per_sequence_per_gpu",
            kv_bytes,
            "bytes",
            "{block_bytes} × ceil({ctx} / {block_size})",
            block_bytes=g.kv_block_bytes,
            ctx=ctx,
            block_size=g.block_size,
        )
    return Figure(
        "kv_bytes_per_sequence_per_gpu",
        kv_bytes,
        "bytes",
        "KV of ceil(ctx / block) blocks over the stage's layers (windowed layers capped)",
    )


def does_not_fit(dep: Deployment, work: Workload, max_ctx: int) -> str | None:
    """The one "does not fit" message of every command (None when it fits)."""
    g, hw = dep.per_gpu, dep.hardware
    assert hw is not None
    if g.kv_budget_bytes <= 0:
        return (
            f"does not fit: {dep.model.name} needs {g.weights_bytes / 1e9:,.2f} GB of weights + "
            f"{g.runtime_reserve_bytes / 1e9:,.2f} GB runtime reserve per GPU; {hw.name} has "
            f"{g.usable_memory_bytes / 1e9:,.2f} GB usable (of {g.memory_bytes / 1e9:,.2f} GB), "
            f"and {dep.engine.name} at memory fraction {g.mem_util:g} leaves no KV budget; raise "
            "--tp/--pp (or --gpus), lower --weight-dtype, or raise --mem-util"
        )
    if g.fits(work.ctx, work.batch):
        return None
    n = int(g.sequences(work.batch))
    return (
        f"does not fit: --batch {work.batch:,} at --ctx {work.ctx:,} needs "
        f"{n * g.sequence_bytes(work.ctx) / 1e9:,.2f} GB of KV/state per GPU ({_seqs(n)}), "
        f"the budget is {g.kv_budget_bytes / 1e9:,.2f} GB; at --ctx {work.ctx:,} at most "
        f"{_seqs(m := int(g.max_concurrency(work.ctx)))} fit{'s' * (m == 1)}, "
        f"{_longest(work.batch, max_ctx)} "
        "(or raise --tp (--gpus), lower --kv-dtype)"
    )


def _seqs(n: int) -> str:
    """``n`` sequences in words: "1 sequence", "16 sequences"."""
    return f"{n:,} sequence{'s' * (n != 1)}"


def _longest(batch: int, max_ctx: int) -> str:
    """The other way out of a miss: the longest context at this batch, or that none fits."""
    if max_ctx > 0:
        return f"at --batch {batch:,} the largest --ctx is {max_ctx:,}"
    return f"at --batch {batch:,} no --ctx fits"


def capacity_report(dep: Deployment, work: Workload, *, shared_prefix: int | None = None,
                    users: int | None = None) -> CapacityReport:  # fmt: skip
    """KV budget, pool, concurrency, max context and paging waste of one deployment."""
    cfg, g = dep.model, dep.per_gpu
    warnings: list[str] = list(g.notes)
    max_model_len = dep.engine.max_model_len or cfg.context_limit
    if work.ctx > max_model_len:
        warnings.append(
            f"--ctx {work.ctx:,} exceeds the max model length {max_model_len:,}; contiguous "
            f"preallocation is sized for --max-model-len {work.ctx:,} instead"
        )
        max_model_len = work.ctx
    if (note := max_model_len_warning(dep, work.ctx)) is not None:  # as memory says it
        warnings.append(note)
    warnings += _shape_warnings(dep, work.ctx)
    whole = whole_prompt_warning(dep, work.prompt)
    if whole:
        warnings.append(whole)
    fields = _capacity_fields(dep, work, max_model_len)
    figs = _capacity_figures(dep, work, fields)
    if shared_prefix is not None or users is not None:
        from calc.reports.prefix_sharing import prefix_sharing_fields

        extra, extra_figs = prefix_sharing_fields(
            g, ctx=work.ctx, prefix=shared_prefix, users=users
        )
        fields.update(extra)
        figs += extra_figs

    message = does_not_fit(dep, work, fields["max_ctx_at_batch"])
    if message:
        warnings.append(message)
    return CapacityReport(fields, figs, warnings)


def engine_release_fields(dep: Deployment) -> dict:
    """The engine release whose rules size ``dep`` and the one asked for where kvcalc models
    it as another (a table shows "0.5.4 (modelled as 0.10.0)"; calc.output.render.kv_cells)."""
    ec = dep.engine_config
    return {"engine_version": ec.version, "engine_version_asked": ec.version_unmodelled}


def head_fields(dep: Deployment) -> dict:
    """The keys that name a served deployment, first in capacity's and cost's output: model,
    hardware, engine, the parallel layout, GPUs and dtypes."""
    return {
        "model": dep.model.name,
        "hardware": dep.hardware.name if dep.hardware is not None else None,
        "engine": dep.engine.name,
        "tp": dep.tp,
        "pp": dep.pp,
        "ep": dep.ep,
        "dp": dep.dp,
        "gpus": dep.gpus,
        "weight_dtype": dep.weight_dtype,
        "kv_dtype": dep.kv_dtype,
    }


def max_model_len_warning(dep: Deployment, tokens: int | None) -> str | None:
    """The warning for a request of ``tokens`` (prompt + output) longer than the stated
    --max-model-len: the engine refuses it (vLLM's "maximum context length" error, SGLang and
    TensorRT-LLM likewise); None when none is stated or it fits."""
    limit = dep.engine.max_model_len
    if tokens is None or limit is None or tokens <= limit:
        return None
    ec = dep.engine_config
    return (
        f"a request of {tokens:,} tokens exceeds --max-model-len {limit:,}: {ec.engine} "
        f"{ec.version} refuses it (the figures assume it were served); raise --max-model-len "
        "or shorten the request"
    )


def whole_prompt_warning(dep: Deployment, prompt: int | None) -> str | None:
    """The warning for a prompt the engine cannot schedule: with chunked prefill off a prompt
    runs whole in one step, so one longer than a step's token budget (``max_batched_tokens``,
    per attention-DP rank) is refused (vLLM refuses to start, TensorRT-LLM and SGLang reject
    the request); None when it fits or chunked prefill is on. ``simulate`` refuses such a
    load outright; the analytic reports still show their figures, with this warning."""
    ec = dep.engine_config
    if prompt is None or ec.chunked_prefill:
        return None
    budget = dep.engine_model.rank_batched_tokens(ec, dep.sharding.dp_attn)
    if prompt <= budget:
        return None
    return (
        f"a {prompt:,}-token prompt exceeds {ec.engine} {ec.version}'s {budget:,}-token step "
        "budget with chunked prefill off: the engine refuses it (the figures assume it were "
        "served); raise --max-batched-tokens or turn on --chunked-prefill"
    )


def _shape_warnings(dep: Deployment, ctx: int) -> list[str]:
    """A context past the model's limit; a TP size the engines refuse for these KV heads."""
    cfg, lay = dep.model, dep.layout
    out = []
    if ctx > cfg.context_limit:
        out.append(f"--ctx {ctx:,} exceeds {cfg.name}'s max context of {cfg.context_limit:,}")
    if lay.kind != "mla" and lay.n_kv_heads % dep.tp and dep.tp % lay.n_kv_heads:
        out.append(
            f"--tp {dep.tp} does not divide {cfg.name}'s {lay.n_kv_heads} KV heads (engines "
            "refuse this split); the most loaded GPU is assumed to hold "
            f"{-(-lay.n_kv_heads // dep.tp)} heads"
        )
    return out


def _capacity_fields(dep: Deployment, work: Workload, max_model_len: int) -> dict:
    """The report's keys in output order (docs/names.md), prefix sharing apart."""
    cfg, hw, g = dep.model, dep.hardware, dep.per_gpu
    assert hw is not None
    ctx, batch, b = work.ctx, work.batch, g.block_size
    per_token = whole(g.kv_bytes_per_token)
    seq_bytes = whole(g.sequence_bytes(ctx))
    state = whole(g.ssm_state_bytes_per_sequence)
    cont_bytes = whole(g.kv_bytes_per_sequence(max_model_len) + state)
    concurrency_contiguous = int(pool_units(g.kv_budget_bytes, cont_bytes)) * g.groups
    paged_waste = whole(waste_bytes(paged_tokens(ctx, b), ctx, per_token))
    contiguous_waste = whole(waste_bytes(max_model_len, ctx, per_token))
    shared = g.at(ctx, batch).fields()
    return {
        **head_fields(dep),
        "ctx": ctx,
        "batch": batch,
        "block_size": b,
        **engine_release_fields(dep),
        "mem_util": g.mem_util,
        "memory_bytes": g.memory_bytes,
        # the ledger's terms, usable memory down to the budget (they sum to it exactly)
        **g.budget_terms(),
        "kv_bytes_per_token_per_gpu": per_token,
        "kv_block_bytes": whole(g.kv_block_bytes),
        "kv_cache_blocks": g.kv_cache_blocks,
        "kv_cache_tokens": g.kv_cache_tokens,
        "kv_bytes_per_sequence_per_gpu": seq_bytes - state,
        "ssm_state_bytes_per_sequence_per_gpu": state,
        "kv_cache_bytes_per_gpu": shared["kv_cache_bytes_per_gpu"],
        "ssm_state_bytes_per_gpu": shared["ssm_state_bytes_per_gpu"],
        "max_concurrency": shared["max_concurrency"],
        "fits": shared["fits"],
        # capped at the model's context limit (RoPE scaling included)
        "max_ctx_at_batch": min(g.max_ctx(batch, cfg.context_limit), cfg.context_limit),
        "max_model_len": max_model_len,
        "max_concurrency_contiguous": concurrency_contiguous,
        "paged_waste_bytes_per_sequence": paged_waste,
        "contiguous_waste_bytes_per_sequence": contiguous_waste,
        "paged_waste_bytes": paged_waste * shared["max_concurrency"],
        "contiguous_waste_bytes": contiguous_waste * concurrency_contiguous,
    }


def _capacity_figures(dep: Deployment, work: Workload, f: dict) -> list[Figure]:
    """The derivations of the budget, the pool, a sequence and the concurrencies."""
    g = dep.per_gpu
    state = f["ssm_state_bytes_per_sequence_per_gpu"]
    cont_bytes = whole(g.kv_bytes_per_sequence(f["max_model_len"]) + state)
    busiest = max(g.stages, key=lambda s: s.layout.kv_bytes_per_token(g.kv_bytes_per_element))
    return [
        weights_figure(dep, g),
        activation_figure(dep, g),
        reserve_figure(g),
        budget_figure(dep, g),
        figure(
            "kv_bytes_per_token_per_gpu",
            f["kv_bytes_per_token_per_gpu"],
            "bytes",
            "{per_layer} × {layers_on_gpu} (caching layers of the busiest stage)",
            per_layer=whole(busiest.layout.kv_bytes_per_token_per_layer(g.kv_bytes_per_element)),
            layers_on_gpu=busiest.layout.n_layers,
        ),
        figure(
            "kv_cache_blocks",
            g.kv_cache_blocks,
            "blocks",
            "floor({tokens} / {block_size})",
            tokens=g.kv_cache_tokens,
            block_size=g.block_size,
        ),
        pool_figure(g),
        sequence_figure(g, work.ctx, f["kv_bytes_per_sequence_per_gpu"], state),
        concurrency_figure(work, g),
        figure(
            "max_concurrency_contiguous",
            f["max_concurrency_contiguous"],
            "sequences",
            "floor({budget} / {sequence_bytes}) × {groups}",
            budget=g.kv_budget_bytes,
            sequence_bytes=cont_bytes,
            groups=g.groups,
        ),
        Figure(
            "max_ctx_at_batch",
            f["max_ctx_at_batch"],
            "tokens",
            f"largest whole-block ctx with ceil({work.batch:,} / {g.groups}) × KV+state(ctx) ≤ "
            f"{g.kv_budget_bytes:,}",
        ),
    ]
