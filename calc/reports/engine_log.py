"""Reads a serving engine's start-up log (vLLM, SGLang, TensorRT-LLM): the settings it states
and the memory figures it prints [bytes, tokens], for comparison with ``calc.deploy.engine_memory``.

Only lines the engines print at start-up are read; every other line is ignored. A text with
none of them is an ``InvalidInputError``. GiB figures are converted to bytes (2^30); SGLang
prints "GB" but computes bytes / 2^30, so it is read as GiB too.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from calc.errors import InvalidInputError

GIB = 2**30
MAX_LOG_CHARS = 50_000_000  # a start-up log is a few MB at most

_NUM = r"([0-9][0-9,]*(?:\.[0-9]+)?)"


def _num(text: str) -> float:
    return float(text.replace(",", ""))


def _int(text: str) -> int:
    return int(text.replace(",", "").split(".")[0])


@dataclass
class LogReading:
    """What one start-up log states. ``settings`` uses kvcalc's names (tp, pp, memory_fraction,
    max_model_len, max_batched_tokens, max_num_seqs, block_size, kv_cache_dtype, dtype,
    quantization, max_tokens, model); ``printed`` holds the engine's figures in bytes/tokens
    (weights_bytes, activation_bytes, non_torch_bytes, kv_cache_bytes, tokens, blocks,
    max_concurrency, concurrency_at_tokens, total_memory_bytes)."""

    engine: str
    version: str | None = None
    settings: dict = field(default_factory=dict)
    printed: dict = field(default_factory=dict)
    lines_read: int = 0


def _set(d: dict, key: str, value) -> None:
    if value is not None:
        d[key] = value


_VLLM_ARGS = {
    "model": "model",
    "tensor_parallel_size": "tp",
    "pipeline_parallel_size": "pp",
    "gpu_memory_utilization": "memory_fraction",
    "max_model_len": "max_model_len",
    "max_num_batched_tokens": "max_batched_tokens",
    "max_num_seqs": "max_num_seqs",
    "block_size": "block_size",
    "kv_cache_dtype": "kv_cache_dtype",
    "dtype": "dtype",
    "quantization": "quantization",
}
_INT_SETTINGS = {"tp", "pp", "max_model_len", "max_batched_tokens", "max_num_seqs", "block_size"}


def _literal_dict(text: str) -> dict:
    """A Python dict literal from a log line, or {} if it is not one (never evaluates code)."""
    if len(text) > 100_000:
        return {}
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def _setting(settings: dict, key: str, value) -> None:
    """Store a setting if it has the right type (ints for counts, floats in (0, 1] for the
    fraction, short strings otherwise); anything else in a hostile log is ignored."""
    if isinstance(value, bool):
        return
    if key in _INT_SETTINGS:
        if isinstance(value, int) and 0 < value < 10**12:
            settings[key] = value
    elif key == "memory_fraction":
        if isinstance(value, int | float) and 0 < value <= 1:
            settings[key] = float(value)
    elif isinstance(value, str) and 0 < len(value) <= 300:
        settings[key] = value


_KEY_VALUE = re.compile(r"(\w+)=('[^']*'|\"[^\"]*\"|[\w.+-]+)")


def _key_values(text: str) -> dict:
    """``key=value`` pairs of an engine's config dump (vLLM "with config: model='...',
    tensor_parallel_size=2, ..."; SGLang "ServerArgs(model_path='...', tp_size=4, ...)"),
    values as int, float or str."""
    out: dict = {}
    for key, raw in _KEY_VALUE.findall(text[:200_000]):
        value: object = raw.strip("'\"")
        if raw.isdigit():
            value = int(raw)
        else:
            try:
                value = float(raw)
            except ValueError:
                pass
        out[key] = value
    return out


# config-dump keys -> kvcalc setting names
_VLLM_CONFIG = {
    "model": "model",
    "tensor_parallel_size": "tp",
    "pipeline_parallel_size": "pp",
    "max_seq_len": "max_model_len",
    "kv_cache_dtype": "kv_cache_dtype",
    "quantization": "quantization",
}
_SGLANG_CONFIG = {
    "model_path": "model",
    "tp_size": "tp",
    "pp_size": "pp",
    "mem_fraction_static": "memory_fraction",
    "context_length": "max_model_len",
    "chunked_prefill_size": "max_batched_tokens",
    "max_running_requests": "max_num_seqs",
    "page_size": "block_size",
    "kv_cache_dtype": "kv_cache_dtype",
    "quantization": "quantization",
}


def _config_settings(text: str, names: dict, settings: dict) -> bool:
    """Settings from a config dump (only those not already set by a more explicit line)."""
    pairs = _key_values(text)
    found = False
    for key, name in names.items():
        if key in pairs and pairs[key] not in ("None", "none") and name not in settings:
            _setting(settings, name, pairs[key])
            found = True
    return found


_VLLM_PATTERNS = [
    (re.compile(r"Model loading took " + _NUM + r" ?GiB"), "weights_bytes", GIB),
    (re.compile(r"torch peak memory increase: " + _NUM + r" ?GiB"), "activation_bytes", GIB),
    (re.compile(r"non-torch forward increase memory: " + _NUM + r" ?GiB"), "non_torch_bytes", GIB),
    (re.compile(r"weights memory: " + _NUM + r" ?GiB"), "weights_bytes", GIB),
    (re.compile(r"Available KV cache memory: " + _NUM + r" ?GiB"), "kv_cache_bytes", GIB),
    (re.compile(r"GPU KV cache size: " + _NUM + r" tokens"), "tokens", 1),
    (re.compile(r"num_gpu_blocks is: " + _NUM), "blocks", 1),
    # vLLM v0 (0.6) memory profile table
    (re.compile(r"total_gpu_memory\s+" + _NUM + r" ?GiB"), "total_memory_bytes", GIB),
    (re.compile(r"model weights take\s+" + _NUM + r" ?GiB"), "weights_bytes", GIB),
    (re.compile(r"non_torch_memory\s+" + _NUM + r" ?GiB"), "non_torch_bytes", GIB),
    (re.compile(r"activation peak memory\s+" + _NUM + r" ?GiB"), "activation_bytes", GIB),
    (re.compile(r"available_kv_cache_memory\s+" + _NUM + r" ?GiB"), "kv_cache_bytes", GIB),
]
_VLLM_CONCURRENCY = re.compile(
    r"Maximum concurrency for " + _NUM + r" tokens per request: " + _NUM + r"x"
)
_VLLM_REQUESTED = re.compile(r"Requested memory: " + _NUM + r" \(util\), " + _NUM + r" ?GiB")
_VLLM_CHUNKED = re.compile(r"max_num_batched_tokens=" + _NUM)
_VLLM_UTIL_V0 = re.compile(r"gpu_memory_utilization\s+" + _NUM + r"\s*$")
_VLLM_VERSION = re.compile(
    r"(?:vLLM API server version|LLM engine \(v)\s*v?([0-9]+\.[0-9]+[\w.+-]*)"
)

_SGLANG_POOL = re.compile(
    r"KV Cache is allocated\. #tokens: " + _NUM + r", K size: " + _NUM + r" GB, V size: "
    + _NUM + r" GB"
)  # fmt: skip
_SGLANG_FLAGS = {
    "--tp": "tp",
    "--tp-size": "tp",
    "--tensor-parallel-size": "tp",
    "--pp": "pp",
    "--pp-size": "pp",
    "--mem-fraction-static": "memory_fraction",
    "--context-length": "max_model_len",
    "--chunked-prefill-size": "max_batched_tokens",
    "--max-running-requests": "max_num_seqs",
    "--page-size": "block_size",
    "--kv-cache-dtype": "kv_cache_dtype",
    "--dtype": "dtype",
    "--quantization": "quantization",
    "--model": "model",
    "--model-path": "model",
}
_SGLANG_WEIGHTS = re.compile(r"Load weight end\..*mem usage=" + _NUM + r" ?GB")
_SGLANG_VERSION = re.compile(r"sglang(?: version|==)\s*v?([0-9]+\.[0-9]+[\w.+-]*)", re.I)

_TRT_BOTH = re.compile(
    r"free_gpu_memory_fraction and max_tokens are set \(to " + _NUM + r" and " + _NUM
)
_TRT_FRACTION = re.compile(r"free_gpu_memory_fraction[=: ]+" + _NUM)
_TRT_BLOCK = re.compile(r"Number of tokens per block: " + _NUM)
_TRT_ALLOC = re.compile(r"Allocated " + _NUM + r" ?GiB for max tokens in paged KV cache \(" + _NUM)
_TRT_SEQ = re.compile(r"max_seq_len=" + _NUM)
_TRT_NUM_TOKENS = re.compile(r"max_num_tokens=" + _NUM)
_TRT_REQUESTS = re.compile(r"max_num_requests=" + _NUM)
_TRT_SETTINGS = (
    (_TRT_SEQ, "max_model_len"),
    (_TRT_NUM_TOKENS, "max_batched_tokens"),
    (_TRT_REQUESTS, "max_num_seqs"),
    (_TRT_BLOCK, "block_size"),
)
_TRT_VERSION = re.compile(r"TensorRT-LLM version:?\s*v?([0-9]+\.[0-9]+[\w.+-]*)")


def detect_engine(text: str) -> str | None:
    """vllm, sglang or trtllm from the log's own markers, or None."""
    if "[TensorRT-LLM]" in text or "[TRT-LLM]" in text or "TensorRT-LLM version" in text:
        return "trtllm"
    if any(m in text for m in ("KV Cache is allocated", "sglang.launch_server", "ServerArgs(")):
        return "sglang"
    markers = (
        "GPU KV cache size",
        "non-default args",
        "available_kv_cache_memory",
        "Model loading took",
        "Available KV cache memory",
    )
    if any(m in text for m in markers):
        return "vllm"
    return None


def _parse_vllm(lines: list[str], r: LogReading) -> None:
    for line in lines:
        hit = False
        if "non-default args:" in line:
            args = _literal_dict(line.split("non-default args:", 1)[1].strip())
            for key, name in _VLLM_ARGS.items():
                if key in args:
                    _setting(r.settings, name, args[key])
            hit = bool(args)
        for pattern, key, unit in _VLLM_PATTERNS:
            m = pattern.search(line)
            if m:
                r.printed[key] = _num(m.group(1)) * unit if unit != 1 else _int(m.group(1))
                hit = True
        m = _VLLM_CONCURRENCY.search(line)
        if m:
            r.printed["concurrency_at_tokens"] = _int(m.group(1))
            r.printed["max_concurrency"] = _num(m.group(2))
            hit = True
        m = _VLLM_REQUESTED.search(line)
        if m:
            _setting(r.settings, "memory_fraction", _num(m.group(1)))
            fraction = r.settings.get("memory_fraction")
            if fraction:
                r.printed["total_memory_bytes"] = _num(m.group(2)) * GIB / fraction
            hit = True
        if "with config:" in line:
            hit = _config_settings(line.split("with config:", 1)[1], _VLLM_CONFIG, r.settings)
        m = _VLLM_CHUNKED.search(line)
        if m and "max_batched_tokens" not in r.settings:
            _setting(r.settings, "max_batched_tokens", _int(m.group(1)))
            hit = True
        m = _VLLM_UTIL_V0.search(line)
        if m:
            _setting(r.settings, "memory_fraction", _num(m.group(1)))
            hit = True
        m = _VLLM_VERSION.search(line)
        if m and r.version is None:
            r.version = m.group(1)
            hit = True
        r.lines_read += hit


def _parse_sglang(lines: list[str], r: LogReading) -> None:
    for line in lines:
        hit = False
        m = _SGLANG_POOL.search(line)
        if m:
            r.printed["tokens"] = _int(m.group(1))
            r.printed["kv_cache_bytes"] = (_num(m.group(2)) + _num(m.group(3))) * GIB
            hit = True
        m = _SGLANG_WEIGHTS.search(line)
        if m:
            r.printed["weights_bytes"] = _num(m.group(1)) * GIB
            hit = True
        if "ServerArgs(" in line:
            hit = _config_settings(line.split("ServerArgs(", 1)[1], _SGLANG_CONFIG, r.settings)
        if "launch_server" in line or "--mem-fraction-static" in line:
            words = line.split()
            for i, word in enumerate(words[:-1]):
                flag, _, inline = word.partition("=")
                name = _SGLANG_FLAGS.get(flag)
                if name is None:
                    continue
                value: object = inline or words[i + 1]
                if name in _INT_SETTINGS:
                    value = int(value) if str(value).isdigit() else None
                elif name == "memory_fraction":
                    try:
                        value = float(str(value))
                    except ValueError:
                        value = None
                _setting(r.settings, name, value)
                hit = True
        m = _SGLANG_VERSION.search(line)
        if m and r.version is None:
            r.version = m.group(1)
            hit = True
        r.lines_read += hit


def _parse_trtllm(lines: list[str], r: LogReading) -> None:
    for line in lines:
        hit = False
        m = _TRT_BOTH.search(line)
        if m:
            _setting(r.settings, "memory_fraction", round(_num(m.group(1)), 6))
            r.settings["max_tokens"] = _int(m.group(2))
            hit = True
        elif (m := _TRT_FRACTION.search(line)) is not None:
            _setting(r.settings, "memory_fraction", round(_num(m.group(1)), 6))
            hit = True
        for pattern, key in _TRT_SETTINGS:
            m = pattern.search(line)
            if m:
                _setting(r.settings, key, _int(m.group(1)))
                hit = True
        m = _TRT_ALLOC.search(line)
        if m:
            r.printed["kv_cache_bytes"] = _num(m.group(1)) * GIB
            r.printed["tokens"] = _int(m.group(2))
            hit = True
        m = _TRT_VERSION.search(line)
        if m and r.version is None:
            r.version = m.group(1)
            hit = True
        r.lines_read += hit


_PARSERS = {"vllm": _parse_vllm, "sglang": _parse_sglang, "trtllm": _parse_trtllm}


def parse_log(text: str, engine: str | None = None) -> LogReading:
    """The settings and printed figures of one start-up log (``engine`` forces the dialect)."""
    if len(text) > MAX_LOG_CHARS:
        raise InvalidInputError(
            f"the log has {len(text):,} characters; kvcalc reads start-up logs of at most "
            f"{MAX_LOG_CHARS:,} (cut it to the start-up lines)"
        )
    engine = engine or detect_engine(text)
    if engine is None:
        raise InvalidInputError(
            "not a vLLM, SGLang or TensorRT-LLM start-up log: none of the lines kvcalc reads "
            "(e.g. vLLM 'GPU KV cache size', SGLang 'KV Cache is allocated', TensorRT-LLM "
            "'Allocated ... GiB for max tokens in paged KV cache') is in it"
        )
    if engine not in _PARSERS:
        from calc.errors import UnknownNameError

        raise UnknownNameError("engine", engine, _PARSERS)
    reading = LogReading(engine=engine)
    _PARSERS[engine](text.splitlines(), reading)
    if not reading.printed:
        raise InvalidInputError(
            f"the {engine} log prints no KV-cache or memory figure kvcalc reads; pass the "
            "engine's start-up lines (up to the KV cache allocation)"
        )
    return reading


# ---------------------------------------------------------------------------------------------
# A log beside kvcalc's prediction of the same start-up

# Hugging Face ids (lower case, without the organisation) of the shipped models they match
KNOWN_MODELS = {
    "llama-3.1-8b-instruct": "llama3-8b",
    "llama-3.1-8b": "llama3-8b",
    "meta-llama-3-8b": "llama3-8b",
    "meta-llama-3-8b-instruct": "llama3-8b",
    "meta-llama-3-70b-instruct": "llama3-70b",
    "llama-3.1-70b-instruct": "llama3-70b",
    "llama-3.3-70b-instruct": "llama3-70b",
    "qwen2.5-7b-instruct": "qwen2.5-7b",
    "qwen2.5-7b": "qwen2.5-7b",
    "qwen2.5-72b-instruct": "qwen2.5-72b",
    "mixtral-8x7b-instruct-v0.1": "mixtral-8x7b",
    "mixtral-8x7b-v0.1": "mixtral-8x7b",
    "gemma-2-9b-it": "gemma-2-9b",
    "gemma-2-9b": "gemma-2-9b",
    "gemma-2-27b-it": "gemma-2-27b",
    "mistral-7b-instruct-v0.3": "mistral-7b",
    "qwen3-30b-a3b": "qwen3-30b-a3b",
    "qwen3-30b-a3b-instruct-2507": "qwen3-30b-a3b",
    "mistral-7b-v0.1": "mistral-7b",
    "mistral-7b-instruct-v0.1": "mistral-7b",
    "mixtral-8x22b-instruct-v0.1": "mixtral-8x22b",
    "mixtral-8x22b-v0.1": "mixtral-8x22b",
    "llama-2-7b-hf": "llama2-7b",
    "llama-2-7b-chat-hf": "llama2-7b",
    "meta-llama-3.1-405b-instruct": "llama3.1-405b",
    "llama-3.1-405b-instruct": "llama3.1-405b",
    "gemma-2-27b": "gemma-2-27b",
    "gemma-3-27b-it": "gemma-3-27b",
    "deepseek-v3": "deepseek-v3",
    "deepseek-v3-0324": "deepseek-v3",
    "deepseek-v2": "deepseek-v2",
    "deepseek-v2-chat": "deepseek-v2",
    "gpt-oss-120b": "gpt-oss-120b",
    "jamba-v0.1": "jamba-v0.1",
    "falcon-7b": "falcon-7b",
    "falcon-7b-instruct": "falcon-7b",
}
VERSIONS = {"vllm": ("0.19",), "sglang": ("0.4", "0.5"), "trtllm": ("1.0",)}


def shipped_model_for(model_id: str | None) -> str | None:
    """The shipped kvcalc model a log's model id names, or None."""
    if not model_id:
        return None
    return KNOWN_MODELS.get(model_id.rstrip("/").rsplit("/", 1)[-1].lower())


def kv_dtype_bytes(kv_cache_dtype: str | None, default: float = 2.0) -> float:
    """Bytes per KV element of an engine's kv_cache_dtype setting (auto: the model's)."""
    if kv_cache_dtype is None or kv_cache_dtype.startswith("auto"):
        return default
    if "fp8" in kv_cache_dtype or "int8" in kv_cache_dtype:
        return 1.0
    if kv_cache_dtype in ("bfloat16", "float16", "bf16", "fp16", "half"):
        return 2.0
    raise InvalidInputError(
        f"kv_cache_dtype {kv_cache_dtype!r} is not one kvcalc sizes (auto, fp8*, bf16, fp16); "
        "pass --kv-dtype"
    )


# (substring of the quantization setting or model name, kvcalc weight format), first match wins
_QUANT_HINTS = (
    ("mxfp4", "mxfp4"),
    ("nvfp4", "nvfp4"),
    ("fp8", "fp8-tensor"),
    ("w8a8", "int8-channel"),
    ("int8", "int8-channel"),
    ("w4a16", "int4-g128"),
    ("awq", "int4-g128"),
    ("gptq", "int4-g128"),
    ("int4", "int4-g128"),
)
_DTYPES = {"float32": "fp32", "float": "fp32", "float16": "fp16", "half": "fp16",
           "bfloat16": "bf16"}  # fmt: skip


def weight_dtype_of(settings: dict) -> str | None:
    """The weight format a log's settings imply: its quantization (or a quantization named in
    the model id, as fp8/w8a8/AWQ releases are), else an explicit --dtype; None: the model's."""
    quant = f"{settings.get('quantization') or ''} {settings.get('model') or ''}".lower()
    for hint, fmt in _QUANT_HINTS:
        if hint in quant:
            return fmt
    dtype = str(settings.get("dtype") or "").removeprefix("torch.")
    return _DTYPES.get(dtype) if dtype != "bfloat16" else None


@dataclass(frozen=True)
class LogReport:
    """The log's figures beside the prediction, term by term (bytes, tokens)."""

    reading: LogReading
    prediction: object  # calc.deploy.engine_memory.PoolPrediction
    rows: list[dict]
    fields: dict
    warnings: list[str]


def _row(term: str, unit: str, predicted, printed) -> dict:
    error = None
    if printed not in (None, 0) and predicted is not None:
        error = (predicted - printed) / printed
    return {"term": term, "unit": unit, "predicted": predicted, "printed": printed, "error": error}


def log_report(
    reading: LogReading,
    cfg,
    hw,
    *,
    tp: int | None = None,
    pp: int | None = None,
    version: str | None = None,
    weight_dtype: str | None = None,
    kv_dtype: str | None = None,
    memory_fraction: float | None = None,
    max_model_len: int | None = None,
    activation_bytes: float | None = None,
    non_torch_bytes: float | None = None,
) -> LogReport:
    """Predict the start-up ``reading`` describes (its settings, overridden by the keyword
    arguments) and put each term beside the printed one. Error = (predicted − printed) /
    printed."""
    from calc.deploy.engine_memory import engine_settings, predict_kv_pool

    s = reading.settings
    warnings: list[str] = []
    tp = tp or s.get("tp", 1)
    pp = pp or s.get("pp", 1)
    if reading.version and not version:
        major = ".".join(reading.version.split(".")[:2])
        if major in VERSIONS[reading.engine]:
            version = major
        else:
            warnings.append(
                f"{reading.engine} {reading.version} is not modelled; predicted with "
                f"{reading.engine} {VERSIONS[reading.engine][-1]}"
            )
    settings = engine_settings(
        reading.engine,
        version,
        hw=hw,
        memory_fraction=memory_fraction or s.get("memory_fraction"),
        block_size=s.get("block_size"),
        max_batched_tokens=s.get("max_batched_tokens") if reading.engine == "vllm" else None,
        max_num_seqs=s.get("max_num_seqs") if reading.engine == "vllm" else None,
        max_model_len=max_model_len or s.get("max_model_len"),
        max_tokens=s.get("max_tokens"),
    )
    kv_b = kv_dtype_bytes(kv_dtype or s.get("kv_cache_dtype"))
    if weight_dtype is None:
        weight_dtype = weight_dtype_of(s)
        if weight_dtype is not None:
            warnings.append(
                f"weights sized as {weight_dtype} from the log's dtype/quantization/model name "
                "(--weight-dtype to change)"
            )
    p = predict_kv_pool(
        cfg,
        hw,
        settings=settings,
        tp=tp,
        pp=pp,
        weight_dtype=weight_dtype,
        kv_bytes_per_element=kv_b,
        activation_bytes=activation_bytes,
        non_torch_bytes=non_torch_bytes,
    )
    warnings.extend(p.warnings)
    g = reading.printed.get
    kv_printed_is_budget = reading.engine == "vllm"
    kv_pred = p.kv_budget_bytes if kv_printed_is_budget else p.kv_pool_bytes
    rows = [
        _row("usable_memory", "bytes", p.usable_memory_bytes, g("total_memory_bytes")),
        _row("weights", "bytes", p.weights_bytes, g("weights_bytes")),
        _row("activation", "bytes", p.activation_bytes, g("activation_bytes")),
        _row("non_torch", "bytes", p.non_torch_bytes, g("non_torch_bytes")),
        _row("kv_cache", "bytes", kv_pred, g("kv_cache_bytes")),
        _row("blocks", "blocks", p.num_blocks, g("blocks")),
        _row("tokens", "tokens", p.tokens, g("tokens")),
        _row("max_concurrency", "requests", p.max_concurrency, g("max_concurrency")),
    ]
    fields = {
        "engine": reading.engine,
        "engine_version_printed": reading.version,
        "engine_version_modelled": p.version,
        "model": cfg.name,
        "hardware": hw.name,
        "tp": tp,
        "pp": pp,
        "memory_fraction": p.memory_fraction,
        "max_model_len": p.max_model_len,
        "kv_bytes_per_token_per_gpu": p.kv_bytes_per_token,
        "terms": rows,
    }
    return LogReport(reading, p, rows, fields, warnings)
