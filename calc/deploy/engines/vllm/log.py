"""The lines a vLLM start-up log prints (0.6 V0 to 0.33 V1) that kvcalc reads: the settings
it states and the memory figures it prints [bytes, tokens, requests]."""

from __future__ import annotations

import re

from calc.deploy.engines.base import LogFacts, LogReader
from calc.deploy.engines.logscan import (
    GIB,
    NUM,
    Line,
    dict_items,
    flags,
    integer,
    key_values,
    literal_dict,
    number,
    put_setting,
    read_printed,
    search,
)

# non-default args / LLM(...) keyword -> kvcalc setting
ARGS = {
    "model": "model",
    "model_tag": "model",
    "tensor_parallel_size": "tp",
    "pipeline_parallel_size": "pp",
    "data_parallel_size": "dp",
    "enable_expert_parallel": "expert_parallel",
    "gpu_memory_utilization": "memory_fraction",
    "max_model_len": "max_model_len",
    "max_num_batched_tokens": "max_batched_tokens",
    "max_num_seqs": "max_num_seqs",
    "block_size": "block_size",
    "kv_cache_dtype": "kv_cache_dtype",
    "dtype": "dtype",
    "quantization": "quantization",
    "enforce_eager": "enforce_eager",
    "enable_prefix_caching": "prefix_caching",
    "moe_backend": "moe_backend",  # 0.2x+ --moe-backend (KernelConfig.moe_backend, 'auto')
}
CONFIG = {  # "with config:" dump keys
    "model": "model",
    "tensor_parallel_size": "tp",
    "pipeline_parallel_size": "pp",
    "data_parallel_size": "dp",
    "max_seq_len": "max_model_len",
    "kv_cache_dtype": "kv_cache_dtype",
    "quantization": "quantization",
    "dtype": "dtype",
    "enforce_eager": "enforce_eager",
}
FLAGS = {
    "--tensor-parallel-size": "tp",
    "-tp": "tp",
    "--pipeline-parallel-size": "pp",
    "-pp": "pp",
    "--data-parallel-size": "dp",
    "-dp": "dp",
    "--enable-expert-parallel": "expert_parallel",
    "--gpu-memory-utilization": "memory_fraction",
    "--max-model-len": "max_model_len",
    "--max-num-batched-tokens": "max_batched_tokens",
    "--max-num-seqs": "max_num_seqs",
    "--block-size": "block_size",
    "--kv-cache-dtype": "kv_cache_dtype",
    "--dtype": "dtype",
    "--quantization": "quantization",
    "-q": "quantization",
    "--enforce-eager": "enforce_eager",
    "--moe-backend": "moe_backend",
}

G = r" ?GiB"
PRINTED = (  # (anchor, pattern, printed key, unit)
    ("Model loading took", re.compile(r"Model loading took " + NUM + r" ?(GiB|GB)"),
     "weights_bytes", GIB),
    ("torch peak memory increase", re.compile(r"torch peak memory increase: " + NUM + G),
     "activation_bytes", GIB),
    ("non-torch forward increase", re.compile(r"non-torch forward increase memory: " + NUM + G),
     "non_torch_bytes", GIB),
    ("total consumed", re.compile(r"total consumed \(from mem_get_info\): " + NUM + G),
     "total_consumed_bytes", GIB),
    ("Total non KV cache memory", re.compile(r"Total non KV cache memory: " + NUM + G),
     "non_kv_bytes", GIB),
    ("weights memory:", re.compile(r"weights memory: " + NUM + G), "weights_bytes", GIB),
    ("Available KV cache memory", re.compile(r"Available KV cache memory: " + NUM + G),
     "kv_budget_bytes", GIB),
    ("Estimated CUDA graph memory", re.compile(r"Estimated CUDA graph memory: " + NUM + G),
     "cuda_graph_bytes", GIB),
    ("GPU KV cache size", re.compile(r"GPU KV cache size: " + NUM + r" tokens"), "tokens", 1),
    ("num_gpu_blocks is", re.compile(r"num_gpu_blocks is: " + NUM), "blocks", 1),
    ("# GPU blocks", re.compile(r"# GPU blocks: " + NUM), "blocks", 1),
    # V0 (0.6) memory profile lines
    ("total_gpu_memory", re.compile(r"total_gpu_memory\s{0,40}\(?" + NUM + r"\)?" + G),
     "total_memory_bytes", GIB),
    ("model weights take", re.compile(r"model weights take\s{0,40}" + NUM + G),
     "weights_bytes", GIB),
    ("non_torch_memory", re.compile(r"non_torch_memory(?: takes)?\s{0,40}" + NUM + G),
     "non_torch_bytes", GIB),
    ("activation peak memory", re.compile(r"activation peak memory(?: takes)?\s{0,40}" + NUM + G),
     "activation_bytes", GIB),
    ("available_kv_cache_memory", re.compile(r"available_kv_cache_memory\s{0,40}" + NUM + G),
     "kv_budget_bytes", GIB),
    ("reserved for KV Cache is", re.compile(r"reserved for KV Cache is " + NUM + G),
     "kv_budget_bytes", GIB),
)  # fmt: skip
CONCURRENCY = re.compile(r"Maximum concurrency for " + NUM + r" tokens per request: " + NUM + "x")
REQUESTED = re.compile(r"Requested memory: " + NUM + r" \(util\), " + NUM + G)
TOTAL_UTIL_V0 = re.compile(
    r"total_gpu_memory \(" + NUM + G + r"\) x gpu_memory_utilization \(" + NUM + r"\)"
)
CHUNKED = re.compile(r"max_num_batched_tokens=" + NUM)
UTIL_LATER = re.compile(r"The current --gpu-memory-utilization=" + NUM)
UTIL_V0 = re.compile(r"gpu_memory_utilization\s{1,40}" + NUM + r"(?![0-9.,])")
VERSION = re.compile(
    r"(?:vLLM API server version|LLM engine \(v|vllm version|vLLM version)\s{0,4}v?"
    r"([0-9]{1,3}\.[0-9]{1,3}(?:\.[0-9]{1,3})?(?:[a-z0-9.+-]{0,40})?)"
)
BANNER = re.compile(r"[\u2580-\u259f]\s{1,8}version ([0-9]{1,3}\.[0-9]{1,3}(?:\.[0-9]{1,3})?)")
SNAPSHOT_TOTAL = re.compile(r"memory snapshot: .{0,200}?total_memory=" + NUM + G)
GRAPHS = re.compile(r"Profiling CUDA graph memory: PIECEWISE=" + NUM + r"(?: \(largest=" + NUM
                    + r"\))?(?:, FULL=" + NUM + r")?")  # fmt: skip
# the start-up report after graph capture (gpu_worker.py compile_or_warm_up_model, 0.10-0.33) and
# the refusal when the GPU is short (v1/worker/utils.py): the device's free and total memory
# [GiB, 2 decimals], then the utilisation as configured (a Python float: "0.9", "0.92")
FREE_ON_DEVICE = re.compile(r"Free memory on device (?:[\w:]{1,20} )?\(" + NUM + "/" + NUM + G
                            + r"\) on startup.{0,60}?(?:utilization is|utilization) \(" + NUM
                            + r", " + NUM + G + r"\)")  # fmt: skip
# what that report says was in use: 0.2x-0.33 "C GiB for consumed memory (weights + non-torch)"
# (the profile's total consumed); 0.10-0.1x "W GiB for weight, A GiB for peak activation, N GiB
# for non-torch memory"
CONSUMED_REPORT = re.compile(r"Actual usage is " + NUM + G + r" for consumed memory")
USAGE_REPORT = re.compile(r"Actual usage is " + NUM + G + r" for weight, " + NUM + G
                          + r" for peak activation, " + NUM + G
                          + r" for non-torch memory")  # fmt: skip
# the report's KV budget: in GiB from 0.11, in bytes before ("... is 47878721024 bytes.")
KV_IN_USE = re.compile(r"Current kv cache memory in use is " + NUM + r" ?(GiB|bytes)")
# 0.19's notice and 0.2x-0.33's warning with the CUDA-graph estimate off: "increase (or
# increasing) --gpu-memory-utilization from 0.9000 to 0.9596"
UTIL_FROM = re.compile(r"--gpu-memory-utilization from " + NUM + r" to " + NUM)
ASYNC = re.compile(r"Asynchronous scheduling is (enabled|disabled)")
# torch.compile at start-up (compilation/backends.py, 0.6-0.33): Inductor compiled a graph
# afresh ("Compiling a graph for dynamic shape takes" to 0.1x, "... for compile range (1, N)
# takes" after) or loaded the compiled graphs from vLLM's cache ("Directly load the compiled
# graph(s) for ... from the cache"); a compile of any graph makes the start cold
COMPILED = "Compiling a graph for"
LOADED = "Directly load the compiled graph"
# the fused-MoE backend the oracle chose for the routed experts, once per process
# (fused_moe/oracle/*.py _make_log_backend; the name is the backend enum's value): 0.16.0
# "Using FLASHINFER_CUTLASS Fp8 MoE backend out of potential backends: [...]", "Using
# 'FLASHINFER_TRTLLM' NvFp4 MoE backend out of ...", "Using TRITON backend for Unquantized
# MoE"; 0.33.0 the same for Fp8 and NvFp4, "Using TRITON Unquantized MoE backend out of ...",
# "Using 'MARLIN' WNA16 MoE backend.", "Using 'X' Mxfp4 MoE backend.", Int8, MxFp8
MOE_CHOSEN = re.compile(r"Using '?([A-Z][A-Z0-9_]{0,39})'? (?:(Fp8|NvFp4|Mxfp4|MxFp8|Int8|WNA16|"
                        r"Unquantized) MoE backend\b|backend for (Unquantized) MoE)")
MOE_ANCHOR = "MoE backend"
COMMAND = re.compile(r"(?:^|\s)(?:vllm serve|vllm\.entrypoints\.openai\.api_server)\s")

MARKERS = ("GPU KV cache size", "Available KV cache memory", "non-default args",
           "Model loading took", "available_kv_cache_memory", "vLLM API server version",
           "LLM engine (v", "vllm serve", "Current kv cache memory in use",
           "less than desired GPU memory utilization",
           "Desired GPU memory utilization is")  # fmt: skip


# every line a pattern above can match holds one of these (the reader's prefilter)
ANCHORS = (
    *(a for a, _, _, _ in PRINTED), *MARKERS, "Maximum concurrency", "Requested memory",
    "gpu_memory_utilization", "gpu-memory-utilization", "max_num_batched_tokens=",
    "Profiling CUDA graph memory",
    "Asynchronous scheduling", "vllm version", "vLLM version", "with config:", "  version ",
    "memory snapshot:",
    "vllm.entrypoints.openai.api_server", "Free memory on device", "Current kv cache memory",
    "--gpu-memory-utilization from", COMPILED, LOADED, MOE_ANCHOR,
    "backend for Unquantized MoE",
)  # fmt: skip


class VllmLogReader(LogReader):
    """vLLM's start-up log (``calc.deploy.engines.base.LogReader``)."""

    engine, anchors, markers, versions = "vllm", ANCHORS, MARKERS, (VERSION, BANNER)

    def read(self, line: Line) -> bool:
        f, s, text = self.f, self.f.settings, line.text
        hit = False
        if "non-default args:" in text:
            raw = text.split("non-default args:", 1)[1]
            args = literal_dict(raw) or dict_items(raw, ARGS)
            for key, name in ARGS.items():
                if key in args:
                    hit |= put_setting(s, name, args[key])
        if "with config:" in text:
            pairs = key_values(text.split("with config:", 1)[1], CONFIG)
            for key, name in CONFIG.items():
                if key in pairs:
                    hit |= put_setting(s, name, pairs[key], override=False)
        if COMMAND.search(text):
            words = text.split()
            for name, value in flags(words, FLAGS).items():
                hit |= put_setting(s, name, value, override=False)
            i = next((k for k, w in enumerate(words) if w == "serve"), None)
            if i is not None and i + 1 < len(words) and not words[i + 1].startswith("-"):
                hit |= put_setting(s, "model", words[i + 1], override=False)
        hit |= read_printed(f.printed, line, PRINTED)
        if (m := search(CONCURRENCY, line, "Maximum concurrency")) is not None:
            f.printed["concurrency_at_tokens"] = integer(m.group(1))
            f.printed["max_concurrency"] = number(m.group(2))
            hit = True
        if (m := search(REQUESTED, line, "Requested memory")) is not None:
            fraction = number(m.group(1))
            if put_setting(s, "memory_fraction", fraction):
                f.printed["total_memory_bytes"] = number(m.group(2)) * GIB / fraction
            hit = True
        if (m := search(TOTAL_UTIL_V0, line, "x gpu_memory_utilization")) is not None:
            f.printed["total_memory_bytes"] = number(m.group(1)) * GIB
            hit |= put_setting(s, "memory_fraction", number(m.group(2)))
        if (m := search(UTIL_LATER, line, "The current --gpu-memory-utilization")) is not None:
            hit |= put_setting(s, "memory_fraction", number(m.group(1)), override=False)
        if (m := search(UTIL_FROM, line, "--gpu-memory-utilization from")) is not None:
            hit |= put_setting(s, "memory_fraction", number(m.group(1)), override=False)
        hit |= self._startup_report(line)
        if (m := search(CHUNKED, line, "max_num_batched_tokens=")) is not None:
            hit |= put_setting(s, "max_batched_tokens", integer(m.group(1)), override=False)
        if (m := UTIL_V0.search(text)) is not None:
            hit |= put_setting(s, "memory_fraction", number(m.group(1)))
        if (m := search(GRAPHS, line, "Profiling CUDA graph memory")) is not None:
            f.printed["cuda_graphs_piecewise"] = integer(m.group(1))
            hit = True
        if (m := search(MOE_CHOSEN, line, "MoE")) is not None:  # what ran beats what was asked
            hit |= put_setting(s, "moe_backend", m.group(1))
        if COMPILED in text:
            s["compile_cache"] = "cold"
            hit = True
        elif LOADED in text:
            s.setdefault("compile_cache", "warm")
            hit = True
        if (m := ASYNC.search(text)) is not None:
            f.printed["async_scheduling"] = m.group(1) == "enabled"
        if (m := SNAPSHOT_TOTAL.search(text)) is not None:  # DEBUG: the device's total memory
            f.printed.setdefault("total_memory_bytes", number(m.group(1)) * GIB)
            hit = True
        return hit

    def _startup_report(self, line: Line) -> bool:
        """The 'Free memory on device (F/T GiB) on startup' report (or refusal): the device's
        total memory, the utilisation, and what the report says was in use. Each figure only
        where no line of its own printed it (those lines carry more digits)."""
        p, hit = self.f.printed, False
        if (m := search(FREE_ON_DEVICE, line, "Free memory on device")) is not None:
            p.setdefault("total_memory_bytes", number(m.group(2)) * GIB)
            put_setting(self.f.settings, "memory_fraction", number(m.group(3)), override=False)
            hit = True
        if (m := search(CONSUMED_REPORT, line, "for consumed memory")) is not None:
            p.setdefault("total_consumed_bytes", number(m.group(1)) * GIB)
            hit = True
        elif (m := search(USAGE_REPORT, line, "for peak activation")) is not None:
            p.setdefault("weights_bytes", number(m.group(1)) * GIB)
            p.setdefault("activation_bytes", number(m.group(2)) * GIB)
            p.setdefault("non_torch_bytes", number(m.group(3)) * GIB)
            hit = True
        if (m := search(KV_IN_USE, line, "Current kv cache memory")) is not None:
            unit = GIB if m.group(2) == "GiB" else 1
            p.setdefault("kv_budget_bytes", number(m.group(1)) * unit)
            hit = True
        return hit

    def facts(self) -> LogFacts:
        p = self.f.printed
        # "Maximum concurrency for N tokens per request" prints max_model_len itself
        # (kv_cache_utils.py formats model_config.max_model_len): a log with no settings line
        # still states it
        put_setting(self.f.settings, "max_model_len", p.get("concurrency_at_tokens"),
                    override=False)  # fmt: skip
        # 0.27+: non-KV = total consumed (weights, non-torch, kept buffers) + transient peak
        if "total_consumed_bytes" in p:
            if "non_kv_bytes" in p and "activation_bytes" not in p:
                p["activation_bytes"] = p["non_kv_bytes"] - p["total_consumed_bytes"]
            if "weights_bytes" in p and "non_torch_bytes" not in p:
                p["non_torch_bytes"] = p["total_consumed_bytes"] - p["weights_bytes"]
        return self.f
