"""SGLang's recurrent-state pool on hybrid models (Mamba-2 or gated DeltaNet layers beside
attention) [bytes, slots, requests]: one request's state, the slots its ``MambaPool`` gets, the
KV budget left, and the cap those slots put on running requests, by release
(``calc.deploy.engines.sglang.rules``: the ``state_*`` fields).

Read in the wheels of 0.5.3, 0.5.4, 0.5.5, 0.5.6 and 0.5.7 (the two flags only), 0.5.8, 0.5.9,
0.5.10, 0.5.13, 0.5.14, 0.5.15, 0.5.16, 0.5.17, 0.5.18, 0.5.19, 0.5.21 and 0.5.23
(``model_executor/model_runner.py``; from 0.5.8 ``model_runner_kv_cache_mixin.py``; from
0.5.16 ``mem_cache/kv_cache_configurator.py`` ``_handle_max_mamba_cache`` and
``resolve_max_num_reqs``; ``configs/mamba_utils.py`` ``mamba_cache_per_req``):

- one slot holds a request's state in every state layer of the GPU: the conv window
  (K − 1) × conv channels in bf16 (``SGLANG_MAMBA_CONV_DTYPE``) and the recurrent state in
  ``mamba_ssm_dtype`` (the model config's, else fp32);
- 0.5.3: the radix cache is turned off for these models and the pool holds
  ``--max-running-requests`` slots, else 512, taken from the KV budget; the running requests are
  capped at the slots;
- from 0.5.4, with the radix cache on: the budget is split, the state getting
  ``r / (1 + r)`` of it (``--mamba-full-memory-ratio`` r, 0.9) in whole slots
  (``int(budget × r / (1 + r) // per_request)``; from 0.5.17 one padding slot more is paid
  for, ``int((share − per_request) // per_request)``), the KV pool the rest; the running
  requests are capped at ``slots // ratio``, ratio = 3 (a request's own slot and the radix
  cache's, ``MAMBA_CACHE_SIZE_MAX_RUNNING_REQUESTS_RATIO``) + 2 from 0.5.14 (``auto`` resolves
  to the ``extra_buffer`` strategy under the overlap scheduler: a ping-pong pair per request);
- with the radix cache off (``--disable-radix-cache``): ``--max-running-requests`` slots, else
  512 (0.5.4-0.5.8) or the ratio split (from 0.5.9), ratio 1;
- ``--mamba-ssm-dtype`` (float32, bfloat16; float16 from 0.5.9): the recurrent state's dtype
  (``SGLANG_MAMBA_SSM_DTYPE``, which ``mamba2_state_dtype`` reads after the config), so the
  slot's recurrent bytes; 0.5.3-0.5.8 default it to float32 (the config's ignored), from 0.5.9
  to None (the config's ``mamba_ssm_dtype``, else float32);
- ``--max-mamba-cache-size N`` (the server's total): N // attention-DP ranks slots in place of
  the split or the fixed count (0.5.3 always; 0.5.4-0.5.6 only with the radix cache off, the
  split overwriting it otherwise; from 0.5.7 first, whatever the radix cache), its bytes
  (+ the padding slot from 0.5.17) taken from the budget; the running cap stays slots // ratio.
"""

from __future__ import annotations

from typing import NamedTuple

# --mamba-full-memory-ratio's default (server_args.py, 0.5.4-0.5.23)
MAMBA_FULL_MEMORY_RATIO = 0.9
# the fixed pool without a radix cache and without --max-running-requests (0.5.3-0.5.8)
FIXED_SLOTS = 512
# slots per running request with the radix cache on (kv_cache_configurator.py
# MAMBA_CACHE_SIZE_MAX_RUNNING_REQUESTS_RATIO, 0.5.4-0.5.23)
RADIX_SLOTS_PER_REQUEST = 3
# the conv window's bytes per element (SGLANG_MAMBA_CONV_DTYPE bfloat16) and the recurrent
# state's when the model config names no mamba_ssm_dtype (mamba2_state_dtype: float32)
CONV_BYTES = 2
SSM_BYTES_DEFAULT = 4


class StatePool(NamedTuple):
    """SGLang's state pool on one GPU: its slots, the bytes they take, one slot's bytes, the KV
    budget left, the cap on running requests and the slots a running request holds."""

    slots: int
    pool_bytes: float
    bytes_per_slot: float
    kv_budget_bytes: float
    running_cap: int
    slots_per_request: int
    rule: str  # how the slots were chosen, for the derivation


def state_bytes_per_request(conv_elements, recurrent_elements, recurrent_bytes,
                            conv_bytes=CONV_BYTES):  # fmt: skip
    """``mamba_cache_per_req`` [bytes]: conv elements × their bytes + recurrent elements ×
    theirs, summed over the GPU's state layers."""
    return conv_elements * conv_bytes + recurrent_elements * recurrent_bytes


def ratio_slots(budget_bytes, per_request, ratio=MAMBA_FULL_MEMORY_RATIO, padding=False) -> int:
    """Slots of the ratio split [slots]: the state's share ``budget × r / (1 + r)`` in whole
    slots, less the padding slot the release pays for (``padding``)."""
    share = max(budget_bytes, 0) * ratio / (1 + ratio)
    return max(int((share - per_request * padding) // per_request), 0)


def slots_per_running_request(radix_cache: bool, tracking_slots: int) -> int:
    """Slots one running request holds in the cap ``slots // ratio`` (``_calculate_mamba_ratio``):
    1 without the radix cache, else 3 + the strategy's tracking slots."""
    return RADIX_SLOTS_PER_REQUEST + tracking_slots if radix_cache else 1


def state_pool(rules, budget_bytes: float, per_request: float, *, radix_cache: bool,
               max_running: int | None, mamba2: bool = False,
               ratio: float = MAMBA_FULL_MEMORY_RATIO,
               max_cache: int | None = None) -> StatePool:  # fmt: skip
    """The state pool ``rules`` (an ``SglangRules``) builds from ``budget_bytes`` (the rest
    memory before it) at ``per_request`` bytes a slot [slots, bytes]; ``max_running``: the
    user's ``--max-running-requests`` per attention-DP rank; ``mamba2``: a Mamba-2 model, whose
    radix cache 0.5.4 and 0.5.5 turn off; ``max_cache``: the user's ``--max-mamba-cache-size``
    per attention-DP rank (the slots where the release takes it: ``stated_slots_taken``)."""
    radix = radix_cache and rules.state_pool == "ratio" and not (mamba2 and rules.mamba2_radix_off)
    if max_cache is not None and stated_slots_taken(rules, radix):
        slots, rule = int(max_cache), "--max-mamba-cache-size"
        paid = (slots + rules.state_padding_slot) * per_request
        per_running = slots_per_running_request(radix, rules.state_tracking_slots)
        return StatePool(slots, float(paid), float(per_request), budget_bytes - paid,
                         slots // per_running, per_running, rule)  # fmt: skip
    fixed = not radix and (max_running is not None or rules.state_radix_off_slots is not None)
    if fixed:
        slots = max_running if max_running is not None else int(rules.state_radix_off_slots)
        rule = "--max-running-requests" if max_running is not None else "fixed"
    else:
        slots = ratio_slots(budget_bytes, per_request, ratio, rules.state_padding_slot)
        rule = "ratio"
    paid = (slots + rules.state_padding_slot) * per_request  # from 0.5.17: + the padding slot
    per_running = slots_per_running_request(radix, rules.state_tracking_slots)
    return StatePool(int(slots), float(paid), float(per_request), budget_bytes - paid,
                     int(slots) // per_running, per_running, rule)  # fmt: skip


def stated_slots_taken(rules, radix: bool) -> bool:
    """Whether the release sizes the pool by a stated ``--max-mamba-cache-size``
    (``rules.state_size_flag``): "always" (0.5.3, and from 0.5.7: checked first), "radix_off"
    (0.5.4-0.5.6: only without the radix cache; with it the split overwrites the flag)."""
    return rules.state_size_flag == "always" or not radix


def recurrent_state_bytes(rules, config_dtype: str | None, stated: str | None) -> float:
    """Bytes per element of the recurrent state [bytes]: ``--mamba-ssm-dtype`` where stated
    (``stated``: kvcalc's name, fp32 / bf16 / fp16), else the model config's ``mamba_ssm_dtype``
    where the release reads it (``rules.state_dtype_from_config``, from 0.5.9), else fp32."""
    from calc.data.dtypes import bytes_per_element

    if stated is not None:
        return bytes_per_element(stated)
    if config_dtype and rules.state_dtype_from_config:
        return bytes_per_element(config_dtype)
    return SSM_BYTES_DEFAULT


def running_cap_note(release: str, pool: StatePool, tokens: int) -> str:
    """The line kvcalc prints about the state pool (capacity, simulate)."""
    share = {
        "ratio": f"{MAMBA_FULL_MEMORY_RATIO:g} / {1 + MAMBA_FULL_MEMORY_RATIO:g} of the budget",
        "fixed": "fixed without a radix cache",
        "--max-running-requests": "one per --max-running-requests",
        "--max-mamba-cache-size": "as --max-mamba-cache-size states",
    }[pool.rule]
    return (
        f"sglang {release}'s hybrid state pool: {pool.slots:,} slots of "
        f"{pool.bytes_per_slot / 2**20:,.1f} MiB ({share}, {pool.pool_bytes / 2**30:,.2f} GiB), "
        f"KV pool {tokens:,} tokens; running requests capped at {pool.slots:,} // "
        f"{pool.slots_per_request} = {pool.running_cap:,}"
    )


def model_state_bytes(cfg, tp: int, pp: int, recurrent: float | None = None) -> float:
    """``mamba_cache_per_req`` of ``cfg`` on one GPU of tp × pp [bytes]: the state layers of
    the first (largest) stage, each a 1/tp share of its heads (``Mamba2StateShape.create``:
    conv channels and recurrent heads divided by tp), conv in bf16, recurrent state at
    ``recurrent`` bytes an element (``recurrent_state_bytes``; None: the config's recurrent
    dtype, else fp32)."""
    from calc.data.dtypes import bytes_per_element
    from calc.data.model_schema import SSM_LAYER_TYPES
    from calc.formulas.ssm import mixer_shape

    stage = cfg.layers[: -(-cfg.n_layers // pp)]
    if recurrent is None:
        recurrent = bytes_per_element(config_state_dtype(cfg) or "fp32")
    total = 0.0
    for kind in SSM_LAYER_TYPES:
        n = sum(1 for k in stage if k == kind)
        if n:
            m = mixer_shape(cfg, kind, tp)
            total += n * state_bytes_per_request(m.conv_elements, m.recurrent_elements, recurrent)
    return total


def config_state_dtype(cfg) -> str | None:
    """The recurrent state's dtype the model config names (``recurrent_dtype`` of its ssm or
    linear_attention block: the config's ``mamba_ssm_dtype``), or None."""
    block = cfg.ssm if cfg.ssm is not None else cfg.linear_attention
    return getattr(block, "recurrent_dtype", None)
