"""The lines an SGLang start-up log prints that kvcalc reads: the settings it states (its
``ServerArgs`` dump, the launch command) and the memory figures it prints [bytes, tokens]. SGLang
prints "GB" but computes bytes / 2^30: read as GiB."""

from __future__ import annotations

import re

from calc.deploy.engines.base import LogReader
from calc.deploy.engines.logscan import (
    GIB,
    NUM,
    Line,
    dict_items,
    flags,
    integer,
    key_values,
    number,
    put_setting,
    read_printed,
    search,
)

CONFIG = {
    "model_path": "model",
    "tp_size": "tp",
    "pp_size": "pp",
    "dp_size": "dp",
    "attn_dp_size": "attn_dp",  # 0.5.22+: dp_size 1 beside it
    "ep_size": "ep",
    "enable_dp_attention": "dp_attention",
    "mem_fraction_static": "memory_fraction",
    "context_length": "max_model_len",
    "chunked_prefill_size": "max_batched_tokens",
    "max_running_requests": "max_num_seqs",
    "page_size": "block_size",
    "kv_cache_dtype": "kv_cache_dtype",
    "dtype": "dtype",
    "quantization": "quantization",
    "cuda_graph_max_bs": "cuda_graph_max_bs",
    "disable_cuda_graph": "enforce_eager",
    # 0.5.2+ (arg_groups/fields/schedule.py in 0.5.23: an int, default 1)
    "scheduler_recv_interval": "recv_interval",
    # 0.5.2+: hybrid models' state pool (0.5.3-0.5.8 print their default 'float32', which is
    # what they run; from 0.5.9 None unless stated)
    "mamba_ssm_dtype": "mamba_ssm_dtype",
    "max_mamba_cache_size": "max_mamba_cache_size",
    # every release (16384 by default): one prefill batch's new prompt tokens
    "max_prefill_tokens": "max_prefill_tokens",
    # every release from 0.5.2: the fused-MoE runner, printed resolved (the model overrides of
    # __post_init__ turn 'auto' into 'flashinfer_trtllm' before engine.py logs the dump; 0.5.16
    # materialize_declarations writes the resolved value back, 0.5.23 logs resolved_dict());
    # 'auto' left is quantization/fp8.py create_moe_runner's own pick (calc.deploy.engines.
    # sglang.moe_runner)
    "moe_runner_backend": "moe_backend",
    # every 0.5.x release: the MoE all-to-all backend ('none' by default: the DP-attention
    # gather and scatter; 'deepep' DeepEP's dispatch and combine), on the dump as stated
    "moe_a2a_backend": "moe_a2a_backend",
}
FLAGS = {
    "--model": "model",
    "--model-path": "model",
    "--tp": "tp",
    "--tp-size": "tp",
    "--tensor-parallel-size": "tp",
    "--pp-size": "pp",
    "--pipeline-parallel-size": "pp",
    "--dp": "dp",
    "--dp-size": "dp",
    "--data-parallel-size": "dp",
    "--ep": "ep",
    "--ep-size": "ep",
    "--expert-parallel-size": "ep",
    "--enable-dp-attention": "dp_attention",
    "--attn-dp-size": "attn_dp",
    "--mem-fraction-static": "memory_fraction",
    "--context-length": "max_model_len",
    "--chunked-prefill-size": "max_batched_tokens",
    "--max-running-requests": "max_num_seqs",
    "--page-size": "block_size",
    "--kv-cache-dtype": "kv_cache_dtype",
    "--dtype": "dtype",
    "--quantization": "quantization",
    "--cuda-graph-max-bs": "cuda_graph_max_bs",
    "--disable-cuda-graph": "enforce_eager",
    "--scheduler-recv-interval": "recv_interval",
    "--mamba-ssm-dtype": "mamba_ssm_dtype",
    "--max-mamba-cache-size": "max_mamba_cache_size",
    "--max-prefill-tokens": "max_prefill_tokens",
    "--moe-runner-backend": "moe_backend",
    "--moe-a2a-backend": "moe_a2a_backend",
}
# SGLang's moe_a2a_backend -> kvcalc's EngineSettings.moe_a2a (calc.deploy.moe_pipeline
# EP_COMMS): 'none' moves the tokens by the DP-attention gather and the outputs by its scatter
# (layers/dp_attention.py), kvcalc's gather; 'deepep' DeepEP's kernels. Any other value
# (mooncake, nixl, mori, flashinfer, ...: the 0.5.16 / 0.5.21 option tables' choices) is
# left unset, and deployment_from_log says so
A2A = {"none": "gather", "deepep": "deepep"}
# settings a dump prints resolved where a command line states 'auto': the resolved value wins
RESOLVED = frozenset({"moe_backend"})
# later 0.5.x releases print the pool's dtype before its size (0.5.23 mem_cache/memory_pool.py:
# "KV Cache is allocated. dtype: torch.bfloat16, #tokens: N, K size: ...")
_ALLOCATED = r"KV Cache is allocated\. (?:dtype: [\w.]{1,40}, )?#tokens: "
POOL = re.compile(_ALLOCATED + NUM + r", K size: " + NUM + r" GB, V size: " + NUM + r" GB")
POOL_MLA = re.compile(_ALLOCATED + NUM + r", KV size: " + NUM + r" GB")
WEIGHTS = re.compile(r"Load weight end\..{0,300}?avail mem=" + NUM + r" GB, mem usage=" + NUM
                     + " GB")  # fmt: skip
INIT = re.compile(r"Init torch distributed ends\. mem usage=" + NUM + " GB")
MAX_TOKENS = re.compile(r"max_total_num_tokens=" + NUM)
# the model overrides' own line naming the runner they chose (0.5.16 arg_groups/overrides.py,
# 0.5.23 arg_groups/model_overrides/*.py: "Use flashinfer_trtllm as MoE runner backend on sm100
# for DeepseekV3ForCausalLM"; "on SM100", "on Blackwell", "for ..." by model)
RUNNER = re.compile(r"Use ([a-z0-9_]{1,40}) as MoE runner backend")
RUNNER_ANCHOR = "as MoE runner backend"
# figures of one number each: (anchor, pattern, key, unit)
PRINTED = (("Init torch distributed ends", INIT, "non_torch_bytes", GIB),)
VERSION = re.compile(r"(?:sglang|SGLang)(?:==| version:? | v)v?([0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}"
                     r"(?:[a-z0-9.+-]{0,40})?)")  # fmt: skip
COMMAND = re.compile(r"sglang\.launch_server|sglang serve")
# 0.5.20+ print the resolved settings as a dict, not the dataclass: entrypoints/engine.py
# logger.info(f"server_args={server_args.resolved_dict()}") (0.5.20; 0.5.22-0.5.23 the same
# dict through _server_args_for_logging), so "'tp_size': 4" where older ones print "tp_size=4"
DICT_DUMP = "server_args={"
# a line holding one of these is read as a command line too (a flag quoted alone)
FLAG_ANCHORS = ("--mem-fraction-static", "--scheduler-recv-interval", "--mamba-ssm-dtype",
                "--max-mamba-cache-size", "--max-prefill-tokens",
                "--moe-runner-backend", "--moe-a2a-backend")  # fmt: skip

MARKERS = ("KV Cache is allocated", "sglang.launch_server", "ServerArgs(", DICT_DUMP,
           "Load weight end", "max_total_num_tokens=")  # fmt: skip


# every line a pattern above can match holds one of these (the reader's prefilter)
ANCHORS = (*MARKERS, "Init torch distributed ends", "--mem-fraction-static", "sglang", "SGLang",
           "KV size", "--scheduler-recv-interval", "--mamba-ssm-dtype",
           "--max-mamba-cache-size", "--max-prefill-tokens", "--moe-runner-backend",
           "--moe-a2a-backend", RUNNER_ANCHOR)  # fmt: skip


class SglangLogReader(LogReader):
    """SGLang's start-up log (``calc.deploy.engines.base.LogReader``)."""

    engine, anchors, markers, versions = "sglang", ANCHORS, MARKERS, (VERSION,)

    def read(self, line: Line) -> bool:
        f, s, text = self.f, self.f.settings, line.text
        hit = False
        if (m := search(POOL, line, "KV Cache is allocated")) is not None:
            f.printed["tokens"] = integer(m.group(1))
            f.printed["kv_pool_bytes"] = (number(m.group(2)) + number(m.group(3))) * GIB
            hit = True
        elif (m := search(POOL_MLA, line, "KV Cache is allocated")) is not None:
            f.printed["tokens"] = integer(m.group(1))
            f.printed["kv_pool_bytes"] = number(m.group(2)) * GIB
            hit = True
        if (m := search(WEIGHTS, line, "Load weight end")) is not None:
            f.printed["weights_bytes"] = number(m.group(2)) * GIB
            f.printed["free_after_weights_bytes"] = number(m.group(1)) * GIB
            hit = True
        hit |= read_printed(f.printed, line, PRINTED)
        pairs = key_values(text.split("ServerArgs(", 1)[1], CONFIG) if "ServerArgs(" in text \
            else dict_items(text.split(DICT_DUMP, 1)[1], CONFIG) if DICT_DUMP in text \
            else {}  # fmt: skip
        for key, name in CONFIG.items():
            if key in pairs:
                resolved = name in RESOLVED and pairs[key] != "auto"
                hit |= put_setting(s, name, pairs[key], override=resolved)
        hit |= _a2a(s, pairs.get("moe_a2a_backend"))
        if "moe_runner_backend" in pairs and s.get("moe_backend") == pairs["moe_runner_backend"]:
            s["moe_backend_resolved"] = True  # the dump's: after the model overrides
        if COMMAND.search(text) or any(f in text for f in FLAG_ANCHORS):
            stated = flags(text.split(), FLAGS)
            for name, value in stated.items():
                hit |= put_setting(s, name, value, override=not (name in RESOLVED
                                                                 and value == "auto"))
            hit |= _a2a(s, stated.get("moe_a2a_backend"))
        if (m := search(RUNNER, line, RUNNER_ANCHOR)) is not None:
            hit |= put_setting(s, "moe_backend", m.group(1))
            s["moe_backend_resolved"] = True
        if (m := search(MAX_TOKENS, line, "max_total_num_tokens=")) is not None:
            f.printed.setdefault("tokens", integer(m.group(1)))
            hit = True
        return hit


def _a2a(s: dict, said) -> bool:
    """Store the MoE all-to-all backend a line states (``said``, its default 'none' included,
    which ``put_setting`` drops as an unset value) and kvcalc's name for it (``A2A``; none
    where kvcalc times no such traffic)."""
    if not isinstance(said, str) or not 0 < len(said) <= 40:
        return False
    s["moe_a2a_backend"] = said
    s.pop("moe_a2a", None)
    if said.lower() in A2A:
        s["moe_a2a"] = A2A[said.lower()]
    return True
