"""What TensorRT-LLM's releases take as ``kv_cache_config.tokens_per_block`` [tokens] and
``kv_cache_config.dtype`` (kvcalc's KV dtype -> TensorRT-LLM's value) in the
``--extra_llm_api_options`` YAML, from each release's published trtllm-serve reference and
llm_args.py (tests/data/engine_options/trtllm-*.json) (calc.deploy.engines.accepts)."""

from __future__ import annotations

from calc.deploy.engines.accepts import KvRule, PageRule
from calc.deploy.host_costs import VersionRange

# 1.0.0's KvCacheConfig has no tokens_per_block (rules.py kv_tokens_per_block_key): its blocks
# hold 32 tokens; from 1.1.0 an int, which the KV cache manager takes only as a power of two
# (docs/source/advanced/kv-cache-reuse.md: "tokens_per_block must be a power of 2")
POWER_OF_TWO = "docs/source/advanced/kv-cache-reuse.md: 'tokens_per_block must be a power of 2'"
FLAG = "kv_cache_config.tokens_per_block"
PAGE_RULES = (
    (VersionRange(high="1.1.0"), PageRule(FLAG, only=32)),
    (VersionRange(low="1.1.0"), PageRule(FLAG, power_of_two=True, why=POWER_OF_TWO)),
)

# KvCacheConfig.dtype: auto or fp8 at every modelled release (the captured YAML tables)
KV_RULES = ((VersionRange(), KvRule("kv_cache_config.dtype", {"fp8": "fp8"})),)
