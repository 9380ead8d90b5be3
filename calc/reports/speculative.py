"""Speculative decoding and multi-token prediction: expected tokens per target step [tokens],
step time [s], speedup [×] and the extra memory [bytes] of the draft.

A draft proposes γ tokens; the target scores all γ + 1 positions in one step and keeps the
longest accepted prefix plus one token of its own. With each draft token accepted
independently with probability α (Leviathan et al. 2023, "Fast Inference from Transformers
via Speculative Decoding", Eq. 1):

    E[tokens per target step] = (1 − α^(γ+1)) / (1 − α),   = γ + 1 when α = 1.

One speculative step costs γ draft steps plus one verification step of the target, so

    speedup = E[tokens] × t_target / (γ × t_draft + t_verify).

With t_verify = t_target and c = t_draft / t_target this is Leviathan's
(1 − α^(γ+1)) / ((1 − α)(γc + 1)). Formulas take numbers or numpy arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

from calc.errors import InvalidInputError
from calc.output.result import Report


def _check(alpha, gamma) -> None:
    import numpy as np

    a, g = np.asarray(alpha, dtype=float), np.asarray(gamma)
    if np.any((a < 0) | (a > 1)) or np.any(np.isnan(a)):
        got = f", got {float(a):g}" if a.ndim == 0 else ""
        raise InvalidInputError(f"--alpha (acceptance rate) must be in 0..1{got}")
    if np.any(g < 0) or np.any(g != np.floor(g)) or np.any(g > 64):
        got = f", got {g.item()}" if g.ndim == 0 else ""
        raise InvalidInputError(f"--gamma (draft length) must be a whole number in 0..64{got}")


def expected_tokens_per_step(alpha, gamma):
    """E[tokens per target step] = (1 − α^(γ+1)) / (1 − α); γ + 1 at α = 1 [tokens]."""
    _check(alpha, gamma)
    if hasattr(alpha, "shape") or hasattr(gamma, "shape"):
        import numpy as np

        a = np.asarray(alpha, dtype=float)
        g = np.asarray(gamma, dtype=float)
        one = np.isclose(a, 1.0)
        safe = np.where(one, 0.5, a)
        return np.where(one, g + 1, (1 - safe ** (g + 1)) / (1 - safe))
    if alpha == 1:
        return gamma + 1
    return (1 - alpha ** (gamma + 1)) / (1 - alpha)


def speculative_step_s(gamma, draft_step_s, verify_step_s):
    """Time of one speculative step [s]: γ draft steps + one verification step."""
    return gamma * draft_step_s + verify_step_s


def speedup(alpha, gamma, target_step_s, draft_step_s, verify_step_s=None):
    """Tokens/s with speculation over tokens/s without [×] (verify defaults to a target step)."""
    verify = target_step_s if verify_step_s is None else verify_step_s
    return (
        expected_tokens_per_step(alpha, gamma)
        * target_step_s
        / speculative_step_s(gamma, draft_step_s, verify)
    )


def kv_read_once_bytes(step_bytes, kv_bytes, gamma):
    """Bytes of a verification step whose γ + 1 positions per sequence share one read of the
    sequence's KV [bytes]: step bytes − kv bytes × γ / (γ + 1) (``kv_bytes`` counts the KV
    read once per position, as a decode step of batch × (γ + 1) does)."""
    return step_bytes - kv_bytes * gamma / (gamma + 1)


def verify_step_time_s(dep, efficiency: str, *, batch, ctx, gamma):
    """Time of one verification step [s]: the decode step of batch × (γ + 1) tokens
    (``calc.deploy.steps.step_of``) with each sequence's KV read once, not γ + 1 times (as
    real verification kernels do: FlashInfer/FlashAttention score all γ + 1 query rows of a
    sequence against one load of its KV). Each op is re-timed at the step's rates."""
    from dataclasses import replace

    from calc.deploy.rates import op_time
    from calc.deploy.steps import step_of

    step = step_of(dep, efficiency, batch=batch * (gamma + 1), ctx=ctx)
    if step.rates is None:
        return None
    ops = [
        replace(
            op,
            bytes=kv_read_once_bytes(op.bytes, op.kv_bytes, gamma),
            kv_bytes=op.kv_bytes / (gamma + 1),
        )
        if op.kv_bytes
        else op
        for op in step.raw
    ]
    return sum(op_time(op, step.rates) for op in ops)


def leviathan_speedup(alpha, gamma, c):
    """Closed form with t_verify = t_target and c = t_draft / t_target [×]."""
    return expected_tokens_per_step(alpha, gamma) / (gamma * c + 1)


@dataclass(frozen=True)
class SpeculateReport(Report):
    """``kvcalc speculate``'s result: speculative decoding's speed-up and its draft's memory."""

    command = "speculate"


def mtp_module_params(cfg) -> int:
    """Parameters of one MTP module (DeepSeek-V3 style): one transformer layer of the target
    (attention + its heaviest FFN) + the 2d × d projection of [h; emb] + 3 norms; it shares
    the target's embedding and lm_head."""
    from calc.formulas.params import ffn_params, layer_attention_params, moe_layer_params

    d, gated = cfg.d_model, cfg.ffn_kind == "gated"
    if cfg.moe is not None:
        m = cfg.moe
        ffn = moe_layer_params(
            d,
            m.n_routed_experts,
            m.d_expert_ffn,
            m.n_shared_experts,
            m.shared_ffn,
            m.n_routed_experts,
            gated,
            cfg.ffn_bias,
            m.router_bias,
        )
    else:
        ffn = ffn_params(d, cfg.d_ffn, gated, cfg.ffn_bias)
    return layer_attention_params(cfg) + ffn + 2 * d * d + (cfg.norms_per_layer + 3) * d


def speculate_report(
    dep,
    work,
    *,
    gamma: int,
    alpha: float,
    draft=None,
    mtp_layers: int = 0,
    efficiency: str = "expected",
    draft_tp: int = 1,
) -> SpeculateReport:
    """Speculative decoding of the deployment ``dep`` with a ``draft`` model or ``mtp_layers``
    MTP modules: step times from the roofline (``calc.deploy.steps.step_of``), speedup and extra
    memory, for ``work.batch`` sequences at ``work.ctx``.

    The draft runs on ``draft_tp`` GPUs (default 1; vLLM's draft_tensor_parallel_size is 1 or
    the target's TP) in the target's dtypes (unless its own config says otherwise).
    The verification step scores γ + 1 positions per sequence as a decode step of
    batch × (γ + 1) tokens with the weights read once and each sequence's KV read once
    (``verify_step_time_s``: verification kernels load a sequence's KV once for all its
    query rows).
    """
    from calc.deploy.steps import step_of
    from calc.formulas.elementwise import cdiv
    from calc.output.derivation import whole

    _check(alpha, gamma)
    if (draft is None) == (mtp_layers == 0):
        raise InvalidInputError("give exactly one of --draft MODEL or --mtp")
    cfg = dep.model
    ctx, batch = work.ctx, work.batch
    local = cdiv(batch, dep.replicas)
    target = step_of(dep, efficiency, batch=local, ctx=ctx).time_s
    verify = verify_step_time_s(dep, efficiency, batch=local, ctx=ctx, gamma=gamma)
    warnings = []
    if ctx > cfg.context_limit:
        warnings.append(f"--ctx {ctx:,} exceeds {cfg.name}'s max context of {cfg.context_limit:,}")
    if draft is not None:
        d = _draft_model(dep, work, draft, draft_tp, efficiency, warnings)
    else:
        d = _mtp_modules(dep, work, mtp_layers, target)
    e_tokens = expected_tokens_per_step(alpha, gamma)
    fields = {
        "model": cfg.name,
        "draft": d.name,
        "draft_tp": draft_tp if draft is not None else None,
        "gamma": gamma,
        "alpha": alpha,
        "ctx": ctx,
        "batch": batch,
        "expected_tokens_per_step": e_tokens,
        "target_step_s": target,
        "draft_step_s": d.step_s,
        "verify_step_s": verify,
        "speculative_step_s": None,
        "tokens_per_s_plain": None,
        "tokens_per_s_speculative": None,
        "speedup": None,
        "draft_params": d.params,
        "draft_weights_bytes": whole(d.params * d.weight_bytes),
        "draft_kv_cache_bytes": whole(d.kv_bytes),
        "extra_memory_bytes": whole(d.params * d.weight_bytes + d.kv_bytes),
    }
    if target is not None:
        step = speculative_step_s(gamma, d.step_s, verify)
        fields.update(
            speculative_step_s=step,
            tokens_per_s_plain=batch / target,
            tokens_per_s_speculative=batch * e_tokens / step,
            speedup=speedup(alpha, gamma, target, d.step_s, verify),
        )
        if fields["speedup"] < 1:
            warnings.append(
                f"speculation is slower here ({fields['speedup']:.2f}×): the draft or the "
                "verification step costs more than the accepted tokens save"
            )
    return SpeculateReport(fields, warnings=warnings)


@dataclass(frozen=True)
class _Draft:
    """What proposes the tokens: its name, step time [s], parameters, bytes per weight and
    the KV it adds for the batch [bytes]."""

    name: str
    step_s: float
    params: int
    weight_bytes: float
    kv_bytes: float


def _draft_model(dep, work, draft, draft_tp: int, efficiency: str, warnings: list[str]) -> _Draft:
    """A separate draft model on ``draft_tp`` GPUs, in the target's dtypes."""
    if draft_tp not in (1, dep.tp):  # it runs on the target's GPUs: one, or all its TP
        raise InvalidInputError(
            f"--draft-tp {draft_tp}: the draft runs on 1 GPU or the target's --tp {dep.tp} "
            "(vLLM draft_tensor_parallel_size)"
        )
    from calc.deploy.deployment import Deployment
    from calc.deploy.steps import step_of
    from calc.formulas.elementwise import cdiv
    from calc.formulas.params import model_params

    cfg = dep.model
    if draft.vocab_size != cfg.vocab_size:
        warnings.append(
            f"draft {draft.name} has vocab_size {draft.vocab_size:,}, target "
            f"{cfg.vocab_size:,}: speculative decoding needs the same tokenizer"
        )
    try:
        d_dep = Deployment.build(
            draft,
            dep.hardware,
            tp=draft_tp,
            weight_dtype=dep.weight_override,
            kv_dtype=dep.kv_dtype if dep.kv_dtype != (cfg.kv_dtype or cfg.dtype) else None,
        )
    except InvalidInputError as exc:
        if draft_tp == 1:
            raise
        raise InvalidInputError(f"--draft-tp {draft_tp}: {exc}") from exc
    local = cdiv(work.batch, dep.replicas)
    return _Draft(
        draft.name,
        step_of(d_dep, efficiency, batch=local, ctx=work.ctx).time_s,
        model_params(draft).total,
        d_dep.weight_bytes_per_element,
        d_dep.layout.kv_bytes_per_sequence(work.ctx, d_dep.kv_bytes_per_element) * work.batch,
    )


def _mtp_modules(dep, work, mtp_layers: int, target_s: float) -> _Draft:
    """``mtp_layers`` MTP modules of the target: each runs one target-sized layer plus the
    shared lm_head per draft token."""
    cfg = dep.model
    per_layer = dep.layout.kv_bytes_per_token_per_layer(dep.kv_bytes_per_element)
    return _Draft(
        f"{mtp_layers} MTP module(s)",
        target_s * mtp_layers / cfg.n_layers,
        mtp_layers * mtp_module_params(cfg),
        dep.weight_bytes_per_element,
        per_layer * work.ctx * mtp_layers * work.batch,
    )
