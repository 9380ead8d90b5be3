"""Which values of the settings kvcalc sizes an engine release accepts: its KV page [tokens]
(vLLM ``--block-size``, SGLang ``--page-size``, TensorRT-LLM ``tokens_per_block``) and its
KV-cache dtype (kvcalc's ``--kv-dtype`` name -> the engine's own value), each read from the
release's argument parser (tests/data/engine_options/, captured from the released wheels and
documents) or its start-up code. A value the release refuses is one error line
(``refusal``) before anything is sized; one it takes but may not run as kvcalc sized it is a
warning (``notes``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from calc.deploy.engines.versions import parse_version

if TYPE_CHECKING:
    from calc.deploy.deployment import Deployment
    from calc.deploy.engines.base import Engine


@dataclass(frozen=True)
class PageRule:
    """What one range of releases takes as its KV page [tokens]."""

    flag: str  # the engine's name of the setting
    # the parser's choices (None: any positive integer)
    choices: tuple[int, ...] | None = None
    multiple: int = 1  # refused unless a multiple of this (start-up code)
    power_of_two: bool = False  # refused unless a power of two (start-up code)
    # taken by the parser but warned unless a multiple of this (kernels that may refuse it)
    warn_multiple: int = 1
    only: int | None = None  # the release has no such option: every page holds this many
    why: str = ""  # the start-up rule's source, said in the error or the warning


@dataclass(frozen=True)
class KvRule:
    """The KV-cache dtypes one range of releases has an option value for."""

    flag: str  # the engine's name of the setting
    # kvcalc's KV dtype (calc.formulas.quant) -> the engine's value, beyond its "auto" (the
    # model's own dtype, or 16 bit, which every release takes)
    names: dict[str, str]
    # kvcalc's KV dtype -> what the engine's value stores beyond kvcalc's sizing (a warning)
    notes: dict[str, str] = field(default_factory=dict)


def _rule(rows, release: str):
    return next((r for versions, r in rows if versions.holds(release)), None)


def page_rule(e: Engine, release: str) -> PageRule | None:
    return _rule(e.page_rules, release)


def kv_rule(e: Engine, release: str) -> KvRule | None:
    return _rule(e.kv_rules, release)


def own_kv(dep: Deployment) -> bool:
    """``dep``'s KV dtype is what the engine's "auto" stores: the model's own, or 16 bit."""
    own = dep.model.kv_dtype or dep.model.dtype
    return dep.kv_dtype in ("bf16", "fp16") or dep.kv_dtype == own


def kv_value(dep: Deployment) -> str | None:
    """The engine's value of ``dep``'s KV dtype at its release ("auto" for the model's own or
    16 bit), or None where the release has none (kvcalc's name kept where no rule is known)."""
    if own_kv(dep):
        return "auto"
    rule = kv_rule(dep.engine_model, dep.engine_config.version)
    return dep.kv_dtype if rule is None else rule.names.get(dep.kv_dtype)


def refusal(dep: Deployment) -> str | None:
    """Why ``dep``'s engine release refuses its stated KV page or its KV dtype, or None."""
    return _page_refusal(dep) or _kv_refusal(dep)


def _page_refusal(dep: Deployment) -> str | None:
    size = dep.engine.block_size
    e, release = dep.engine_model, dep.engine_config.version
    rule = page_rule(e, release) if size is not None else None
    if rule is None:
        return None
    head = f"--block-size {size}: {e.title} {release}"
    if rule.only is not None and size != rule.only:
        since = _first(e, release, lambda r: r.only is None)
        later = f"; use --engine-version {since} or later" if since else ""
        return (f"{head} has no {rule.flag} (its pages hold {rule.only} "
                f"token{'s' * (rule.only != 1)}){later}")
    if rule.choices is not None and size not in rule.choices:
        return f"{head}'s {rule.flag} takes only {', '.join(map(str, rule.choices))}"
    if size % rule.multiple:
        return (f"{head} starts only with a {rule.flag} that is a multiple of {rule.multiple} "
                f"({rule.why})")  # fmt: skip
    if rule.power_of_two and size & (size - 1):
        return f"{head}'s {rule.flag} must be a power of two ({rule.why})"
    return None


def _first(e: Engine, release: str, ok) -> str | None:
    """The first modelled release after ``release`` whose page rule passes ``ok``."""
    rel = e.versions.releases
    later = rel[rel.index(release) + 1 :] if release in rel else ()
    return next((r for r in later if (p := page_rule(e, r)) is not None and ok(p)), None)


def _kv_refusal(dep: Deployment) -> str | None:
    e, release = dep.engine_model, dep.engine_config.version
    rule = kv_rule(e, release)
    if rule is None or own_kv(dep) or dep.kv_dtype in rule.names:
        return None
    own = dep.model.kv_dtype or dep.model.dtype
    taken = ", ".join(sorted({"bf16", "fp16", own, *rule.names}))
    hint = next((f"; {e.title} {r} and later have it" for r in e.versions.releases
                 if parse_version(r) > parse_version(release)
                 and dep.kv_dtype in getattr(kv_rule(e, r), "names", {})), "")  # fmt: skip
    return (f"--kv-dtype {dep.kv_dtype}: {e.title} {release} has no {rule.flag} value for it "
            f"(the KV dtypes it takes: {taken}){hint}")  # fmt: skip


def notes(dep: Deployment, release: str) -> list[str]:
    """What ``dep``'s engine at ``release`` takes of its settings but may not run as kvcalc
    sized it."""
    e = dep.engine_model
    out = []
    size = dep.engine.block_size
    rule = page_rule(e, release) if size is not None else None
    if rule is not None and size % rule.warn_multiple:
        out.append(f"--block-size {size}: {e.title} {release}'s parser takes it, but {rule.why}: "
                   f"its start-up may refuse a page that is not a multiple of "
                   f"{rule.warn_multiple} tokens")  # fmt: skip
    kv = kv_rule(e, release)
    if kv is not None and not own_kv(dep) and dep.kv_dtype in kv.notes:
        out.append(f"--kv-dtype {dep.kv_dtype} ({kv.flag} {kv.names[dep.kv_dtype]}): "
                   f"{kv.notes[dep.kv_dtype]}")  # fmt: skip
    return out
