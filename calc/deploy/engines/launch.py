"""What every engine's launch commands share: the plan they start (``LaunchPlan``: replicas,
disaggregated prefill/decode pools, the longest request), the checkpoint they load (the model's
repository, or for a weight format it does not hold and no engine makes at load time the
published checkpoint of calc/data/quantised_checkpoints.yaml, else a local folder), the nodes
a deployment spans and the values kvcalc's own model used (memory fraction, batch limits, a
16-bit KV cache stated where 'auto' would mean fp8), so that the command and the figures
describe the same server."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from calc.errors import InvalidInputError

if TYPE_CHECKING:
    from calc.deploy.deployment import Deployment

HEAD = "head-node"  # the first node's address: replace with its hostname or IP
_HF = re.compile(r"huggingface\.co/([^/\s]+/[^/\s]+)")

# GPUs one host holds (a node of the multi-node forms): GB200/GB300 NVL72 trays hold 4, the
# HGX/DGX boards and PCIe servers 8
GPUS_PER_HOST = {"gb200": 4, "gb300": 4}
DEFAULT_GPUS_PER_HOST = 8


@dataclass(frozen=True)
class LaunchPlan:
    """How a deployment is started: ``replicas`` independent servers of it (aggregated), or
    ``prefill`` + ``decode`` servers with a KV connector between them (disaggregated), each
    accepting requests of at most ``max_model_len`` tokens."""

    replicas: int = 1
    max_model_len: int | None = None
    prefill: int = 0
    decode: int = 0

    @property
    def disaggregated(self) -> bool:
        return self.prefill > 0 and self.decode > 0


def gpus_per_host(dep: Deployment) -> int:
    hw = dep.hardware
    name = getattr(hw, "name", "")
    return GPUS_PER_HOST.get(name, DEFAULT_GPUS_PER_HOST)


def replica_gpus(dep: Deployment) -> int:
    """GPUs of one copy of the deployment: max(tp, ep) × pp."""
    return dep.sharding.gpus


def nodes(dep: Deployment) -> int:
    """Hosts one copy spans (1 when it fits one host)."""
    per = gpus_per_host(dep)
    n = replica_gpus(dep)
    return 1 if n <= per else -(-n // per)


def model_id(dep: Deployment) -> str:
    """The Hugging Face repository of the model (from its config's source URL), else its name;
    a name that reads as an option ("--trust-remote-code") is refused: an engine would take it
    for a flag."""
    m = _HF.search(dep.model.source or "")
    name = m.group(1) if m else dep.model.name
    if not name or name.startswith("-") or any(c in name for c in "\n\r\0"):
        raise InvalidInputError(
            f"model name {name[:60]!r} cannot be passed to an engine as its model: it reads as "
            "an option or holds a control character; give the model a name (or a source "
            "repository) that does not start with '-'"
        )
    return name


def max_model_len(dep: Deployment, plan: LaunchPlan) -> int:
    """The engine's max model length: the workload's longest request, else the setting, else
    the model's limit."""
    ec = dep.engine_config
    return int(plan.max_model_len or ec.max_model_len or dep.model.max_ctx)


def kv_cache_dtype(dep: Deployment, fp8: str) -> str:
    """The engine's name of the KV dtype: auto (the model's, or 16-bit), ``fp8`` (its name of
    an fp8 cache) or kvcalc's own."""
    kv = dep.kv_dtype
    if kv == (dep.model.kv_dtype or dep.model.dtype) or kv in ("bf16", "fp16"):
        return "auto"
    return fp8 if kv.startswith("fp8") else kv


def memory_fraction(dep: Deployment) -> float:
    """The memory fraction kvcalc's ledger used (the engine's default or its automatic choice,
    stated so the server allocates the pool kvcalc sized)."""
    if dep.hardware is not None:
        return float(dep.per_gpu.mem_util)
    return float(dep.engine_config.memory_fraction or 0.9)


def timed_format(dep: Deployment) -> str | None:
    """The weight format kvcalc timed when it is not the checkpoint's own (None: the checkpoint
    as released). A --weight-dtype naming the released format (bf16 on Llama 3 8B,
    fp8-block128 on DeepSeek-R1) is the checkpoint as released, as
    ``checkpoint.resolved_dtypes`` models it: nothing to quantise."""
    from calc.deploy.checkpoint import linear_dtype

    fmt = dep.weight_override
    if fmt is None or fmt == linear_dtype(dep.model, None):
        return None
    return fmt


def online_quantization(dep: Deployment) -> str | None:
    """The weight format kvcalc timed when it is made from the checkpoint at load time (fp8
    from a 16-bit checkpoint), else None."""
    fmt = timed_format(dep)
    if fmt is not None and fmt.startswith("fp8") and dep.model.dtype in ("bf16", "fp16", "fp32"):
        return "fp8"
    return None


# kvcalc's names of the formats a published checkpoint is declared in: per-tensor fp8 ("fp8"
# or "fp8-tensor") is calc/data/quantised_checkpoints.yaml's "fp8"
_DECLARED_AS = {"fp8-tensor": "fp8"}


def published_checkpoint(dep: Deployment, fmt: str) -> dict | None:
    """The published checkpoint of the model in ``fmt`` (calc/data/quantised_checkpoints.yaml:
    repo, source, quantises), if kvcalc knows one."""
    from calc.data.quantised_checkpoints import published_checkpoint as declared

    return declared(dep.model.name, _DECLARED_AS.get(fmt, fmt))


def served_checkpoint(dep: Deployment, online: bool = True) -> tuple[str, str | None]:
    """(what the engine loads, a note): the model's repository when kvcalc timed its released
    formats, or formats the engine makes at load time (``online``: fp8 from a 16-bit
    checkpoint); else the published checkpoint of the format kvcalc timed, or a local folder
    holding one quantised to it (no engine quantises to it at load time)."""
    name = model_id(dep)
    fmt = timed_format(dep)
    if fmt is None or (online and online_quantization(dep) is not None):
        return name, None
    pub = published_checkpoint(dep, fmt)
    if pub is not None:
        repo, base = pub["repo"], pub.get("quantises")
        of = f" (made from {base}: {name}'s shapes)" if base else ""
        return repo, (f"{repo}: the published {fmt} checkpoint, the format kvcalc timed{of}; "
                      "its quantisation config lists any layer kept in 16 bit")  # fmt: skip
    local = "./" + name.rsplit("/", 1)[-1] + "-" + fmt
    return local, (f"{local}: {name} quantised to {fmt}, the weight format kvcalc timed "
                   "(NVIDIA ModelOpt, or llm-compressor; no published checkpoint known to "
                   "kvcalc)")  # fmt: skip


def pins_16bit_kv(dep: Deployment, online: bool = True) -> bool:
    """The row sized a 16-bit KV cache where the engine's 'auto' may mean fp8: the command
    loads a pre-quantised checkpoint (which may ask for an fp8 cache, as NVIDIA's do), or the
    model's own cache is not 16-bit (a ModelOpt snapshot's kv_cache_quant_algo FP8, sized
    with --kv-dtype bf16): the KV dtype must be stated, not 'auto'."""
    if dep.kv_dtype not in ("bf16", "fp16"):
        return False
    own = dep.model.kv_dtype or dep.model.dtype
    return own not in ("bf16", "fp16") or served_checkpoint(dep, online)[0] != model_id(dep)


def prequantized_note(dep: Deployment) -> str | None:
    """What the command's checkpoint is when kvcalc timed weights no engine makes at load time
    (None: the checkpoint as released, or weights the engine quantises at load time)."""
    return served_checkpoint(dep)[1]


def replicas_note(dep: Deployment, servers: int) -> str:
    """How ``servers`` independent copies run: behind a load balancer, each a server of its
    own (and, spanning hosts, on hosts of its own whose first is its head node)."""
    where = (f" (each on {nodes(dep)} hosts of its own, {HEAD} its first)"
             if nodes(dep) > 1 else "")  # fmt: skip
    return f"run {servers} such servers behind a load balancer (independent replicas){where}"


def shared_host_note(dep: Deployment, servers: int) -> str | None:
    """What the flags cannot say when ``servers`` servers of fewer GPUs than a host may share
    one: each needs its own GPUs and port (every engine takes the host's first GPUs and its
    default port otherwise). None for one server, or servers of a whole host or more."""
    per = gpus_per_host(dep)
    if servers < 2 or replica_gpus(dep) >= per:
        return None
    return (f"servers sharing a host ({per // replica_gpus(dep)} of these fit one): give each "
            "its own GPUs (CUDA_VISIBLE_DEVICES) and --port")  # fmt: skip


def check_one_host_per_group(dep: Deployment, what: str) -> None:
    """Refuse a layout whose tensor-parallel group spans hosts where the engine's form needs
    it inside one (attention-DP ranks split across hosts by whole TP groups)."""
    per = gpus_per_host(dep)
    if dep.tp > per or per % dep.tp:
        raise InvalidInputError(
            f"{what}: a tensor-parallel group of {dep.tp} GPUs does not divide a host of "
            f"{per}; choose --tp dividing {per}"
        )
