"""``vllm serve`` commands that start a deployment as kvcalc modelled it, in the forms vLLM's
releases accept (option names from each release's parser: tests/data/engine_options/):
tensor and pipeline parallel sizes; attention data parallel with expert parallelism
(``--data-parallel-size`` × ``--tensor-parallel-size`` = the expert group,
``--enable-expert-parallel``); across hosts, ``--nnodes``/``--node-rank`` (0.11.1+) or a Ray
cluster (before), and for data-parallel ranks ``--data-parallel-size-local`` with
``--headless`` followers; disaggregated prefill and decode servers with
``--kv-transfer-config`` (NixlConnector, kv_both); online fp8 as ``--quantization fp8``."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import calc.deploy.engines.launch as launch
from calc.deploy.engines.base import Command
from calc.deploy.engines.versions import parse_version

if TYPE_CHECKING:
    from calc.deploy.deployment import Deployment
    from calc.deploy.engines.vllm.rules import VllmRules

DP_RPC_PORT = "13345"
MASTER_PORT = "29501"
KV_TRANSFER = {"kv_connector": "NixlConnector", "kv_role": "kv_both"}


# vLLM's names of a 16-bit KV cache and the first release whose parser takes each
KV_16BIT = {"bf16": ("bfloat16", (0, 11, 0)), "fp16": ("float16", (0, 18, 0))}


def kv_cache_dtype(dep: Deployment) -> str:
    """vLLM's name of the KV dtype: auto (the model's), fp8 or a per-token-head cache (the
    release's own value: calc.deploy.engines.accepts); the 16-bit dtype by name where a
    pre-quantised checkpoint's 'auto' could mean its fp8 KV cache (and the release has it)."""
    from calc.deploy.engines.accepts import kv_value

    if launch.pins_16bit_kv(dep):
        name, since = KV_16BIT[dep.kv_dtype]
        if parse_version(dep.engine_config.version) >= since:
            return name
    return kv_value(dep) or dep.kv_dtype


def _base(dep: Deployment, plan: launch.LaunchPlan) -> list[str]:
    ec = dep.engine_config
    name, _ = launch.served_checkpoint(dep)
    argv = ["vllm", "serve", name]
    argv += ["--tensor-parallel-size", str(dep.tp), "--pipeline-parallel-size", str(dep.pp)]
    if dep.ep > 1:
        argv.append("--enable-expert-parallel")
    argv += [
        "--max-model-len", str(launch.max_model_len(dep, plan)),
        "--gpu-memory-utilization", f"{launch.memory_fraction(dep):g}",
        "--kv-cache-dtype", kv_cache_dtype(dep),
        "--max-num-batched-tokens", str(ec.max_batched_tokens),
        "--max-num-seqs", str(ec.max_num_seqs),
        "--enable-chunked-prefill" if ec.chunked_prefill else "--no-enable-chunked-prefill",
    ]  # fmt: skip
    if dep.engine.block_size:
        argv += ["--block-size", str(ec.block_size)]
    if not ec.cuda_graphs:
        argv.append("--enforce-eager")
    if dep.engine.prefix_cache is False:  # every modelled release's parser has the negation
        argv.append("--no-enable-prefix-caching")
    if launch.online_quantization(dep):
        argv += ["--quantization", "fp8"]
    if _not_default_kernels(dep, "triton"):  # from 0.19.0: ROCM_ATTN unless asked
        argv += ["--attention-backend", "TRITON_ATTN"]
    if _deepep(dep) and parse_version(ec.version) >= (0, 11, 1):
        # the DeepEP kernels the step time charges (decode-sized batches: the low-latency ones)
        argv += ["--all2all-backend", "deepep_low_latency"]
    return argv + _moe_backend(dep)[0]


def _moe_backend(dep: Deployment):
    """(arguments, environment) stating the MoE backend (calc.deploy.engines.vllm.moe_backend:
    --moe-backend from 0.17.0, environment variables at 0.16)."""
    from calc.deploy.engines.vllm.moe_backend import launch as moe_launch

    ec = dep.engine_config
    return moe_launch(dep, ec.version_asked or ec.version)


def _deepep(dep: Deployment) -> bool:
    """The user stated DeepEP for the MoE traffic (--moe-a2a deepep) under expert parallel."""
    return dep.ep > 1 and dep.engine.moe_a2a == "deepep"


def _notes(dep: Deployment) -> list[str]:
    notes = []
    q = launch.prequantized_note(dep)
    if q:
        notes.append(q)
    kv = kv_cache_dtype(dep)
    if kv == "auto" and launch.pins_16bit_kv(dep):
        notes.append(f"a {dep.kv_dtype} KV cache sized: this release's --kv-cache-dtype auto "
                     "follows the checkpoint, fp8 if its kv_cache_quant_algo says FP8")  # fmt: skip
    elif kv == dep.kv_dtype and kv not in ("auto", "fp8"):  # no value of the release's
        notes.append(f"KV cache {kv}: not a --kv-cache-dtype value; check the release supports it")
    if _deepep(dep) and parse_version(dep.engine_config.version) < (0, 11, 1):
        notes.append("DeepEP before vLLM 0.11.1: set VLLM_ALL2ALL_BACKEND=deepep_low_latency")
    return notes


def _not_default_kernels(dep: Deployment, kernels: str) -> bool:
    """Whether ``dep`` states ROCm attention ``kernels`` its release does not run unasked."""
    ec = dep.engine_config
    return ec.rocm_kernels == kernels and dep.engine_model.rocm_default(ec.version) != kernels


def _env(dep: Deployment) -> tuple[tuple[str, str], ...]:
    """The environment the stated kernels need: AMD's tuned attention (``--rocm-kernels
    aiter``) is vLLM's below 0.19.0 only with VLLM_ROCM_USE_AITER=1 (envs.py default False;
    without it platforms/rocm.py picks TRITON_ATTN); from 0.19.0 ROCM_ATTN is the default, AITER
    or not (calc.deploy.engines.vllm.rocm_attention); and a stated MoE backend's variables at
    0.16 (calc.deploy.engines.vllm.moe_backend ENV_0_16)."""
    aiter = (("VLLM_ROCM_USE_AITER", "1"),) if _not_default_kernels(dep, "aiter") else ()
    return aiter + _moe_backend(dep)[1]


def _replica(dep: Deployment, plan: launch.LaunchPlan, rules: VllmRules, role: str, count: int,
             extra: list[str]) -> list[Command]:  # fmt: skip
    """The commands of ``count`` copies of one replica (one per node when it spans hosts)."""
    base = _base(dep, plan) + extra
    dp = dep.sharding.dp_attn
    n_nodes = launch.nodes(dep)
    per = launch.gpus_per_host(dep)
    notes = _notes(dep)
    if dp > 1:
        base += ["--data-parallel-size", str(dp)]
    if n_nodes == 1:
        return [Command("vllm", role, tuple(base), _env(dep), notes=tuple(notes), count=count,
                        gpus=launch.replica_gpus(dep))]  # fmt: skip
    where = f" ({launch.HEAD}: node 0's address)"
    out = []
    if dp > 1:
        group = dep.tp * dep.pp
        local = max(1, per // group)
        n_nodes = -(-dp // local)
        for k in range(n_nodes):
            ranks = min(local, dp - k * local)
            argv = [*base, "--data-parallel-size-local", str(ranks),
                    "--data-parallel-address", launch.HEAD,
                    "--data-parallel-rpc-port", DP_RPC_PORT]  # fmt: skip
            if k:
                argv += ["--headless", "--data-parallel-start-rank", str(k * local)]
            out.append(Command("vllm", f"{role}, node {k + 1} of {n_nodes}", tuple(argv),
                               _env(dep), notes=tuple([*notes, f"one per host{where}"]),
                               count=count, gpus=ranks * group))  # fmt: skip
        return out
    if parse_version(dep.engine_config.version) >= (0, 11, 1):
        for k in range(n_nodes):
            argv = [*base, "--nnodes", str(n_nodes), "--node-rank", str(k),
                    "--master-addr", launch.HEAD, "--master-port", MASTER_PORT]  # fmt: skip
            if k:
                argv.append("--headless")
            out.append(Command("vllm", f"{role}, node {k + 1} of {n_nodes}", tuple(argv),
                               _env(dep), notes=tuple([*notes, f"one per host{where}"]),
                               count=count, gpus=launch.replica_gpus(dep) // n_nodes))  # fmt: skip
        return out
    # before 0.11.1: a Ray cluster spans the hosts, vLLM starts on the head
    out.append(Command("ray", f"{role}, node 1 of {n_nodes}: Ray head",
                       ("ray", "start", "--head", "--port=6379"), count=count,
                       gpus=launch.replica_gpus(dep) // n_nodes))  # fmt: skip
    for k in range(1, n_nodes):
        out.append(Command("ray", f"{role}, node {k + 1} of {n_nodes}: Ray worker",
                           ("ray", "start", f"--address={launch.HEAD}:6379"), count=count,
                           gpus=launch.replica_gpus(dep) // n_nodes))  # fmt: skip
    out.append(Command("vllm", f"{role}, on node 1 once the Ray cluster is up",
                       tuple([*base, "--distributed-executor-backend", "ray"]), _env(dep),
                       notes=tuple(notes), count=count))  # fmt: skip
    return out


def commands(dep: Deployment, plan: launch.LaunchPlan, rules: VllmRules) -> list[Command]:
    """The commands that start ``dep`` as ``plan`` says."""
    copies = dep.replicas  # data-parallel copies without EP are separate servers
    if not plan.disaggregated:
        out = _replica(dep, plan, rules, "server", plan.replicas * copies, [])
        if plan.replicas * copies > 1:
            out[0] = _with_note(out[0], launch.replicas_note(dep, plan.replicas * copies))
        return _shared(dep, out, plan.replicas * copies)
    kv = json.dumps(KV_TRANSFER, separators=(",", ":"))
    extra = ["--kv-transfer-config", kv]
    prefill = _replica(dep, plan, rules, "prefill", plan.prefill * copies, extra)
    decode = _replica(dep, plan, rules, "decode", plan.decode * copies, extra)
    prefill[0] = _with_note(prefill[0], "disaggregated: a proxy routes each request to a "
                            "prefill server, then to a decode server that pulls its KV "
                            "(NIXL); e.g. vllm-router --pd-disaggregation")  # fmt: skip
    return _shared(dep, prefill + decode, (plan.prefill + plan.decode) * copies)


def _shared(dep: Deployment, out: list[Command], servers: int) -> list[Command]:
    note = launch.shared_host_note(dep, servers)
    return [_with_note(out[0], note), *out[1:]] if note else out


def _with_note(c: Command, note: str) -> Command:
    from dataclasses import replace

    return replace(c, notes=(*c.notes, note))
