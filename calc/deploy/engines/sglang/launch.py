"""``python -m sglang.launch_server`` commands that start a deployment as kvcalc modelled it,
in the forms SGLang's releases accept (option names from each release's parser:
tests/data/engine_options/; full names, never an abbreviation such as ``--pp``, which later
releases reject as ambiguous): ``--tp-size`` is the whole group's GPUs, attention data
parallel inside it is ``--dp-size N --enable-dp-attention`` (``--attn-dp-size N`` from
0.5.22), expert parallel ``--ep-size``; across hosts ``--nnodes``/``--node-rank``/
``--dist-init-addr``; disaggregated servers ``--disaggregation-mode prefill|decode`` with
``--disaggregation-transfer-backend nixl``; online fp8 ``--quantization fp8``. The 0.4
releases lack some of these (``SINCE``): their commands leave out what the release cannot
take and means anyway (one-token pages, pipeline size 1), state EP MoE as ``--enable-ep-moe``
(or ``--enable-deepep-moe``) beside ``--ep-size``, and refuse a deployment the release cannot
run (pipeline parallel before 0.4.7, EP in 0.4.0, disaggregation before 0.4.5)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import calc.deploy.engines.launch as launch
from calc.deploy.engines.base import Command
from calc.deploy.engines.sglang.rules import RUNNING_SPLIT_SINCE
from calc.deploy.engines.versions import parse_version
from calc.errors import InvalidInputError

if TYPE_CHECKING:
    from calc.deploy.deployment import Deployment
    from calc.deploy.engines.sglang.rules import SglangRules

DIST_PORT = "5000"


def kv_cache_dtype(dep: Deployment) -> str:
    """SGLang's name of the KV dtype: auto (the model's), fp8_e4m3 or fp4_e2m1 (the release's
    value); bfloat16 by name where a pre-quantised checkpoint's 'auto' could mean its fp8 KV
    cache (0.5.4+)."""
    if (launch.pins_16bit_kv(dep) and dep.kv_dtype == "bf16"
            and parse_version(dep.engine_config.version) >= (0, 5, 4)):  # fmt: skip
        return "bfloat16"
    # the release's own value (calc.deploy.engines.accepts; 0.4.0 and 0.4.1 take only
    # fp8_e5m2, one byte a value too)
    from calc.deploy.engines.accepts import kv_value

    return kv_value(dep) or dep.kv_dtype


# the first release whose parser has each option (tests/data/engine_options/sglang-0.4.*.json:
# 0.4.0 has none of them; before --page-size SGLang pages one token, before --pp-size it has no
# pipeline parallelism, and in 0.4 --ep-size splits experts only beside --enable-ep-moe, which
# 0.5 dropped: srt/layers/moe/ep_moe/layer.py get_moe_impl_class of 0.4.10 picks EPMoE by
# enable_ep_moe, 0.5.3's by ep_size)
SINCE = {
    "--ep-size": (0, 4, 1), "--enable-ep-moe": (0, 4, 1), "--page-size": (0, 4, 4),
    "--enable-deepep-moe": (0, 4, 5), "--disaggregation-mode": (0, 4, 5),
    "--disaggregation-transfer-backend": (0, 4, 6), "--pp-size": (0, 4, 7),
    "--moe-a2a-backend": (0, 5, 2), "--attn-dp-size": (0, 5, 22),
    "--scheduler-recv-interval": (0, 5, 2), "--mamba-ssm-dtype": (0, 5, 2),
    "--max-mamba-cache-size": (0, 5, 2), "--moe-runner-backend": (0, 5, 2),
}  # fmt: skip
# --mamba-ssm-dtype's choices: float32 and bfloat16 from 0.5.2, float16 from 0.5.9
# (server_args.py add_mamba_ssm_dtype_choices; tests/data/engine_options/sglang-0.5.*.json)
SSM_DTYPE_NAMES = {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16"}
FP16_STATE_SINCE = (0, 5, 9)
# the first release whose receive skipper runs beside attention data parallelism: before it
# srt/managers/scheduler_recv_skipper.py SchedulerRecvSkipper.__init__ asserts
# ``not server_args.enable_dp_attention`` (read in the 0.5.2, 0.5.10, 0.5.13, 0.5.14 and 0.5.15
# wheels), from 0.5.16 scheduler_components/recv_skipper.py takes the ranks' gathered forward
# mode instead (read in the 0.5.16, 0.5.20 and 0.5.23 wheels)
RECV_INTERVAL_WITH_DP_SINCE = (0, 5, 16)


def has(dep: Deployment, option: str) -> bool:
    """The release's parser has ``option`` (SINCE)."""
    return parse_version(dep.engine_config.version) >= SINCE[option]


def _refusal(dep: Deployment, what: str, option: str) -> str:
    v = ".".join(map(str, SINCE[option]))
    return (f"SGLang {dep.engine_config.version} cannot start this deployment: {what} needs "
            f"{option} (SGLang {v} and later); choose --engine-version {v} or later")  # fmt: skip


def _refuse(dep: Deployment, what: str, option: str) -> None:
    raise InvalidInputError(_refusal(dep, what, option))


def cannot_start(dep: Deployment) -> str | None:
    """Why the release cannot start ``dep``'s layout (pipeline parallel before 0.4.7's
    --pp-size, expert parallel before --ep-size), or None."""
    if dep.pp > 1 and not has(dep, "--pp-size"):
        return _refusal(dep, f"pipeline parallel {dep.pp}", "--pp-size")
    if dep.ep > 1 and not has(dep, "--ep-size"):
        return _refusal(dep, f"expert parallel {dep.ep}", "--ep-size")
    return None


def cannot_recv_interval(dep: Deployment) -> str | None:
    """Why the release asked for cannot start ``dep`` with its stated
    ``--scheduler-recv-interval`` (a release before the option, or attention data parallel
    before 0.5.16), or None. The release as asked (0.5.2 runs 0.4.10's memory rules but has
    the option: ``EngineConfig.host_release``)."""
    n = dep.engine.recv_interval
    if n is None:
        return None
    asked = dep.engine_config.host_release
    since = SINCE["--scheduler-recv-interval"]
    if parse_version(asked) < since:
        v = ".".join(map(str, since))
        return (f"SGLang {asked} has no --scheduler-recv-interval (SGLang {v} and later); "
                f"choose --engine-version {v} or later, or drop it")  # fmt: skip
    if n > 1 and dep.sharding.dp_attn > 1 and parse_version(asked) < RECV_INTERVAL_WITH_DP_SINCE:
        v = ".".join(map(str, RECV_INTERVAL_WITH_DP_SINCE))
        return (f"SGLang {asked} cannot start --scheduler-recv-interval {n} with attention "
                f"data parallel {dep.sharding.dp_attn} (its receive skipper asserts DP "
                f"attention off until {v}); choose --engine-version {v} or later, or drop "
                "--scheduler-recv-interval")  # fmt: skip
    return None


def cannot_state_settings(dep: Deployment) -> str | None:
    """Why the release asked for cannot take ``dep``'s stated ``--mamba-ssm-dtype`` or
    ``--max-mamba-cache-size`` (a release before the options, 0.5.2; float16 before 0.5.9), or
    None. The release as asked (``EngineConfig.host_release``)."""
    asked = dep.engine_config.host_release
    for key, option in (("mamba_ssm_dtype", "--mamba-ssm-dtype"),
                        ("max_mamba_cache_size", "--max-mamba-cache-size")):  # fmt: skip
        if getattr(dep.engine, key) is not None and parse_version(asked) < SINCE[option]:
            v = ".".join(map(str, SINCE[option]))
            return (f"SGLang {asked} has no {option} (SGLang {v} and later); choose "
                    f"--engine-version {v} or later, or drop it")  # fmt: skip
    if dep.engine.mamba_ssm_dtype == "fp16" and parse_version(asked) < FP16_STATE_SINCE:
        v = ".".join(map(str, FP16_STATE_SINCE))
        return (f"SGLang {asked}'s --mamba-ssm-dtype takes float32 or bfloat16 (float16 from "
                f"SGLang {v}); choose --engine-version {v} or later, or another dtype")  # fmt: skip
    return None


def state_flags(dep: Deployment) -> list[str]:
    """``--mamba-ssm-dtype`` and ``--max-mamba-cache-size`` as stated (SGLang's names; the
    size is the server's total, as the user gave it)."""
    argv: list[str] = []
    if (why := cannot_state_settings(dep)) is not None:
        raise InvalidInputError(why)
    if dep.engine.mamba_ssm_dtype is not None:
        argv += ["--mamba-ssm-dtype", SSM_DTYPE_NAMES[dep.engine.mamba_ssm_dtype]]
    if dep.engine.max_mamba_cache_size is not None:
        argv += ["--max-mamba-cache-size", str(dep.engine.max_mamba_cache_size)]
    return argv


def cannot_disaggregate(dep: Deployment) -> str | None:
    """Why the release cannot start disaggregated prefill/decode servers (before 0.4.5's
    --disaggregation-mode), or None."""
    if not has(dep, "--disaggregation-mode"):
        return _refusal(dep, "disaggregated prefill/decode", "--disaggregation-mode")
    return None


def _base(dep: Deployment, plan: launch.LaunchPlan) -> list[str]:
    ec = dep.engine_config
    group = max(dep.tp, dep.ep)  # SGLang's tp_size spans the attention-DP ranks
    dp = dep.sharding.dp_attn
    model, _ = launch.served_checkpoint(dep)
    argv = ["python", "-m", "sglang.launch_server", "--model-path", model]
    argv += ["--tp-size", str(group)]
    if has(dep, "--pp-size"):
        argv += ["--pp-size", str(dep.pp)]
    elif dep.pp > 1:
        _refuse(dep, f"pipeline parallel {dep.pp}", "--pp-size")
    if dp > 1:
        if has(dep, "--attn-dp-size"):
            argv += ["--attn-dp-size", str(dp)]
        else:
            argv += ["--dp-size", str(dp), "--enable-dp-attention"]
    if dep.ep > 1:
        deepep = dep.engine.moe_a2a == "deepep"
        if not has(dep, "--ep-size"):
            _refuse(dep, f"expert parallel {dep.ep}", "--ep-size")
        argv += ["--ep-size", str(dep.ep)]
        if has(dep, "--moe-a2a-backend"):
            if deepep:  # the DeepEP kernels the step time charges
                argv += ["--moe-a2a-backend", "deepep"]
        elif deepep and has(dep, "--enable-deepep-moe"):
            argv.append("--enable-deepep-moe")  # 0.4.5+: DeepEP (its ep_size = tp_size)
        else:
            argv.append("--enable-ep-moe")  # 0.4: --ep-size alone keeps the TP MoE
    if plan.disaggregated and (why := cannot_disaggregate(dep)) is not None:
        raise InvalidInputError(why)
    argv += [
        "--context-length", str(launch.max_model_len(dep, plan)),
        "--mem-fraction-static", f"{launch.memory_fraction(dep):g}",
        "--kv-cache-dtype", kv_cache_dtype(dep),
        "--chunked-prefill-size", str(ec.max_batched_tokens if ec.chunked_prefill else -1),
    ]  # fmt: skip
    if has(dep, "--page-size"):
        argv += ["--page-size", str(ec.block_size)]
    elif ec.block_size != 1:
        _refuse(dep, f"{ec.block_size}-token pages", "--page-size")
    if dep.engine.max_num_seqs is not None:  # else SGLang sizes it from its pool, as modelled
        # the server's total: from 0.4.2 each attention-DP worker takes max_running_requests
        # // dp_size (srt/managers/tp_worker.py; 0.5.23 srt/model_executor/pool_configurator.py
        # // attn_dp_size), while kvcalc's limit is each rank's
        ranks = dp if parse_version(ec.version) >= RUNNING_SPLIT_SINCE else 1
        argv += ["--max-running-requests", str(ec.max_num_seqs * ranks)]
    if not ec.cuda_graphs:
        argv.append("--disable-cuda-graph")
    if dep.engine.prefix_cache is False:  # the ignore_eos admission the simulation runs
        argv.append("--disable-radix-cache")
    if dep.engine.recv_interval is not None:  # new requests read every N decode steps
        if (why := cannot_recv_interval(dep)) is not None:
            raise InvalidInputError(why)
        argv += ["--scheduler-recv-interval", str(dep.engine.recv_interval)]
    argv += state_flags(dep)  # hybrid models' state pool (sglang/hybrid.py)
    if dep.engine.max_prefill_tokens is not None:  # one prefill batch's prompt tokens
        argv += ["--max-prefill-tokens", str(dep.engine.max_prefill_tokens)]
    if launch.online_quantization(dep):
        argv += ["--quantization", "fp8"]
    if dep.engine.moe_backend is not None and dep.model.moe is not None:  # the stated runner
        argv += ["--moe-runner-backend", dep.engine.moe_backend]
    return argv


def _replica(dep: Deployment, plan: launch.LaunchPlan, role: str, count: int,
             extra: list[str]) -> list[Command]:  # fmt: skip
    base = _base(dep, plan) + extra
    notes = [n for n in (launch.prequantized_note(dep),) if n]
    if launch.pins_16bit_kv(dep) and kv_cache_dtype(dep) == "auto":
        notes.append(f"a {dep.kv_dtype} KV cache sized: --kv-cache-dtype auto follows the "
                     "checkpoint, fp8 if its kv_cache_quant_algo says FP8")  # fmt: skip
    if dep.ep > 1 and dep.engine.moe_a2a == "deepep" and not has(dep, "--enable-deepep-moe"):
        notes.append(f"DeepEP: SGLang {dep.engine_config.version} has none (--enable-deepep-moe "
                     "from 0.4.5): its EP MoE gathers instead")  # fmt: skip
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
            out[0] = replace(out[0], notes=(*out[0].notes, launch.replicas_note(
                dep, plan.replicas * copies)))  # fmt: skip
        return _shared(dep, out, plan.replicas * copies)
    # 0.4.5 transfers by Mooncake, its only backend, with no option to name it
    transfer = (["--disaggregation-transfer-backend", "nixl"]
                if has(dep, "--disaggregation-transfer-backend") else [])  # fmt: skip
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
