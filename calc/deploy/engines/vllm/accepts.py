"""What vLLM's releases take as ``--block-size`` [tokens] and ``--kv-cache-dtype`` (kvcalc's
KV dtype -> vLLM's value), from each release's parser (tests/data/engine_options/vllm-*.json,
read from the wheels by tools/capture_engine_options.py) and, where the parser takes any
positive block size, its start-up code (calc.deploy.engines.accepts)."""

from __future__ import annotations

from calc.deploy.engines.accepts import KvRule, PageRule
from calc.deploy.host_costs import VersionRange

# the CUDA attention kernels vLLM runs page in multiples of 16 tokens: FlashAttention's and
# Triton's backends declare MultipleOf(16), FlashInfer's 16, 32 and 64
# (get_supported_kernel_block_sizes, v1/attention/backends/), and from 0.18.0, whose
# CacheConfig.block_size is any int > 0 (config/cache.py, no choices in the parser),
# select_common_block_size (v1/worker/utils.py) stops the start-up with 'No common block size'
# where none of them divides the block
KERNEL_PAGES = ("its CUDA attention kernels (FlashAttention, FlashInfer, Triton) page in "
                "multiples of 16 tokens")

BLOCK = "--block-size"
PAGE_RULES = (
    # CacheConfig BlockSize = Literal[1, 8, 16, 32, 64, 128] (parser choices 0.10.0-0.11.0)
    (VersionRange(high="0.11.1"),
     PageRule(BLOCK, choices=(1, 8, 16, 32, 64, 128), warn_multiple=16, why=KERNEL_PAGES)),
    # 256 added at 0.11.1 (parser choices 0.11.1-0.17.1)
    (VersionRange("0.11.1", "0.18.0"),
     PageRule(BLOCK, choices=(1, 8, 16, 32, 64, 128, 256), warn_multiple=16, why=KERNEL_PAGES)),
    (VersionRange(low="0.18.0"), PageRule(BLOCK, multiple=16, why=KERNEL_PAGES)),
)  # fmt: skip

# kvcalc's KV dtypes by vLLM's --kv-cache-dtype value beyond "auto" (the parser's choices):
# fp8 at every release; the per-token-head caches (one 4-byte scale per token per head, as
# calc.formulas.quant sizes them) from 0.20.0, int4 from 0.25.0
KV = "--kv-cache-dtype"
_TOKEN_HEAD = {"fp8-token-head": "fp8_per_token_head", "int8-token-head": "int8_per_token_head"}
KV_RULES = (
    (VersionRange(high="0.20.0"), KvRule(KV, {"fp8": "fp8"})),
    (VersionRange("0.20.0", "0.25.0"), KvRule(KV, {"fp8": "fp8", **_TOKEN_HEAD})),
    (VersionRange(low="0.25.0"),
     KvRule(KV, {"fp8": "fp8", **_TOKEN_HEAD, "int4-token-head": "int4_per_token_head"})),
)  # fmt: skip


def scheduler_refusal(dep) -> str | None:
    """Why vLLM refuses ``dep``'s stated step budget (``--max-batched-tokens``) or sequences
    (``--max-num-seqs``), or None: SchedulerConfig (config/scheduler.py, every modelled
    release) raises where max_num_batched_tokens < max_num_seqs."""
    ec, stated = dep.engine_config, dep.engine
    if stated.max_batched_tokens is None and stated.max_num_seqs is None:
        return None  # the release's own defaults, which it accepts
    if ec.max_batched_tokens < ec.max_num_seqs:
        return (f"vLLM {ec.version} refuses --max-batched-tokens {ec.max_batched_tokens:,} below "
                f"--max-num-seqs {ec.max_num_seqs:,} (SchedulerConfig: max_num_batched_tokens "
                "must be at least max_num_seqs); raise the one or lower the other")  # fmt: skip
    return None


def scheduler_note(dep, ec) -> str | None:
    """A warning where vLLM would refuse to start ``dep``'s stated step budget with chunked
    prefill off: SchedulerConfig raises where max_num_batched_tokens is below max_model_len
    (kvcalc sizes it as asked, each longer prompt refused by the server); ``ec``: its
    settings resolved (EngineConfig)."""
    length = ec.max_model_len or dep.model.max_ctx
    if dep.engine.max_batched_tokens is None or ec.chunked_prefill:
        return None
    if ec.max_batched_tokens >= length:
        return None
    return (f"vLLM {ec.version} refuses to start with --max-batched-tokens "
            f"{ec.max_batched_tokens:,} below its max model length {length:,} and chunked "
            "prefill off (SchedulerConfig); its command needs --max-model-len at most the "
            "budget")  # fmt: skip
