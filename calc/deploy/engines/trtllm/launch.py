"""``trtllm-serve`` commands that start a deployment as kvcalc modelled it (PyTorch backend;
option names from each release's table: tests/data/engine_options/): ``--tp_size`` is the
whole group's GPUs and attention data parallel inside it is ``enable_attention_dp`` in the
YAML given to ``--extra_llm_api_options`` (``tp_size 8 --ep_size 8`` +
``enable_attention_dp: true`` = 8 GPUs, attention DP 8, experts over 8), which also turns
on chunked prefill where the row modelled it (trtllm-serve's default, off, is what kvcalc
models unless asked) and sets an fp8 KV cache. TensorRT-LLM does not quantise at load time:
quantised weights name a ModelOpt checkpoint. Across hosts one ``mpirun`` launches
``trtllm-llmapi-launch trtllm-serve`` on every rank; disaggregated context and generation
servers exchange KV through the cache transceiver and ``trtllm-serve disaggregated`` routes
between them."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import calc.deploy.engines.launch as launch
from calc.deploy.engines.base import Command
from calc.errors import InvalidInputError

if TYPE_CHECKING:
    from calc.deploy.deployment import Deployment
    from calc.deploy.engines.trtllm.rules import TrtllmRules

CONFIG_FILE = "extra-llm-api-config.yaml"


def checkpoint(dep: Deployment) -> tuple[str, str | None]:
    """(the checkpoint to serve, a note): the model's repository when kvcalc timed its released
    formats (``--weight-dtype`` naming one is the checkpoint as released), else the published
    checkpoint of the format kvcalc timed, or a local ModelOpt one (TensorRT-LLM quantises
    nothing at load time: fp8 from a 16-bit checkpoint is a checkpoint too)."""
    name, note = launch.served_checkpoint(dep, online=False)
    if note is not None and name.startswith("./"):
        note += " (TensorRT-LLM's examples/quantization/quantize.py makes one)"
    return name, note


def yaml_text(dep: Deployment, role: str | None) -> str:
    # chunked prefill as the plan's row modelled it (trtllm-serve's default is off)
    lines = ["enable_chunked_prefill: true"] if dep.engine_config.chunked_prefill else []
    if dep.sharding.dp_attn > 1:
        lines.append("enable_attention_dp: true")
    kv = dep.kv_dtype
    cache = []
    if kv.startswith("fp8") and kv != (dep.model.kv_dtype or dep.model.dtype):
        cache.append("  dtype: fp8")
    if dep.engine.prefix_cache is False:  # KvCacheConfig.enable_block_reuse (default true)
        cache.append("  enable_block_reuse: false")
    if dep.model.indexer is not None:  # sparse attention (DSA) runs 64-token blocks
        cache.append(f"  tokens_per_block: {sparse_blocks(dep)}")
    elif dep.engine.block_size is not None and _has_block_key(dep):  # the stated KV block
        cache.append(f"  tokens_per_block: {dep.engine_config.block_size}")
    if cache:
        lines += ["kv_cache_config:", *cache]
    from calc.deploy.engines.trtllm.moe_backend import yaml_lines

    lines += yaml_lines(dep)  # MoeConfig.backend where stated and not the default
    if dep.engine.batch_wait_iters is not None:  # contexts held beside generation requests
        lines += [f"batch_wait_timeout_iters: {dep.engine.batch_wait_iters}",
                  f"batch_wait_max_tokens_ratio: {dep.engine.batch_wait_ratio:g}"]  # fmt: skip
    if role is not None:
        lines += ["cache_transceiver_config:", "  backend: DEFAULT"]
        if role == "context":
            lines.append("disable_overlap_scheduler: true")
    return "\n".join(lines) + "\n"


def _has_block_key(dep: Deployment) -> bool:
    """The release's KvCacheConfig has tokens_per_block (1.0.0 refuses the key)."""
    from calc.deploy.engines.trtllm.rules import VERSIONS

    return VERSIONS.rules(dep.engine_config.version).kv_tokens_per_block_key


def cannot_start(dep: Deployment, rules: TrtllmRules) -> str | None:
    """Why TensorRT-LLM (at ``rules``' release) cannot start ``dep`` as kvcalc sized it, or
    None: under enable_attention_dp every rank runs attention alone (its attention modules and
    KV cache manager take tp_size 1), so no form gives attention TP inside DP ranks; and a
    sparse-attention model's 64-token KV blocks need KvCacheConfig.tokens_per_block, which a
    release without the key refuses in the YAML."""
    if dep.sharding.dp_attn > 1 and dep.tp > 1:
        return (
            f"TensorRT-LLM cannot start tp {dep.tp} with attention data parallel "
            f"{dep.sharding.dp_attn}: its attention DP runs one GPU a rank (attention TP 1); "
            f"choose --tp 1 --ep {dep.ep} (attention DP {dep.ep}) or --tp {max(dep.tp, dep.ep)}"
        )
    if dep.model.indexer is not None and not rules.kv_tokens_per_block_key:
        from calc.deploy.engines.trtllm.rules import VERSIONS

        since = next(r for r in VERSIONS.releases
                     if VERSIONS.rules(r).kv_tokens_per_block_key)  # fmt: skip
        return (
            f"TensorRT-LLM {dep.engine_config.version} cannot state the {sparse_blocks(dep)}-"
            f"token KV blocks of {dep.model.name}'s sparse attention: its KvCacheConfig has no "
            f"tokens_per_block (from {since}); use --engine-version {since} or later"
        )
    return None


def cannot_batch_wait(dep: Deployment, rules: TrtllmRules) -> str | None:
    """Why the release cannot state ``dep``'s batch waiting (its TorchLlmArgs without
    batch_wait_timeout_iters and batch_wait_max_tokens_ratio: ``rules.batch_wait_keys``), or
    None."""
    if dep.engine.batch_wait_iters is None or rules.batch_wait_keys:
        return None
    from calc.deploy.engines.trtllm.rules import VERSIONS

    since = next(r for r in VERSIONS.releases if VERSIONS.rules(r).batch_wait_keys)
    return (f"TensorRT-LLM {dep.engine_config.version} has no batch waiting "
            f"(batch_wait_timeout_iters, batch_wait_max_tokens_ratio: from {since}); use "
            f"--engine-version {since} or later, or drop --batch-wait-iters/--batch-wait-ratio")


def sparse_blocks(dep: Deployment) -> int:
    """The KV block a sparse-attention (DSA) model runs [tokens] (64-token multiples)."""
    from calc.deploy.state_pages import sparse_block_size

    return sparse_block_size(dep.engine_config.block_size)


def _argv(dep: Deployment, plan: launch.LaunchPlan, config_file: str | None,
          rules: TrtllmRules) -> list[str]:  # fmt: skip
    ec = dep.engine_config
    why = cannot_start(dep, rules) or cannot_batch_wait(dep, rules)
    if why is not None:
        raise InvalidInputError(why)
    name, _ = checkpoint(dep)
    group = max(dep.tp, dep.ep)
    argv = ["trtllm-serve", name, "--backend", "pytorch", "--tp_size", str(group),
            "--pp_size", str(dep.pp)]  # fmt: skip
    if dep.ep > 1:
        argv += ["--ep_size", str(dep.ep)]
    argv += [
        "--max_seq_len", str(launch.max_model_len(dep, plan)),
        "--max_num_tokens", str(ec.max_batched_tokens),
        "--max_batch_size", str(ec.max_num_seqs),
        "--kv_cache_free_gpu_memory_fraction", f"{launch.memory_fraction(dep):g}",
    ]  # fmt: skip
    if config_file is not None:
        argv += ["--extra_llm_api_options", config_file]
    return argv


def _replica(dep: Deployment, plan: launch.LaunchPlan, role: str, count: int,
             disagg: str | None, rules: TrtllmRules) -> Command:  # fmt: skip
    config_file = CONFIG_FILE if disagg is None else f"{disagg}-{CONFIG_FILE}"
    text = yaml_text(dep, disagg)
    files = ((config_file, text),) if text.strip() else ()
    argv = _argv(dep, plan, config_file if files else None, rules)
    _, said = checkpoint(dep)
    notes = [said] if said else []
    if launch.pins_16bit_kv(dep, online=False):
        # NVIDIA's pre-quantised checkpoints ask for an fp8 KV cache (kv_cache_quant_algo),
        # which kv_cache_config dtype auto follows
        notes.append(f"a {dep.kv_dtype} KV cache sized: the checkpoint's kv_cache_quant_algo "
                     "FP8, if it says so, makes it fp8 (size that with --kv-dtype fp8, or "
                     "serve a checkpoint exported without it)")  # fmt: skip
    note = budget_note(dep, plan, rules, disagg)
    if note is not None:
        notes.append(note)
    n = launch.nodes(dep)
    if n > 1:
        per = launch.gpus_per_host(dep)
        hosts = ",".join(f"{launch.HEAD if k == 0 else f'node-{k}'}:{per}" for k in range(n))
        argv = ["mpirun", "-n", str(launch.replica_gpus(dep)), "-H", hosts, "trtllm-llmapi-launch",
                *argv]  # fmt: skip
        notes.append(f"one launch for {n} hosts (node-1 ...: the other hosts' addresses)")
    return Command("trtllm", role, tuple(argv), files=files, notes=tuple(notes), count=count,
                   gpus=launch.replica_gpus(dep))  # fmt: skip


def budget_note(dep: Deployment, plan: launch.LaunchPlan, rules: TrtllmRules,
                disagg: str | None = None) -> str | None:  # fmt: skip
    """What ``--max_num_tokens`` means beside ``--max_seq_len`` with chunked prefill off: the
    prompts it refuses (a budget below the max model length; a generation server's requests
    are not checked), or why it is above the release's default (``prompts``); None with
    chunked prefill on or nothing to say."""
    from calc.deploy.engines.trtllm.prompts import refusal

    ec = dep.engine_config
    if ec.chunked_prefill:
        return None
    budget, seq_len = ec.max_batched_tokens, launch.max_model_len(dep, plan)
    if budget < seq_len and disagg != "generation":
        return (f"{refusal(budget, seq_len)}: kvcalc's figures assume no such prompt (size "
                f"--max-batched-tokens {seq_len} or turn on --chunked-prefill)")  # fmt: skip
    if budget > rules.max_num_tokens and dep.engine.max_batched_tokens is None:
        return (f"--max_num_tokens {budget:,}, not the default {rules.max_num_tokens:,}: with "
                "chunked prefill off a prompt over it is refused, so it holds the longest "
                "request; the KV pool and step times are sized with it")  # fmt: skip
    return None


def commands(dep: Deployment, plan: launch.LaunchPlan, rules: TrtllmRules) -> list[Command]:
    """The commands that start ``dep`` as ``plan`` says."""
    copies = dep.replicas
    if not plan.disaggregated:
        c = _replica(dep, plan, "server", plan.replicas * copies, None, rules)
        if plan.replicas * copies > 1:
            c = replace(c, notes=(*c.notes, launch.replicas_note(dep, plan.replicas * copies)))
        note = launch.shared_host_note(dep, plan.replicas * copies)
        return [replace(c, notes=(*c.notes, note)) if note else c]
    ctx = _replica(dep, plan, "prefill (context)", plan.prefill * copies, "context",
                   rules)
    note = launch.shared_host_note(dep, (plan.prefill + plan.decode) * copies)
    if note:
        ctx = replace(ctx, notes=(*ctx.notes, note))
    gen = _replica(dep, plan, "decode (generation)", plan.decode * copies, "generation",
                   rules)
    router = Command(
        "trtllm",
        "router",
        ("trtllm-serve", "disaggregated", "-c", "disagg-config.yaml"),
        files=(("disagg-config.yaml",
                "hostname: localhost\nport: 8000\n"
                f"context_servers:\n  num_instances: {plan.prefill * copies}\n  urls: []\n"
                f"generation_servers:\n  num_instances: {plan.decode * copies}\n  urls: []\n"),),
        notes=("list each context and generation server's host:port under urls",),
    )  # fmt: skip
    return [ctx, gen, router]
