"""How one model is trained [tokens, sequences, GPUs, bytes, USD]: the setup the training report
sizes (sequence shape, parallelism, precision, memory policies, the run's budget and price),
built from the options of `kvcalc train` and validated once."""

from __future__ import annotations

from dataclasses import dataclass

from calc.data.limits import check_choice, check_parallel, check_positive_int
from calc.errors import InvalidInputError
from calc.training import memory as tm

FINETUNE = ("full", "lora", "qlora")
LORA_TARGETS = ("all", "qv")
SCHEDULES = ("1f1b", "interleaved")
MAX_TOKENS = 1e16
# the network's rate where neither --network-bandwidth nor the profile's scale_out gives one:
# one 400 Gb/s NIC per GPU (DGX H100: 8 × ConnectX-7 400G)
NETWORK_BYTES_PER_S = 50e9


@dataclass(frozen=True, kw_only=True)
class TrainSetup:
    """How one model is trained: sequence shape, parallelism, precision, memory policies and
    the run's budget and price."""

    ctx: int = 4096
    micro_batch: int = 1
    global_batch: int | None = None  # sequences per optimizer step; default below
    tp: int = 1
    pp: int = 1
    cp: int = 1
    ep: int = 1
    dp: int = 1
    recipe: str = "bf16"
    zero: int = 0
    recompute: str = "none"
    flash: bool = True
    dropout: bool = False
    sequence_parallel: bool = True
    virtual_stages: int = 1
    finetune: str = "full"
    lora_rank: int = 16
    lora_targets: str = "all"
    adapter_dtype: str = "fp32"
    tokens: float | None = None
    mfu: float | None = None
    efficiency: str = "expected"
    usd_per_hour: float | None = None
    # how a GPU-hour is priced (calc.deploy.pricing.Pricing: a basis, a stated price or owned
    # TCO); None: the profile's price on the default basis, or ``usd_per_hour``
    pricing: object = None
    overhead_bytes: int = 2**29
    # the scale-out network's rate per GPU per direction [bytes/s]; None: the profile's
    # scale_out rate, else NETWORK_BYTES_PER_S (calc.training.links)
    network_bytes_per_s: float | None = None

    @property
    def gpus(self) -> int:
        return self.tp * self.pp * self.cp * self.dp

    @property
    def default_global_batch(self) -> int:
        """micro_batch × dp × m with m = 1 without pipelining, else 4 × pp (bubble ≤ 20 %)."""
        return self.micro_batch * self.dp * (1 if self.pp == 1 else 4 * self.pp)


def data_parallel(tp: int, pp: int, cp: int, dp: int | None, gpus: int | None) -> int:
    """The data-parallel replicas of ``--dp`` or ``--gpus`` (tp × pp × cp × dp GPUs in all),
    ``--gpus`` applied as every command applies it (``calc.deploy.options.gpus_replicas``):
    the GPUs in all, what --tp, --pp and --cp leave data-parallel replicas. Alone it is all
    replicas (training frameworks replicate first), where a serving command takes it as --tp
    (an engine shards one tensor-parallel group first)."""
    if gpus is None:
        return 1 if dp is None else dp
    from calc.deploy.options import gpus_replicas

    check_parallel(tp=tp, pp=pp, cp=cp)
    return gpus_replicas(tp, pp, dp, gpus, cp=cp)


def check_setup(n_layers: int, name: str, s: TrainSetup) -> None:
    """Refuse a setup that cannot run on a model of ``n_layers`` layers, one line each."""
    check_positive_int("ctx", s.ctx, 10**8)
    check_positive_int("micro-batch", s.micro_batch, 10**6)
    # the layout within the Deployment's own limit (calc.data.limits.MAX_PARALLEL)
    check_parallel(tp=s.tp, pp=s.pp, cp=s.cp, ep=s.ep, dp=s.dp)
    for flag in ("virtual-stages", "lora-rank"):
        check_positive_int(flag, getattr(s, flag.replace("-", "_")), 10**6)
    tm.recipe(s.recipe)
    for flag, value, choices in (
        ("--recompute", s.recompute, tm.RECOMPUTE),
        ("--finetune", s.finetune, FINETUNE),
        ("--lora-targets", s.lora_targets, LORA_TARGETS),
        ("--adapter-dtype", s.adapter_dtype, tuple(tm.ADAPTER_WEIGHT_BYTES)),
    ):
        if value is None:  # check_choice lets None (not given) pass: here it is a value
            raise InvalidInputError(f"{flag} None is not one of: {', '.join(choices)}")
        check_choice(flag, value, choices)
    if s.zero not in tm.ZERO_STAGES:
        raise InvalidInputError(f"--zero must be 0, 1, 2 or 3, got {s.zero!r}")
    if s.ctx % s.cp:
        raise InvalidInputError(f"--cp {s.cp} must divide --ctx {s.ctx:,}")
    if s.virtual_stages > 1 and s.pp == 1:
        raise InvalidInputError("--virtual-stages needs --pp > 1 (interleaved pipeline)")
    if s.virtual_stages > 1 and n_layers % (s.pp * s.virtual_stages):
        raise InvalidInputError(
            f"--pp {s.pp} × --virtual-stages {s.virtual_stages} must divide the "
            f"{n_layers} layers of {name}"
        )
    if s.ep > 1 and (s.tp * s.cp * s.dp) % s.ep:
        raise InvalidInputError(
            f"--ep {s.ep} must divide --tp × --cp × --dp = {s.tp * s.cp * s.dp} (experts are "
            "spread over the data-parallel ranks of a stage)"
        )
    _check_batch(s)
    _check_run(s)


def _check_batch(s: TrainSetup) -> None:
    gb = s.global_batch
    if gb is not None:
        check_positive_int("global-batch", gb, 10**9)
        if gb % (s.micro_batch * s.dp):
            raise InvalidInputError(
                f"--global-batch {gb:,} must be a multiple of --micro-batch × --dp = "
                f"{s.micro_batch * s.dp:,}"
            )


def _check_run(s: TrainSetup) -> None:
    """The run's budget, rates and price."""
    if s.tokens is not None and not 0 < s.tokens <= MAX_TOKENS:
        raise InvalidInputError(f"--tokens must be in (0, 1e16], got {s.tokens!r}")
    if s.mfu is not None and not 0 < s.mfu <= 1:
        raise InvalidInputError(f"--mfu must be a fraction in (0, 1], got {s.mfu!r}")
    if s.usd_per_hour is not None and not 0 < s.usd_per_hour <= 10_000:
        raise InvalidInputError(f"--usd-per-hour must be in (0, 10000], got {s.usd_per_hour!r}")
    if s.network_bytes_per_s is not None and not 0 < s.network_bytes_per_s <= 1e14:
        raise InvalidInputError("--network-bandwidth must be in (0, 100 TB/s]")
