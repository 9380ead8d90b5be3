"""``python -m sglang.launch_server`` commands that start a deployment as kvcalc modelled it,
in the forms SGLang's releases accept (option names from each release's parser:
tests/data/engine_options/; full names, never an abbreviation such as ``--pp``, which later
releases reject as ambiguous): ``--tp-size`` is the whole group's GPUs, attention data
parallel inside it is ``--dp-size N --enable-dp-attention`` (``--attn-dp-size N`` from
0.5.22), expert parallel ``--ep-size``; across hosts ``--nnodes``/``--node-rank``/
``--dist-init-addr``; disaggregated servers ``--disaggregation-mode prefill|decode`` with
``--disaggregation-transfer-backend nixl``; online fp8 ``--quantization fp8``."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import calc.deploy.engines.launch as launch
from calc.deploy.engines.base import Command
from calc.deploy.engines.versions import parse_version

if TYPE_CHECKING:
    from calc.deploy.deployment import Deployment
    from calc.deploy.engines.sglang.rules import SglangRules

DIST_PORT = "5000"


def kv_cache_dtype(dep: Deployment) -> str:
    """SGLang's name of the KV dtype: auto (the model's) or fp8_e4m3; bfloat16 by name where a
    pre-quantised checkpoint's 'auto' could mean its fp8 KV cache (0.5.4+)."""
    if (launch.pins_16bit_kv(dep) and dep.kv_dtype == "bf16"
            and parse_version(dep.engine_config.version) >= (0, 5, 4)):  # fmt: skip
        return "bfloat16"
    return launch.kv_cache_dtype(dep, "fp8_e4m3")


def _base(dep: Deployment, plan: launch.LaunchPlan) -> list[str]:
    ec = dep.engine_config
    group = max(dep.tp, dep.ep)  # SGLang's tp_size spans the attention-DP ranks
    dp = dep.sharding.dp_attn
    model, _ = launch.served_checkpoint(dep)
    argv = ["python", "-m", "sglang.launch_server", "--model-path", model]
    argv += ["--tp-size", str(group), "--pp-size", str(dep.pp)]
    if dp > 1:
        if parse_version(ec.version) >= (0, 5, 22):
            argv += ["--attn-dp-size", str(dp)]
        else:
            argv += ["--dp-size", str(dp), "--enable-dp-attention"]
    if dep.ep > 1:
        argv += ["--ep-size", str(dep.ep)]
        if dep.engine.moe_a2a == "deepep" and parse_version(ec.version) >= (0, 5, 2):
            argv += ["--moe-a2a-backend", "deepep"]  # the DeepEP kernels the step time charges
    argv += [
        "--context-length", str(launch.max_model_len(dep, plan)),
        "--mem-fraction-static", f"{launch.memory_fraction(dep):g}",
        "--kv-cache-dtype", kv_cache_dtype(dep),
        "--chunked-prefill-size", str(ec.max_batched_tokens if ec.chunked_prefill else -1),
        "--page-size", str(ec.block_size),
    ]  # fmt: skip
    if dep.engine.max_num_seqs is not None:  # else SGLang sizes it from its pool, as modelled
        argv += ["--max-running-requests", str(ec.max_num_seqs)]
    if not ec.cuda_graphs:
        argv.append("--disable-cuda-graph")
    if dep.engine.prefix_cache is False:  # the ignore_eos admission the simulation runs
        argv.append("--disable-radix-cache")
    if launch.online_quantization(dep):
        argv += ["--quantization", "fp8"]
    return argv


def _replica(dep: Deployment, plan: launch.LaunchPlan, role: str, count: int,
             extra: list[str]) -> list[Command]:  # fmt: skip
    base = _base(dep, plan) + extra
    deepep_04 = (dep.ep > 1 and dep.engine.moe_a2a == "deepep"
                 and parse_version(dep.engine_config.version) < (0, 5, 2))  # fmt: skip
    notes = [n for n in (launch.prequantized_note(dep),) if n]
    if launch.pins_16bit_kv(dep) and kv_cache_dtype(dep) == "auto":
        notes.append(f"a {dep.kv_dtype} KV cache sized: --kv-cache-dtype auto follows the "
                     "checkpoint, fp8 if its kv_cache_quant_algo says FP8")  # fmt: skip
    if deepep_04:  # no option table of 0.4 releases to check a flag against
        notes.append("DeepEP on SGLang 0.4: state it with that release's own option (kvcalc "
                     "holds no option table of 0.4 releases)")
    n = launch.nodes(dep)
    if n == 1:
        return [Command("sglang", role, tuple(base), notes=tuple(notes), count=count,
                        gpus=launch.replica_gpus(dep))]  # fmt: skip
    out = []
    for k in range(n):
        argv = [*base, "--nnodes", str(n), "--node-rank", str(k),
                "--dist-init-addr", f"{launch.HEAD}:{DIST_PORT}"]  # fmt: skip
        out.append(Command("sglang", f"{role}, node {k + 1} of {n}", tuple(argv),
                           notes=tuple([*notes, f"one per host ({launch.HEAD}: node 0's address)"]),
                           count=count, gpus=launch.replica_gpus(dep) // n))  # fmt: skip
    return out


def commands(dep: Deployment, plan: launch.LaunchPlan, rules: SglangRules) -> list[Command]:
    """The commands that start ``dep`` as ``plan`` says."""
    copies = dep.replicas
    if not plan.disaggregated:
        out = _replica(dep, plan, "server", plan.replicas * copies, [])
        if plan.replicas * copies > 1:
            out[0] = replace(out[0], notes=(*out[0].notes, f"run {plan.replicas * copies} such "
                             "servers behind a load balancer (independent replicas)"))  # fmt: skip
        return _shared(dep, out, plan.replicas * copies)
    transfer = ["--disaggregation-transfer-backend", "nixl"]
    prefill = _replica(dep, plan, "prefill", plan.prefill * copies,
                       ["--disaggregation-mode", "prefill", *transfer])  # fmt: skip
    decode = _replica(dep, plan, "decode", plan.decode * copies,
                      ["--disaggregation-mode", "decode", *transfer])  # fmt: skip
    prefill[0] = replace(prefill[0], notes=(*prefill[0].notes, "disaggregated: route with "
                         "sglang-router (python -m sglang_router.launch_router "
                         "--pd-disaggregation --prefill URL --decode URL)"))  # fmt: skip
    return _shared(dep, prefill + decode, (plan.prefill + plan.decode) * copies)


def _shared(dep: Deployment, out: list[Command], servers: int) -> list[Command]:
    note = launch.shared_host_note(dep, servers)
    return [replace(out[0], notes=(*out[0].notes, note)), *out[1:]] if note else out
