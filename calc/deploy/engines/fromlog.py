"""A Deployment from an engine's start-up log: the log read in one pass (``read_log``), its
engine detected, its model id mapped to a shipped model by the model's source, its GPU found
from the device names it prints, else from the memory it prints (``logdevice.gpu_of_log``), its
settings applied over the engine release's defaults, and a warning for every setting the log
does not state (``deployment_from_log``)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from calc.data.gpu_names import hardware_for_gpu
from calc.deploy.engines import NAMES, all_engines, engine
from calc.deploy.engines.base import LogFacts
from calc.deploy.engines.logdevice import CONFIG_FILE, device_names_in, gpu_of_log
from calc.deploy.engines.logscan import iter_binary_lines, iter_text_lines, with_continuations
from calc.errors import InvalidInputError

if TYPE_CHECKING:
    from calc.deploy.deployment import Deployment

GIB = 2**30


def read_log(source: str | BinaryIO | Iterable[str], engine_name: str | None = None) -> LogFacts:
    """The facts of one start-up log: ``source`` is its text, a binary stream (a file, stdin)
    or its lines; ``engine_name`` forces the dialect (else the engine whose lines it holds)."""
    if isinstance(source, str):
        lines: Iterable[str] = iter_text_lines(source)
    elif hasattr(source, "read"):
        lines = iter_binary_lines(source)  # type: ignore[arg-type]
    else:
        lines = source
    if engine_name is not None and engine_name not in NAMES:
        from calc.errors import UnknownNameError

        raise UnknownNameError("engine", engine_name, NAMES)
    engines = [engine(engine_name)] if engine_name else all_engines()
    readers = [e.log_reader() for e in engines]
    # one search per line for any phrase a reader keys on; most lines of a log hold none
    prefilter = re.compile("|".join(re.escape(a) for r in readers for a in r.anchors))
    seen = False  # any non-blank line: an empty input is said as such
    devices: list[str] = []  # the GPU names the lines print, each once

    def add(names: list[str]) -> None:
        devices.extend(d for d in dict.fromkeys(names) if d not in devices)

    def scanned(raw: Iterable[str]) -> Iterable[str]:  # each line as printed, then on
        for text in raw:
            add(device_names_in(text))
            yield text

    for line in with_continuations(scanned(lines)):
        seen = seen or bool(line.text.strip())
        add(device_names_in(line.text, CONFIG_FILE))  # a wrapped config path, joined whole
        if prefilter.search(line.text) is None and (
            line.joined is None or prefilter.search(line.joined) is None
        ):
            continue
        for r in readers:
            r.feed(line)
    found = [r for r in readers if r.evidence or (engine_name and r.f.printed)]
    if not found and not seen:
        raise InvalidInputError("empty: no lines to read, expected an engine's start-up log")
    if not found and engine_name:
        title = engines[0].title
        raise InvalidInputError(
            f"not a {title} start-up log: none of the {title} lines kvcalc reads is in it "
            f"(without --engine {engine_name} kvcalc detects the engine)"
        )
    if not found:
        raise InvalidInputError(
            "not a vLLM, SGLang or TensorRT-LLM start-up log: none of the lines kvcalc reads "
            "(e.g. vLLM 'GPU KV cache size', SGLang 'KV Cache is allocated', TensorRT-LLM "
            "'Allocated ... GiB for max tokens in paged KV cache') is in it"
        )
    best = max(found, key=lambda r: (r.evidence, len(r.f.printed)))
    facts = best.facts()
    if not facts.printed:
        raise InvalidInputError(
            f"the {facts.engine} log prints no KV-cache or memory figure kvcalc reads; pass the "
            "engine's start-up lines (up to the KV cache allocation)"
        )
    check_printed(facts.printed, facts.engine)
    facts.devices = devices
    return facts


# the largest figure a start-up log can print: a count (tokens, blocks) beyond 10^12 or a size
# beyond 1 PiB is no GPU's (an 8-GPU B300 node holds 2.3 TB); a size may be negative (vLLM
# prints a negative KV memory when the weights do not fit), a count may not
MAX_PRINTED_COUNT = 10**12
MAX_PRINTED_BYTES = 2**50


def check_printed(printed: dict, engine: str) -> None:
    """An InvalidInputError naming the first figure of ``printed`` (key -> count or bytes) that
    no engine prints: a negative count, a count or size beyond any GPU's."""
    for key, value in printed.items():
        if isinstance(value, bool) or not isinstance(value, int | float):
            continue  # a flag the log states (async scheduling)
        count = not key.endswith("_bytes")
        bad = (value < 0 or value > MAX_PRINTED_COUNT) if count else abs(value) > MAX_PRINTED_BYTES
        if bad:
            raise InvalidInputError(
                f"the {engine} log prints {key.replace('_', ' ')} {value:,}, which no engine "
                "start-up prints (a damaged or edited log?)"
            )


def _printed_release(text: str | None) -> str | None:
    """The version a log prints, as ``--engine-version`` would take it: itself when it reads as
    a version, else its leading numbers ("0.19.0-1" -> "0.19.0"), else None."""
    from calc.deploy.engines.versions import parse_version, version_text

    if not text or parse_version(text) is not None:
        return text or None
    m = re.match(r"v?[0-9]{1,4}(?:\.[0-9]{1,4}){0,3}", text.strip())
    v = parse_version(m.group(0)) if m else None
    return version_text(v) if v else None


def read_log_file(path: str | Path, engine_name: str | None = None) -> LogFacts:
    """The facts of the start-up log in the regular file ``path`` (read a piece at a time,
    ``calc.output.safe_io.open_input``); every error names the file."""
    from calc.deploy.engines.logscan import MAX_LOG_BYTES
    from calc.output.safe_io import open_input

    with open_input(path, what="an engine start-up log", max_bytes=MAX_LOG_BYTES) as fh:
        try:
            return read_log(fh, engine_name)
        except InvalidInputError as exc:
            raise InvalidInputError(f"{path}: {exc}") from None


# ---------------------------------------------------------------------------------------------
# Model ids -> shipped models, by each model's source (its Hugging Face repository)

_HF = re.compile(r"huggingface\.co/([^/\s]+)/([^/\s]+)")
_CACHE = re.compile(r"models--([^/\\]+?)--([^/\\]+)")
# words of fine-tuned and re-quantised releases that keep the base model's shapes
_RELEASE_WORDS = frozenset(
    "instruct chat it hf base dynamic fp8 fp4 nvfp4 mxfp4 bf16 fp16 awq gptq int4 int8 w4a16 "
    "w8a8 w8a16 quantized".split()
)
_WORD = re.compile(r"[-_.]")


def _stem(name: str) -> str:
    """A model name without its release words (-Instruct, -it, -FP8-dynamic, -AWQ, a 4-digit
    date such as -2507), which a fine-tune or a re-quantised release adds to the base name, and
    without the "Meta-" Meta's Llama 3 and 3.1 repositories were first published under
    (meta-llama/Meta-Llama-3.1-8B-Instruct, since renamed Llama-3.1-8B-Instruct)."""
    words = [w for w in _WORD.split(name.lower()) if w]
    kept = [w for w in words if w not in _RELEASE_WORDS and not (len(w) == 4 and w.isdigit())]
    if kept[:2] == ["meta", "llama"]:
        kept = kept[1:]
    return "-".join(kept)


def repo_of(model_id: str) -> tuple[str, str] | None:
    """(organisation, name) of a model id as logs print it: "org/name", a local path ending in
    org/name, or a Hugging Face cache path (models--org--name/snapshots/...)."""
    text = str(model_id).strip().rstrip("/")
    m = _CACHE.search(text)
    if m:
        return m.group(1), m.group(2)
    parts = [p for p in re.split(r"[/\\]", text) if p and p != "."]
    if not parts:
        return None
    if len(parts) == 1:
        return "", parts[0]
    return parts[-2], parts[-1]


def shipped_model_for(model_id: str | None) -> str | None:
    """The shipped model whose source repository the log's model id names: the same
    repository, else the same model name under any organisation, else the same base name once
    fine-tune and quantisation suffixes (-Instruct, -it, -FP8-dynamic, -AWQ, -2507 ...) are
    dropped from both, when exactly one shipped model matches."""
    if not model_id:
        return None
    repo = repo_of(model_id)
    if repo is None:
        return None
    org, name = repo[0].lower(), repo[1].lower()
    sources = _sources()
    exact = [m for m, (o, n) in sources.items() if (o, n) == (org, name)]
    if exact:
        return exact[0]
    by_name = [m for m, (_, n) in sources.items() if n == name]
    if len(by_name) == 1:
        return by_name[0]
    by_stem = [m for m, (_, n) in sources.items() if _stem(n) == _stem(name)]
    return by_stem[0] if len(set(by_stem)) == 1 else None


_SOURCES: dict[str, tuple[str, str]] = {}


def _sources() -> dict[str, tuple[str, str]]:
    if not _SOURCES:
        from calc.data.registry import load_model, model_names

        for name in model_names():
            m = _HF.search(load_model(name).source or "")
            if m:
                _SOURCES[name] = (m.group(1).lower(), m.group(2).lower())
    return _SOURCES


# ---------------------------------------------------------------------------------------------
# Weights and KV formats the log's settings imply

# (substring of the quantization setting or model id, kvcalc weight format), first match wins
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


def kv_dtype_of(kv_cache_dtype: str | None) -> str | None:
    """kvcalc's KV dtype of an engine's kv_cache_dtype setting (None: the model's)."""
    if kv_cache_dtype is None or str(kv_cache_dtype).startswith("auto"):
        return None
    text = str(kv_cache_dtype).lower()
    if "fp8" in text:
        return "fp8"
    if "int8" in text:
        return "int8"
    if text in ("bfloat16", "bf16"):
        return "bf16"
    if text in ("float16", "fp16", "half"):
        return "fp16"
    raise InvalidInputError(
        f"kv_cache_dtype {str(kv_cache_dtype)[:40]!r} is not one kvcalc sizes (auto, fp8*, "
        "bf16, fp16); pass --kv-dtype"
    )


# ---------------------------------------------------------------------------------------------
# The GPU


def hardware_matches(facts: LogFacts) -> list[str]:
    """The shipped GPU profiles whose memory (as torch reports it) the log prints, within
    0.3 %, nearest first (A100 80GB and H100 both report about 79.2 GiB); [] when the log
    prints none or no profile matches."""
    total = facts.printed.get("total_memory_bytes")
    if not total:
        return []
    from calc.data.registry import all_hardware

    near = [hw for hw in all_hardware()
            if abs(hw.budget_memory_bytes - total) <= 0.003 * hw.budget_memory_bytes]  # fmt: skip
    near.sort(key=lambda hw: abs(hw.budget_memory_bytes - total))
    return [hw.name for hw in near]


def hardware_of(facts: LogFacts) -> str | None:
    """The nearest of ``hardware_matches`` (None: none)."""
    found = hardware_matches(facts)
    return found[0] if found else None


# ---------------------------------------------------------------------------------------------
# The Deployment


@dataclass(frozen=True)
class LogDeployment:
    """The Deployment a start-up log describes, what the log stated (``facts``) and what kvcalc
    had to assume (``warnings``: one per setting taken as a default)."""

    deployment: Deployment
    facts: LogFacts
    warnings: list[str] = field(default_factory=list)


# kvcalc setting -> (the engine's own name, how a default is described) per engine
_STATED = {
    "vllm": (("tp", "tensor_parallel_size"), ("memory_fraction", "gpu_memory_utilization"),
             ("max_model_len", "max_model_len"), ("max_batched_tokens", "max_num_batched_tokens"),
             ("max_num_seqs", "max_num_seqs")),
    "sglang": (("tp", "tp_size"), ("memory_fraction", "mem_fraction_static"),
               ("max_model_len", "context_length"), ("max_batched_tokens", "chunked_prefill_size")),
    "trtllm": (("tp", "tp_size"), ("memory_fraction", "free_gpu_memory_fraction"),
               ("max_batched_tokens", "max_num_tokens"), ("max_num_seqs", "max_batch_size"),
               ("block_size", "tokens_per_block")),
}  # fmt: skip


# long: a log's facts over the release's defaults, a setting a step (engine wing's to split)
def deployment_from_log(
    source: str | Path | BinaryIO | LogFacts,
    *,
    # overrides of what the log states (None: as stated)
    model: str | None = None, hardware: str | None = None, engine_name: str | None = None,
    version: str | None = None, tp: int | None = None, pp: int | None = None,
    weight_dtype: str | None = None, kv_dtype: str | None = None,
    activation_bytes: float | None = None, overhead_bytes: float | None = None,
    mem_util: float | None = None, max_model_len: int | None = None,
    max_batched_tokens: int | None = None, max_num_seqs: int | None = None,
    block_size: int | None = None, compile_cache: str | None = None,
    moe_backend: str | None = None,
) -> LogDeployment:  # fmt: skip
    """The Deployment of a start-up log (its text, a path, a binary stream, or facts already
    read), the keyword arguments overriding what the log states."""
    from calc.data.registry import load_hardware, load_model
    from calc.deploy.deployment import EngineSettings
    from calc.deploy.engines.versions import parse_version

    if isinstance(source, LogFacts):
        facts = source
    elif isinstance(source, Path):
        facts = read_log_file(source, engine_name)
    else:
        facts = read_log(source, engine_name)
    s = facts.settings
    warnings: list[str] = []
    name = model or shipped_model_for(s.get("model"))
    if name is None:
        said = s.get("model")
        raise InvalidInputError(
            (f"model {str(said)[:120]!r} is not a shipped model" if said else
             "the log names no model") + "; pass --model (a shipped name, a YAML or a "
            "config.json path)"
        )  # fmt: skip
    cfg = load_model(name)
    hw_name = hardware
    if hw_name is None:  # --hardware > a device name > the memory total > h100
        hw_name, said = gpu_of_log(facts.devices, hardware_of(facts))
        warnings += said
        matches = hardware_matches(facts)
        by_name = any(hardware_for_gpu(n) for n in facts.devices)
        if len(matches) > 1 and hw_name == matches[0] and not by_name:
            gib = facts.printed["total_memory_bytes"] / 2**30
            warnings.append(f"the log's GPU memory ({gib:,.2f} GiB) is that of "
                            f"{', '.join(matches)}: predicted for {hw_name} (--hardware to "
                            "choose)")  # fmt: skip
    hw = load_hardware(hw_name)
    eng = engine(facts.engine)
    printed = _printed_release(facts.version)
    if version is None and printed is None:
        said = f"a {eng.title} version kvcalc cannot read ({facts.version[:40]!r})" \
            if facts.version else f"no {eng.title} version"  # fmt: skip
        warnings.append(f"the log prints {said}: predicted with {eng.versions.newest} "
                        "(--engine-version to choose)")  # fmt: skip
    tp_, ep, dp = _layout(facts, tp or s.get("tp") or 1)
    pp_ = pp or s.get("pp") or 1
    given = {"memory_fraction": mem_util, "max_model_len": max_model_len,
             "max_batched_tokens": max_batched_tokens, "max_num_seqs": max_num_seqs,
             "block_size": block_size, "tp": tp, "pp": pp}  # fmt: skip

    def setting(key: str):
        return given[key] if given[key] is not None else s.get(key)

    running = setting("max_num_seqs")
    if max_num_seqs is None and running is not None and _attention_dp(s) > 1:
        # the log's figure is the server's; kvcalc's limit is one attention-DP rank's
        # at the release the log names where it is a full one (0.4.3 maps to modelled 0.4.1
        # but splits as 0.4.3 does), else the modelled release it resolves to
        asked = version if version is not None else printed
        named = parse_version(asked or "")
        release = asked if named is not None and len(named) >= 3 else \
            eng.versions.resolve(asked).release  # fmt: skip
        running = eng.rank_running_requests(running, _attention_dp(s), release)

    settings = EngineSettings(
        name=facts.engine,
        version=version if version is not None else printed,
        mem_util=setting("memory_fraction"),
        block_size=setting("block_size"),
        max_batched_tokens=setting("max_batched_tokens"),
        max_num_seqs=running,
        max_model_len=setting("max_model_len"),
        cuda_graphs=False if s.get("enforce_eager") else None,
        compile_cache=compile_cache or s.get("compile_cache"),
        max_tokens=s.get("max_tokens"),
        activation_bytes=activation_bytes,
        overhead_bytes=overhead_bytes,
        **_admission_stated(s),
        **_state_stated(s, cfg),
        # one prefill batch's new prompt tokens (SGLang's --max-prefill-tokens, on every
        # server_args line: the default 16384 included)
        max_prefill_tokens=s.get("max_prefill_tokens"),
        moe_backend=moe_backend or _moe_stated(eng, s, cfg),
        # the MoE all-to-all the log states, where its experts are spread over GPUs (ep > 1)
        moe_a2a=s.get("moe_a2a") if ep > 1 else None,
    )
    if settings.max_batched_tokens is None:
        # the logged server ran its release's default step budget, whatever max model length
        # it states (TensorRT-LLM sizes an unstated one to it: trtllm/prompts.py)
        release = eng.versions.resolve(settings.version).release
        default = eng.defaults(eng.rules(release), hw).max_batched_tokens
        settings = replace(settings, max_batched_tokens=default)
    if weight_dtype is None:
        weight_dtype = weight_dtype_of(s)
        if weight_dtype is not None:
            warnings.append(f"weights sized as {weight_dtype} from the log's dtype/quantization/"
                            "model name (--weight-dtype to change)")  # fmt: skip
    kv = kv_dtype or kv_dtype_of(s.get("kv_cache_dtype"))
    layout = dict(tp=tp_, pp=pp_, ep=ep, dp=dp, weight_dtype=weight_dtype, kv_dtype=kv)
    dep, refused = _build(cfg, hw, layout, settings, from_log=moe_backend is None)
    ran = _resolved_auto(eng, dep, s)
    if ran is not None:  # the log's 'auto' printed after the overrides: the layer's own pick
        rule = eng.moe_runner(dep)
        dep, _ = _build(cfg, hw, layout, replace(settings, moe_backend=ran))
        warnings.append(f"the log prints its MoE runner setting resolved and still auto, so "
                        f"{eng.title}'s model overrides did not pick {rule[0]} as kvcalc's rule "
                        f"does ({rule[1]}): timed as {ran}, the layer's own auto")  # fmt: skip
    warnings += list(dep.engine_config.warnings)
    moe = refused or _moe_warning(eng, dep, s, from_log=moe_backend is None)
    if moe:
        warnings.append(moe)
    if ep > 1 and s.get("moe_a2a_backend") is not None and s.get("moe_a2a") is None:
        warnings.append(f"the log names {eng.title}'s MoE all-to-all backend "
                        f"{str(s['moe_a2a_backend'])[:40]}, which kvcalc does not time: its "
                        "expert-parallel traffic timed as the engine's default")  # fmt: skip
    default = _defaults_taken(dep, facts, given)
    if default:
        warnings.append(default)
    cold = eng.cold_compile_bytes(dep) if settings.compile_cache is None else 0.0
    if cold > 0:
        warnings.append(
            f"the log does not say whether torch.compile compiled afresh ('Compiling a graph "
            f"for ...') or loaded its graphs from the cache ('Directly load the compiled "
            f"graph(s) ...'): taken as cold, a fresh server's start, where {eng.title} "
            f"{dep.engine_config.version}'s Inductor benchmark copy of the embedding table "
            f"raises the profiled peak by {cold / 2**30:.2f} GiB (--compile-cache warm if the "
            "server loaded them)"
        )  # fmt: skip
    return LogDeployment(dep, facts, warnings)


def _build(cfg, hw, layout: dict, settings, *, from_log: bool = True):
    """(the Deployment, None), or where the engine refuses the MoE backend the log names on
    the deployment kvcalc reads (its experts' format guessed from the model id, say): the
    Deployment without it and the refusal as a warning."""
    from calc.deploy.deployment import Deployment

    try:
        return Deployment.build(cfg, hw, **layout, engine=settings), None
    except InvalidInputError as exc:
        if settings.moe_backend is None or not from_log:
            raise
        dep = Deployment.build(cfg, hw, **layout, engine=replace(settings, moe_backend=None))
        return dep, (f"the log's MoE backend {settings.moe_backend} is not one kvcalc can run "
                     f"on this deployment ({exc}); timed by the default rule")  # fmt: skip


def _moe_stated(eng, s: dict, cfg) -> str | None:
    """The MoE backend the log names (``EngineSettings.moe_backend``) where the model has
    routed experts and the backend is one the engine's MoE pipeline times; else None (the
    engine's default rule: ``_moe_warning`` says why)."""
    said = s.get("moe_backend")
    if cfg.moe is None or said is None:
        return None
    spelled = {b.upper(): b for b in eng.moe.backends}
    return spelled.get(str(said).upper())


def _resolved_auto(eng, dep, s: dict) -> str | None:
    """The runner a log's resolved 'auto' ran where kvcalc's default rule would take another
    (``Engine.moe_runner_past_overrides``: the release's model overrides did not fire, for a
    quantization or an all-to-all backend kvcalc's rule does not see); None: the rule's own."""
    if str(s.get("moe_backend", "")).lower() != "auto" or not s.get("moe_backend_resolved"):
        return None
    rule, ran = eng.moe_runner(dep), eng.moe_runner_past_overrides(dep)
    if rule is None or ran is None or rule[0] == ran[0]:
        return None
    return ran[0]


def _moe_warning(eng, dep, s: dict, *, from_log: bool = True) -> str | None:
    """The warning for a MoE model's log that names no backend kvcalc times: none named
    (the release's default rule taken: ``Engine.moe_runner``), one kvcalc does not time, or
    one it takes from the log but times by another backend's curve (``MoeRunner.stand_in``)."""
    if dep.model.moe is None:
        return None
    said = s.get("moe_backend")
    rule = eng.moe_runner(dep)
    if dep.engine.moe_backend is not None:
        if not from_log or rule is None or not rule.stand_in:
            return None
        return (f"the log names {eng.title}'s MoE backend {said}: taken as "
                f"{dep.engine.moe_backend}, which kvcalc does not time ({rule.why})")
    taken = f"timed as {rule[0]} ({rule[1]})" if rule is not None else \
        f"timed by kvcalc's {eng.title} fused-MoE curves"  # fmt: skip
    if said is None:
        if rule is None:
            return None  # the engine picks no kernels kvcalc rules on: nothing was assumed
        setting = _MOE_SETTING.get(eng.name, "its MoE backend")
        return (f"the log does not state the MoE runner ({setting}): {taken} (--moe-backend "
                "to state it)")  # fmt: skip
    if str(said).lower() == "auto":
        return None  # stated auto: the release's own rule, which kvcalc's follows
    if not eng.moe.backends:
        return (f"the log names {eng.title}'s MoE backend {said}: kvcalc does not take a "
                f"{eng.title} MoE backend as a setting, {taken}")  # fmt: skip
    return (f"the log names {eng.title}'s MoE backend {said}, which kvcalc does not time (it "
            f"times {', '.join(eng.moe.backends)}): {taken}")  # fmt: skip


# the engine's own name for its MoE backend setting, as a warning names it
_MOE_SETTING = {"sglang": "moe_runner_backend", "vllm": "--moe-backend",
                "trtllm": "moe_config.backend"}  # fmt: skip


def _admission_stated(s: dict) -> dict:
    """The settings that hold new requests back (``EngineSettings.recv_interval``,
    ``batch_wait_iters``, ``batch_wait_ratio``) where the log states them at a value that holds
    any back; an interval of 1, or a batch wait whose steps or ratio is 0, is the engine's own
    default (nothing held: TensorRT-LLM's ``_waiting_requests`` stops at either), left unset."""
    out: dict = {}
    if s.get("recv_interval", 1) > 1:
        out["recv_interval"] = s["recv_interval"]
    if s.get("batch_wait_iters") and s.get("batch_wait_ratio"):
        out["batch_wait_iters"] = s["batch_wait_iters"]
        out["batch_wait_ratio"] = s["batch_wait_ratio"]
    return out


def _state_stated(s: dict, cfg) -> dict:
    """The hybrid state pool's settings (``EngineSettings.mamba_ssm_dtype``,
    ``max_mamba_cache_size``) where the log states them and the model has recurrent-state
    layers (on any other model they size nothing)."""
    from calc.deploy.deployment import STATE_DTYPES

    if not cfg.n_layers_of("mamba", "mamba2", "linear_attention"):
        return {}
    out: dict = {}
    if str(s.get("mamba_ssm_dtype", "")).lower() in STATE_DTYPES:
        out["mamba_ssm_dtype"] = s["mamba_ssm_dtype"]
    if s.get("max_mamba_cache_size") is not None:
        out["max_mamba_cache_size"] = s["max_mamba_cache_size"]
    return out


def _layout(facts: LogFacts, tp: int) -> tuple[int, int, int | None]:
    """(kvcalc's tp, ep, dp) of the parallel settings a log states: vLLM's expert parallel
    spans its tp × dp GPUs, its data parallel without it is replicas; SGLang's DP attention
    splits its tp_size into attention-DP ranks of tp / dp GPUs."""
    s = facts.settings
    ep, dp = 1, None
    if facts.engine == "vllm" and s.get("expert_parallel"):
        ep = tp * (s.get("dp") or 1)
    elif facts.engine == "vllm" and s.get("dp"):
        dp = s["dp"]
    elif facts.engine == "sglang" and _attention_dp(s) > 1:
        ep = s.get("ep") or tp
        tp = max(1, tp // _attention_dp(s))
    elif facts.engine in ("sglang", "trtllm") and s.get("ep", 1) > 1:
        ep = s["ep"]
    return tp, ep, dp


def _attention_dp(s: dict) -> int:
    """The attention-DP ranks a log's settings state: SGLang's ``attn_dp_size`` (0.5.22+), or
    its older ``dp_size`` with ``enable_dp_attention``; 1 without attention DP."""
    if s.get("attn_dp", 1) > 1:
        return s["attn_dp"]
    return s["dp"] if s.get("dp_attention") and s.get("dp") else 1


# kvcalc setting -> the `kvcalc log` option that supplies it (calc.deploy.options's flags)
_OPTION = {"tp": "tp", "memory_fraction": "mem_util", "max_model_len": "max_model_len",
           "max_batched_tokens": "max_batched_tokens", "max_num_seqs": "max_num_seqs",
           "block_size": "block_size"}  # fmt: skip


def _defaults_taken(dep, facts: LogFacts, given: dict) -> str | None:
    """The one warning naming every setting neither the log nor an option states, with the
    default taken and the option that would supply it."""
    from calc.deploy.options import OPTION_SPECS

    flags = {o.name: o.flag for o in OPTION_SPECS}
    s, ec, cfg = facts.settings, dep.engine_config, dep.model
    missing = []
    for key, label in _STATED[facts.engine]:
        if key in s or given.get(key) is not None:
            continue
        value = {"tp": dep.tp, "memory_fraction": ec.memory_fraction,
                 "max_model_len": ec.max_model_len or cfg.max_ctx,
                 "max_batched_tokens": ec.max_batched_tokens,
                 "max_num_seqs": ec.max_num_seqs, "block_size": ec.block_size}[key]  # fmt: skip
        shown = "automatic" if value is None else f"{value:,}" if isinstance(value, int) \
            else f"{value:g}"  # fmt: skip
        missing.append(f"{label} {shown} ({flags[_OPTION[key]]})")
    if not missing:
        return None
    title = engine(facts.engine).title
    return (f"the log does not state {', '.join(missing)}: taken as {title} {ec.version}'s "
            f"defaults on {dep.hardware.name} (give the option named, or pass the engine's "
            "start-up lines that print them)")  # fmt: skip
