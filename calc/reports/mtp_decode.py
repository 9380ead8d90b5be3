"""A decode step under MTP speculative decoding (DeepSeek-V3's multi-token prediction module as
the draft): the step's time [s], the tokens it emits per sequence [tokens] and the time per
output token [s].

One step with ``draft_tokens`` = γ (TensorRT-LLM's ``num_nextn_predict_layers``) verifies
each sequence's γ drafts and its own next token in one target pass of γ + 1 tokens a sequence
(``calc.reports.speculative.verify_step_time_s``: the KV read once), then drafts γ tokens for
the next step. DeepSeek-V3/R1 checkpoints hold one MTP module,
so γ > 1 runs it γ times in a chain (TensorRT-LLM's "MTP Eagle", tech blog 2, "MTP
implementation in TensorRT LLM": "call the same MTP module forward K times"): each draft pass is
one transformer layer of the target plus the shared lm_head, timed here as the decode step's
mean layer (its time less lm_head and embedding, over its layers) plus its lm_head. Left out:
the module's 2d × d projection and norms (one GEMM a pass), and its prefill of the prompt.

Tokens a step: with each draft accepted with probability α independently of the others,
E = (1 − α^(γ+1)) / (1 − α) (Leviathan et al. 2023, ``expected_tokens_per_step``).
α: ``MTP_ACCEPTANCE``, DeepSeek-V3 Technical Report (arXiv:2412.19437, its evaluation of
MTP for speculative decoding): "the acceptance rate of the second token prediction ranges
between 85% and 90% across various generation topics" (1.8× tokens per second). The lower end
is taken: no acceptance of the runs kvcalc checks is published, and they prompt random tokens
through a chat template, outside the module's pre-training distribution (ROCm/ATOM#609 argues
this lowers it). The chained drafts 2 and 3 are taken at the same α (the independence above):
nothing measured for DeepSeek-R1 says otherwise; an assumption, stated where it is used.
"""

from __future__ import annotations

from dataclasses import dataclass

# DeepSeek-V3 Technical Report: the second token's acceptance, 85-90%; the lower end (above)
MTP_ACCEPTANCE = 0.85


@dataclass(frozen=True)
class MtpDecode:
    """One MTP decode step of a batch."""

    step_s: float  # verify + γ draft passes [s]
    tokens_per_step: float  # expected tokens each sequence emits a step [tokens]
    draft_tokens: int  # γ
    acceptance: float  # α

    @property
    def token_s(self) -> float:
        """The step's time per output token of a sequence [s]."""
        return self.step_s / self.tokens_per_step


def draft_pass_s(step, n_layers: int) -> float:
    """One pass of the MTP module at a decode step's batch [s]: the step's mean layer (its time
    less lm_head and embedding, over the model's ``n_layers``) plus its lm_head and embedding."""
    head = sum(float(o.time_s) for o in step.ops if o.name in ("lm_head", "embedding"))
    return (float(step.time_s) - head) / n_layers + head


def mtp_decode(dep, efficiency: str = "expected", *, batch: int, ctx: float,
               draft_tokens: int, acceptance: float = MTP_ACCEPTANCE) -> MtpDecode:  # fmt: skip
    """An MTP decode step of ``batch`` sequences at context ``ctx`` [tokens] on ``dep``, each
    sequence verifying ``draft_tokens`` drafts (module docstring)."""
    from calc.deploy.steps import step_of
    from calc.reports.speculative import expected_tokens_per_step, verify_step_time_s

    dec = step_of(dep, efficiency, batch=batch, ctx=ctx)
    verify = verify_step_time_s(dep, efficiency, batch=batch, ctx=ctx, gamma=draft_tokens)
    if verify is None:  # no rates to re-time the ops at: the step of batch × (γ + 1) as it is
        verify = step_of(dep, efficiency, batch=batch * (draft_tokens + 1), ctx=ctx).time_s
    step = float(verify) + draft_tokens * draft_pass_s(dec, dep.model.n_layers)
    tokens = float(expected_tokens_per_step(acceptance, draft_tokens))
    return MtpDecode(step, tokens, draft_tokens, acceptance)
