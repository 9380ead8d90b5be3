"""The engine launch command for a deployment: the flags a user pastes to serve it with vLLM,
SGLang or TensorRT-LLM, with the values kvcalc's own model used (the deployment's sharding,
its resolved engine settings ``dep.engine_config`` and the memory fraction of its ledger), so
the command and the figures describe the same server.

- vLLM (``vllm serve``): --tensor-parallel-size, --pipeline-parallel-size,
  --enable-expert-parallel (ep > 1), --data-parallel-size (replicas × attention-DP ranks),
  --max-model-len, --gpu-memory-utilization, --kv-cache-dtype, --max-num-batched-tokens,
  --max-num-seqs; --quantization fp8 when fp8 weights are made from a 16-bit checkpoint.
- SGLang (``python -m sglang.launch_server``): --tp, --pp, --ep, --dp, --context-length,
  --mem-fraction-static, --kv-cache-dtype, --chunked-prefill-size, --max-running-requests.
- TensorRT-LLM (``trtllm-serve``): --tp_size, --pp_size, --ep_size, --max_seq_len,
  --max_num_tokens, --max_batch_size, --kv_cache_free_gpu_memory_fraction; an fp8 KV cache
  is set in the YAML given to --extra_llm_api_options (``kv_cache_config: dtype: fp8``).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

from calc.deploy.deployment import Deployment

_HF = re.compile(r"huggingface\.co/([^/\s]+/[^/\s]+)")
TRTLLM_EXTRA_FILE = "extra-llm-api-config.yaml"


def model_id(dep: Deployment) -> str:
    """The Hugging Face repository of the model (from its config's source URL), else its name."""
    m = _HF.search(dep.model.source or "")
    return m.group(1) if m else dep.model.name


def kv_cache_dtype(dep: Deployment, engine: str) -> str:
    """The engine's name of the KV-cache dtype: 'auto' (the model's dtype) or an fp8 format."""
    kv = dep.kv_dtype
    if kv == (dep.model.kv_dtype or dep.model.dtype) or kv in ("bf16", "fp16"):
        return "auto"
    if kv.startswith("fp8"):
        return "fp8_e4m3" if engine == "sglang" else "fp8"
    return kv


@dataclass(frozen=True)
class LaunchCommand:
    """One engine's launch command: its argv, an extra config file's text (TensorRT-LLM) and
    notes on what the flags cannot say."""

    engine: str
    argv: list[str]
    extra_config: str | None = None
    notes: list[str] = field(default_factory=list)

    def text(self) -> str:
        return shlex.join(self.argv)


def launch_command(dep: Deployment, *, replicas: int = 1, max_model_len: int | None = None):
    """The launch command of ``dep`` served as ``replicas`` copies (data parallel)."""
    ec = dep.engine_config
    engine = ec.engine
    mem = dep.per_gpu.mem_util if dep.hardware is not None else ec.memory_fraction
    seq_len = max_model_len or ec.max_model_len or dep.model.max_ctx
    dp = replicas * dep.sharding.dp_attn
    kv = kv_cache_dtype(dep, engine)
    notes: list[str] = []
    quant = dep.weight_override
    if engine == "vllm":
        argv = [
            "vllm",
            "serve",
            model_id(dep),
            "--tensor-parallel-size",
            str(dep.tp),
            "--pipeline-parallel-size",
            str(dep.pp),
        ]
        if dep.ep > 1:
            argv.append("--enable-expert-parallel")
        argv += [
            "--data-parallel-size",
            str(dp),
            "--max-model-len",
            str(seq_len),
            "--gpu-memory-utilization",
            f"{mem:g}",
            "--kv-cache-dtype",
            kv,
            "--max-num-batched-tokens",
            str(ec.max_batched_tokens),
            "--max-num-seqs",
            str(ec.max_num_seqs),
        ]
        if quant == "fp8":
            argv += ["--quantization", "fp8"]
        extra = None
    elif engine == "sglang":
        argv = [
            "python",
            "-m",
            "sglang.launch_server",
            "--model-path",
            model_id(dep),
            "--tp",
            str(dep.tp),
            "--pp",
            str(dep.pp),
            "--ep",
            str(dep.ep),
            "--dp",
            str(dp),
            "--context-length",
            str(seq_len),
            "--mem-fraction-static",
            f"{mem:g}",
            "--kv-cache-dtype",
            kv,
            "--chunked-prefill-size",
            str(ec.max_batched_tokens),
            "--max-running-requests",
            str(ec.max_num_seqs),
        ]
        if quant == "fp8":
            argv += ["--quantization", "fp8"]
        extra = None
    else:
        argv = [
            "trtllm-serve",
            model_id(dep),
            "--tp_size",
            str(dep.tp),
            "--pp_size",
            str(dep.pp),
            "--ep_size",
            str(dep.ep),
            "--max_seq_len",
            str(seq_len),
            "--max_num_tokens",
            str(ec.max_batched_tokens),
            "--max_batch_size",
            str(ec.max_num_seqs),
            "--kv_cache_free_gpu_memory_fraction",
            f"{mem:g}",
        ]
        extra = None
        if kv != "auto":
            argv += ["--extra_llm_api_options", TRTLLM_EXTRA_FILE]
            extra = f"kv_cache_config:\n  dtype: {kv}\n"
        if dp > 1:
            notes.append(f"run {dp} copies of this server behind a load balancer (data parallel)")
        if quant is not None:
            notes.append(f"serve a {quant} checkpoint (quantised with NVIDIA ModelOpt)")
    if quant is not None and quant != "fp8" and engine != "trtllm":
        notes.append(f"serve a checkpoint quantised to {quant} (kvcalc times {quant} weights)")
    if kv not in ("auto", "fp8", "fp8_e4m3"):
        notes.append(f"KV cache {kv}: not an engine flag value; check the engine supports it")
    return LaunchCommand(engine, argv, extra, notes)


def parse_launch(argv: list[str]) -> dict:
    """The flags of a launch command as {flag: value} (a bare flag: True); the positional
    words before the first flag under '_' (read back by the tests)."""
    out: dict = {"_": []}
    i = 0
    while i < len(argv):
        word = argv[i]
        if word.startswith("--"):
            if i + 1 < len(argv) and not argv[i + 1].startswith("--"):
                out[word] = argv[i + 1]
                i += 2
                continue
            out[word] = True
        else:
            out["_"].append(word)
        i += 1
    return out
