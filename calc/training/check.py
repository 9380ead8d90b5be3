"""The `check` requirement ``training_fit``: does one training step fit in each GPU's memory
[bytes]? The figure is the busiest GPU's total (model states + activations + overhead), the
limit its usable memory."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from calc.data.limits import MAX_PARALLEL


class TrainingFit(BaseModel):
    """How the deployment's model would be trained (tp and pp come from the deployment)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    ctx: int = Field(gt=0, le=10**8, description="tokens per training sequence")
    micro_batch: int = Field(default=1, gt=0, le=10**6)
    # the layout within the Deployment's own limit (calc.data.limits.MAX_PARALLEL)
    dp: int = Field(default=1, gt=0, le=MAX_PARALLEL)
    cp: int = Field(default=1, gt=0, le=MAX_PARALLEL)
    ep: int = Field(default=1, gt=0, le=MAX_PARALLEL)
    recipe: Literal["fp32", "bf16", "bf16-fp32-grads", "fp8", "fp8-bf16-moments"] = "bf16"
    zero: Literal[0, 1, 2, 3] = 0
    recompute: Literal["none", "selective", "full"] = "none"
    flash: bool = True
    finetune: Literal["full", "lora", "qlora"] = "full"
    lora_rank: int = Field(default=16, gt=0, le=65536)
    lora_targets: Literal["all", "qv"] = "all"
    adapter_dtype: Literal["fp32", "bf16"] = "fp32"
    overhead: str | int = Field(default="0.5GiB", description="bytes or '2GiB'")


def training_fit_result(cfg, hw, fit: TrainingFit, *, tp: int = 1, pp: int = 1) -> dict:
    """The ``training_fit`` figure of one deployment: {figure, limit, unit, passed}."""
    from calc.data.units import parse_bytes
    from calc.training.report import TrainSetup, train_report

    # the fit's fields are TrainSetup's own names, its overhead parsed to bytes
    setup = TrainSetup(
        tp=tp, pp=pp, overhead_bytes=parse_bytes(fit.overhead, "overhead"),
        **fit.model_dump(exclude={"overhead"}),
    )  # fmt: skip
    f = train_report(cfg, hw, setup).fields
    return {
        "figure": f["total_bytes_per_gpu"],
        "limit": f["memory_bytes_per_gpu"],
        "unit": "bytes",
        "passed": f["fits"],
    }
