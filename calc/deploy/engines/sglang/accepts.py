"""What SGLang's releases take as ``--page-size`` [tokens] and ``--kv-cache-dtype`` (kvcalc's
KV dtype -> SGLang's value), from each release's parser (tests/data/engine_options/
sglang-*.json, read from the wheels by tools/capture_engine_options.py) and its KV pools
(calc.deploy.engines.accepts)."""

from __future__ import annotations

from calc.deploy.engines.accepts import KvRule, PageRule
from calc.deploy.host_costs import VersionRange

# before 0.4.4 the parser has no --page-size: every page holds one token (TokenToKVPool); from
# 0.4.4 it is an int with no choices (server_args.py), any positive size
PAGE_RULES = (
    (VersionRange(high="0.4.4"), PageRule("--page-size", only=1)),
    (VersionRange(low="0.4.4"), PageRule("--page-size")),
)

# kvcalc's KV dtypes by SGLang's --kv-cache-dtype value beyond "auto" (the parser's choices):
# fp8_e5m2 alone at 0.4.0-0.4.1, fp8_e4m3 from 0.4.2; fp4_e2m1 at 0.5.5-0.5.20, whose pool
# (MHATokenToKVPoolFP4, mem_cache/memory_pool.py) keeps a 1-byte scale per 16 values beside
# them (k_scale_buffer, v_scale_buffer: scale_block_size 16); 0.5.21 dropped it (nvfp4 and
# fp4_mx_block16 remain, block-scaled caches kvcalc has no KV format for)
KV = "--kv-cache-dtype"
FP4_SCALES = ("SGLang's fp4_e2m1 cache keeps a 1-byte scale per 16 values (MHATokenToKVPoolFP4) "
              "that kvcalc's plain fp4 does not size: its pool holds about 11% fewer tokens "
              "(0.5 + 1/16 bytes a value, not 0.5)")  # fmt: skip
KV_RULES = (
    (VersionRange(high="0.4.2"), KvRule(KV, {"fp8": "fp8_e5m2"})),
    (VersionRange("0.4.2", "0.5.5"), KvRule(KV, {"fp8": "fp8_e4m3"})),
    (VersionRange("0.5.5", "0.5.21"),
     KvRule(KV, {"fp8": "fp8_e4m3", "fp4": "fp4_e2m1"}, {"fp4": FP4_SCALES})),
    (VersionRange(low="0.5.21"), KvRule(KV, {"fp8": "fp8_e4m3"})),
)  # fmt: skip
