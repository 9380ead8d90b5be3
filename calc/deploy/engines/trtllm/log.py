"""The lines a TensorRT-LLM start-up log prints (0.x and 1.x, ``[TensorRT-LLM]`` and
``[TRT-LLM]`` prefixes) that kvcalc reads: settings and the KV pool it allocates [bytes,
tokens]."""

from __future__ import annotations

import re

from calc.deploy.engines.base import LogFacts, LogReader
from calc.deploy.engines.logscan import (
    GIB,
    NUM,
    Line,
    flags,
    integer,
    key_values,
    number,
    put_setting,
    read_printed,
    search,
)

BOTH = re.compile(r"free_gpu_memory_fraction and max_tokens are set \(to " + NUM + r" and " + NUM)
FRACTION = re.compile(r"free_gpu_memory_fraction[=: ]{1,3}" + NUM)
FRACTION_SET = re.compile(r"fraction is set " + NUM)
SETTINGS = (
    ("max_seq_len=", re.compile(r"max_seq_len=" + NUM), "max_model_len"),
    ("max_num_tokens=", re.compile(r"max_num_tokens=" + NUM), "max_batched_tokens"),
    ("max_num_requests=", re.compile(r"max_num_requests=" + NUM), "max_num_seqs"),
    ("tokens per block", re.compile(r"Number of tokens per block: " + NUM), "block_size"),
)
ALLOC = re.compile(r"Allocated " + NUM + r" ?GiB for max tokens in paged KV cache \(" + NUM)
WEIGHTS = re.compile(r"Memory used after loading model weights \(inside torch\) in memory "
                     r"usage profiling: " + NUM + " ?GiB")  # fmt: skip
OUTSIDE = re.compile(r"Memory used outside torch \(e\.g\., NCCL and CUDA graphs\) in memory "
                     r"usage profiling: " + NUM + " ?GiB")  # fmt: skip
PEAK = re.compile(r"available KV cache memory when calculating max tokens: " + NUM + " ?GiB")
# 1.x's profiling pass: the torch memory the dummy requests took (_util.py, "Memory
# dynamically allocated during inference (inside torch)")
DYNAMIC = re.compile(r"Memory dynamically allocated during inference \(inside torch\) in memory "
                     r"usage profiling: " + NUM + " ?GiB")  # fmt: skip
# the C++ runtime's line (0.x executor, trtGptModelInflightBatching.cpp): the device's total
# memory and what was free when the pool was sized [GiB]
TOTAL = re.compile(r"Memory usage when calculating max tokens in paged kv cache: total: " + NUM
                   + " ?GiB, available: " + NUM + " ?GiB")  # fmt: skip
# 1.x (_torch/pyexecutor/_util.py): the profiling pass's line ends with the device's total
DEVICE_TOTAL = re.compile(r"device total memory " + NUM + " ?GiB")
# later 1.x builds end the 'Both ... are set' warning with the memory it saw
# (resource_manager.py: "with free memory F GiB of total memory T GiB")
BOTH_TOTAL = re.compile(r"max_tokens are set \(to .{0,80}? of total memory " + NUM + " ?GiB")
# 1.x's estimation pass (KvCacheCreator): after it, the max_tokens of a 'Both
# free_gpu_memory_fraction and max_tokens are set' warning is the engine's own estimate
# (_util.py sets kv_cache_config.max_tokens = its estimate // bytes per token, the user's
# max_tokens already folded in as a min), and the first pass's max_tokens its small
# profiling cache; neither is a setting
ESTIMATION = ("available KV cache memory when calculating max tokens",
              "Estimated max memory in KV cache")
# the KV manager's cap of the attention window to the pool (resource_manager.py): the
# max_seq_len printed after it is the engine's, not the user's
ADJUSTED = "Adjusted max_seq_len to"
# figures of one number each: (anchor, pattern, key, unit)
PRINTED = (
    ("after loading model weights", WEIGHTS, "weights_bytes", GIB),
    ("Memory used outside torch", OUTSIDE, "non_torch_bytes", GIB),
    ("when calculating max tokens", PEAK, "kv_budget_bytes", GIB),
    ("allocated during inference", DYNAMIC, "activation_bytes", GIB),
)
VERSION = re.compile(r"TensorRT-LLM version:?\s{0,4}v?([0-9]{1,3}\.[0-9]{1,3}(?:\.[0-9]{1,3})?"
                     r"(?:[a-z0-9.+-]{0,40})?)")  # fmt: skip
# the PyTorch backend's settings as the builds that pass them through PyTorchConfig print them
# (tensorrt_llm/_torch/pyexecutor/config.py update_executor_config:
# logger.info(f"{executor_config.pytorch_backend_config}"), the dataclass's repr
# "PyTorchConfig(..., batch_wait_timeout_iters=0, batch_wait_max_tokens_ratio=0.0, ...)");
# kvcalc name of each key the repr holds; the repr carries the MoE backend too
# ("attn_backend='TRTLLM', moe_backend='CUTLASS'": the dataclass's moe_backend field, default
# 'CUTLASS', the extra options' moe_config.backend copied in), printed whether or not the
# user set it, so every such log states the backend its MoE layers were built with
BACKEND_CONFIG = "PyTorchConfig("
BACKEND_KEYS = {"batch_wait_timeout_iters": "batch_wait_iters",
                "batch_wait_max_tokens_ratio": "batch_wait_ratio",
                "moe_backend": "moe_backend"}  # fmt: skip
FLAGS = {
    "--tp_size": "tp",
    "--pp_size": "pp",
    "--ep_size": "ep",
    "--max_batch_size": "max_num_seqs",
    "--max_num_tokens": "max_batched_tokens",
    "--max_seq_len": "max_model_len",
    "--kv_cache_free_gpu_memory_fraction": "memory_fraction",
}
MARKERS = ("[TensorRT-LLM]", "[TRT-LLM]", "TensorRT-LLM version", "trtllm-serve",
           "paged KV cache")  # fmt: skip


# every line a pattern above can match holds one of these (the reader's prefilter)
ANCHORS = (
    *MARKERS, *(a for a, _, _ in SETTINGS), "max_tokens are set", "free_gpu_memory_fraction",
    "fraction is set", "after loading model weights", "Memory used outside torch",
    "when calculating max tokens", "max tokens in paged kv cache", "device total memory",
    "allocated during inference",
    "of total memory",
    "Estimated max memory in KV cache", ADJUSTED, BACKEND_CONFIG,
)  # fmt: skip


class TrtllmLogReader(LogReader):
    """TensorRT-LLM's start-up log (``calc.deploy.engines.base.LogReader``)."""

    engine, anchors, markers, versions = "trtllm", ANCHORS, MARKERS, (VERSION,)
    per_marker = 2  # bracketed prefixes are unambiguous

    def __init__(self) -> None:
        super().__init__()
        self._estimated = False  # 1.x's estimation pass seen
        self._adjusted = False  # the engine capped max_seq_len to the pool
        self._both_tokens: int | None = None  # the last 'Both ... are set' max_tokens

    def read(self, line: Line) -> bool:
        f, s, text = self.f, self.f.settings, line.text
        hit = False
        self._estimated = self._estimated or any(e in text for e in ESTIMATION)
        self._adjusted = self._adjusted or ADJUSTED in text
        for anchor, pattern in (("device total memory", DEVICE_TOTAL),
                                ("of total memory", BOTH_TOTAL)):  # fmt: skip
            if (m := search(pattern, line, anchor)) is not None:
                f.printed.setdefault("total_memory_bytes", number(m.group(1)) * GIB)
                hit = True
        if (m := search(BOTH, line, "max_tokens are set")) is not None:
            hit |= put_setting(s, "memory_fraction", round(number(m.group(1)), 6))
            self._both_tokens = integer(m.group(2))
            hit = True
        elif (m := search(FRACTION, line, "free_gpu_memory_fraction")) is not None:
            hit |= put_setting(s, "memory_fraction", round(number(m.group(1)), 6))
        elif (m := search(FRACTION_SET, line, "fraction is set")) is not None:
            hit |= put_setting(s, "memory_fraction", round(number(m.group(1)), 6))
        for anchor, pattern, key in SETTINGS:
            if (m := search(pattern, line, anchor)) is not None:
                if key == "max_model_len" and self._adjusted:
                    f.printed["max_seq_len_adjusted"] = integer(m.group(1))
                    hit = True
                    continue
                hit |= put_setting(s, key, integer(m.group(1)))
        if (m := search(ALLOC, line, "paged KV cache")) is not None:
            f.printed["kv_pool_bytes"] = number(m.group(1)) * GIB
            f.printed["tokens"] = integer(m.group(2))
            hit = True
        hit |= read_printed(f.printed, line, PRINTED)
        if (m := search(TOTAL, line, "max tokens in paged kv cache")) is not None:
            f.printed.setdefault("total_memory_bytes", number(m.group(1)) * GIB)
            hit = True
        if BACKEND_CONFIG in text:
            pairs = key_values(text.split(BACKEND_CONFIG, 1)[1], BACKEND_KEYS)
            for key, name in BACKEND_KEYS.items():
                hit |= put_setting(s, name, pairs.get(key))
        if "trtllm-serve" in text:
            words = text.split()
            for name, value in flags(words, FLAGS).items():
                hit |= put_setting(s, name, value)
            i = words.index("trtllm-serve") if "trtllm-serve" in words else None
            if i is not None and i + 1 < len(words) and not words[i + 1].startswith("-"):
                hit |= put_setting(s, "model", words[i + 1], override=False)
        return hit

    def facts(self) -> LogFacts:
        # a 'Both ... are set' max_tokens is the user's only in a log without 1.x's
        # estimation pass (0.x, or an excerpt of the warning alone); after the pass it is the
        # engine's own estimate, printed, never a setting
        if self._both_tokens is not None:
            if self._estimated:
                self.f.printed["max_tokens_engine"] = self._both_tokens
            else:
                put_setting(self.f.settings, "max_tokens", self._both_tokens, override=False)
        return self.f
