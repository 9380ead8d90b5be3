"""Capture the command-line option table of each modelled engine release, for the tests that
parse every command kvcalc prints (tests/test_engine_commands.py).

Usage (a dev tool; it downloads wheels from PyPI, so it is not part of the suite):

    python tools/capture_engine_options.py vllm 0.33.0 0.19.1 ...   # or: vllm all
    python tools/capture_engine_options.py sglang 0.5.23 0.5.4
    python tools/capture_engine_options.py --src DIR vllm 0.33.0     # an unpacked wheel

Method. Importing an engine's argument parser needs the engine's own dependencies (CUDA
builds of torch, flashinfer, triton, sgl-kernel ...), which a CPU machine cannot install, so
the parsers are read statically from each release's source (``ast``, nothing executed):

- vLLM (``vllm serve``; ``vllm/engine/arg_utils.py``, ``vllm/entrypoints/*/cli_args.py``,
  ``vllm/entrypoints/cli/serve.py``): every ``add_argument`` call's option strings; an option
  built from a config dataclass field (``**model_kwargs["enforce_eager"]`` with
  ``model_kwargs = get_kwargs(ModelConfig)``, or a ``FrontendArgs`` field) takes its kind from
  the field's annotation as ``get_kwargs`` does: a bool is a flag (``BooleanOptionalAction``:
  ``--x`` and ``--no-x``), a ``Literal`` (or an alias of one) gives the choices. vLLM's parser
  accepts ``_`` for ``-`` in option names and does not accept abbreviations.
- SGLang (``python -m sglang.launch_server``; ``srt/server_args.py`` and, from 0.5.16,
  ``srt/arg_groups/``): literal ``add_argument`` calls, and the fields of the msgspec structs
  annotated ``A[type, "help"]`` or ``A[type, Arg(...)]`` (``--field-name`` plus the Arg's
  aliases; a bool is ``store_true``; a Literal gives the choices), as
  ``add_cli_args_from_dataclass`` builds them. argparse's prefix matching is on: an
  abbreviation that matches several options is an error ("ambiguous option: --pp").

- TensorRT-LLM (``trtllm-serve``): its PyPI package is a stub that fetches the wheel from
  NVIDIA's index, and no stored ``tensorrt_llm/commands/serve.py`` could be tied to a release,
  so each release's table is read from its published CLI reference (``--trtllm-docs PAGE
  VERSION COMMIT``): NVIDIA/TensorRT-LLM's gh-pages branch keeps
  ``<version>/commands/trtllm-serve/trtllm-serve.html``, sphinx-click's rendering of that
  release's ``serve.py`` (each option's names, a ``<metavar>`` when it takes a value, the
  ``Options:`` of a ``click.Choice``) whose footer names the commit it was built from; PAGE is
  the page, or a copy of its ``serve`` and ``disaggregated`` sections and footer, COMMIT the
  gh-pages commit it was read at; both go in the table's ``meta``. A ``serve.py`` of a known
  release can be read instead (``--trtllm-serve FILE VERSION NOTE``: the ``@click.option``
  decorators of ``serve``, by ``ast``). Click does not accept abbreviations. The YAML that
  ``--extra_llm_api_options`` reads is checked against ``trtllm_yaml_keys`` (per release).

Each table is a compact JSON: option -> [takes a value (0/1), choices or null, dest], plus the
positional arguments and, for vLLM, the fields of KVTransferConfig and the registered KV
connectors (what ``--kv-transfer-config`` accepts).
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "engine_options"


# ---------------------------------------------------------------------------------------------
# Reading Python source without running it


def _parse(path: Path) -> ast.Module | None:
    try:
        return ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError):
        return None


def _literal_strings(node: ast.AST, aliases: dict | None = None) -> list[str] | None:
    """The string values of a Literal[...] subscript (nested Literals and aliases of them
    flattened)."""
    if isinstance(node, ast.Subscript) and _name(node.value) == "Literal":
        elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        out = []
        for e in elts:
            if isinstance(e, ast.Constant):
                out.append(str(e.value))
            elif aliases is not None and _name(e) in aliases:
                out += aliases[_name(e)]
            else:
                inner = _literal_strings(e, aliases)
                if inner is None:
                    return None
                out += inner
        return out
    return None


def _name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


class Source:
    """Module-level Literal aliases, list constants and dataclass field annotations of a tree
    of source files."""

    def __init__(self, files: list[Path]) -> None:
        self.aliases: dict[str, list[str]] = {}
        self.lists: dict[str, list[str]] = {}
        self.fields: dict[str, dict[str, ast.AST]] = {}
        for f in files:
            tree = _parse(f)
            if tree is None:
                continue
            for node in tree.body:
                target, value = None, None
                if isinstance(node, ast.Assign) and len(node.targets) == 1:
                    target, value = _name(node.targets[0]), node.value
                elif isinstance(node, ast.AnnAssign) and node.value is not None:
                    target, value = _name(node.target), node.value
                if target and value is not None:
                    lit = _literal_strings(value, self.aliases)
                    if lit is not None:
                        self.aliases[target] = lit
                    elif isinstance(value, ast.List | ast.Tuple) and all(
                        isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts
                    ):
                        self.lists[target] = [e.value for e in value.elts]
                if isinstance(node, ast.ClassDef):
                    fields = {}
                    for item in node.body:
                        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                            fields[item.target.id] = item.annotation
                    self.fields.setdefault(node.name, {}).update(fields)

    def kind(self, annotation: ast.AST | None) -> tuple[int, list[str] | None]:
        """(takes a value, choices) of an option built from a field of this annotation."""
        if annotation is None:
            return 1, None
        parts = _union(annotation)
        if any(_name(p) == "bool" for p in parts):
            return 0, None
        choices: list[str] = []
        for p in parts:
            if _name(p) in ("None",) or (isinstance(p, ast.Constant) and p.value is None):
                continue
            lit = _literal_strings(p, self.aliases)
            if lit is None and _name(p) in self.aliases:
                lit = self.aliases[_name(p)]
            if lit is None:
                return 1, None  # any value of some other type is accepted
            choices += lit
        return 1, sorted(set(choices)) or None


def _union(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union(node.left) + _union(node.right)
    if isinstance(node, ast.Subscript) and _name(node.value) in ("Optional", "Union"):
        elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        return [x for e in elts for x in _union(e)]
    if isinstance(node, ast.Subscript) and _name(node.value) in (
        "A",
        "Annotated",
        "SkipValidation",
    ):
        first = node.slice.elts[0] if isinstance(node.slice, ast.Tuple) else node.slice
        return _union(first)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            return _union(ast.parse(node.value, mode="eval").body)
        except SyntaxError:
            return [node]
    return [node]


def _kw(call: ast.Call, name: str) -> ast.AST | None:
    for k in call.keywords:
        if k.arg == name:
            return k.value
    return None


def add_argument_calls(tree: ast.AST, src: Source, kwargs_classes: dict[str, str]) -> dict:
    """option -> [takes value, choices, dest] of every add_argument call in ``tree``."""
    out: dict = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and _name(node.func) == "add_argument"):
            continue
        names = [a.value for a in node.args if isinstance(a, ast.Constant)
                 and isinstance(a.value, str)]  # fmt: skip
        if not names:
            continue
        takes, choices = 1, None
        annotation = None
        for k in node.keywords:  # **model_kwargs["field"], or **{**model_kwargs["field"], ...}
            value = k.value
            if k.arg is None and isinstance(value, ast.Dict):
                value = next((v for key, v in zip(value.keys, value.values, strict=True)
                              if key is None), value)  # fmt: skip
            if k.arg is None and isinstance(value, ast.Subscript):
                var = _name(value.value)
                key = value.slice
                if var in kwargs_classes and isinstance(key, ast.Constant):
                    annotation = src.fields.get(kwargs_classes[var], {}).get(key.value)
                    takes, choices = src.kind(annotation)
        action = _kw(node, "action")
        bool_opt = False
        if action is not None:
            text = ast.unparse(action).lower()
            if any(w in text.replace("_", "") for w in ("storetrue", "storefalse", "storeconst")):
                takes = 0
            elif "booleanoptionalaction" in text:
                takes, bool_opt = 0, True
        if annotation is not None and takes == 0:
            bool_opt = True  # get_kwargs: bool fields are BooleanOptionalAction
        ch = _kw(node, "choices")
        if isinstance(ch, ast.List | ast.Tuple):
            vals = [e.value for e in ch.elts if isinstance(e, ast.Constant)]
            choices = [str(v) for v in vals] or choices
        elif ch is not None and _name(ch) in src.lists:
            choices = src.lists[_name(ch)]
        nargs = _kw(node, "nargs")
        if isinstance(nargs, ast.Constant) and nargs.value == 0:
            takes = 0
        longs = [n for n in names if n.startswith("--")] or names
        dest = _kw(node, "dest")
        dest = dest.value if isinstance(dest, ast.Constant) else longs[0].lstrip("-").replace(
            "-", "_")  # fmt: skip
        if not names[0].startswith("-"):
            out.setdefault("_positional", []).append(names[0])
            continue
        for n in names:
            out[n] = [takes, choices, dest]
            if bool_opt and n.startswith("--"):
                out["--no-" + n[2:]] = [0, None, dest]
    return out


def kwargs_classes(tree: ast.AST) -> dict[str, str]:
    """``x_kwargs = get_kwargs(ClassName)`` assignments: variable -> class."""
    out = {}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                and _name(node.value.func) == "get_kwargs" and node.value.args):  # fmt: skip
            cls = _name(node.value.args[0])
            for t in node.targets:
                if _name(t) and cls:
                    out[_name(t)] = cls
    return out


# ---------------------------------------------------------------------------------------------
# vLLM


def vllm_table(root: Path, version: str) -> dict:
    pkg = root / "vllm"
    config_files = sorted((pkg / "config").glob("*.py")) if (pkg / "config").is_dir() else []
    config_files += [p for p in (pkg / "config.py",) if p.exists()]
    arg_utils = pkg / "engine" / "arg_utils.py"
    frontends = sorted(pkg.glob("entrypoints/*/cli_args.py"))
    serve = pkg / "entrypoints" / "cli" / "serve.py"
    extra = sorted(pkg.glob("distributed/kv_transfer/kv_connector/factory.py"))
    src = Source([*config_files, arg_utils, *frontends, serve, *sorted(pkg.glob("*.py"))])
    options: dict = {}
    tree = _parse(arg_utils)
    options.update(add_argument_calls(tree, src, kwargs_classes(tree)))
    for f in frontends:
        t = _parse(f)
        if t is None:
            continue
        options.update(add_argument_calls(t, src, kwargs_classes(t)))
        for node in ast.walk(t):  # FrontendArgs fields become --field-name options
            if isinstance(node, ast.ClassDef) and node.name in ("FrontendArgs", "BaseFrontendArgs"):
                for item in node.body:
                    if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                        name = item.target.id
                        if name.startswith("_"):
                            continue
                        takes, choices = src.kind(item.annotation)
                        flag = "--" + name.replace("_", "-")
                        options.setdefault(flag, [takes, choices, name])
                        if takes == 0:
                            options.setdefault("--no-" + flag[2:], [0, None, name])
    t = _parse(serve)
    if t is not None:
        options.update(add_argument_calls(t, src, kwargs_classes(t)))
    positional = options.pop("_positional", [])
    kv_fields = sorted(src.fields.get("KVTransferConfig", {}))
    kv_role = src.kind(src.fields.get("KVTransferConfig", {}).get("kv_role"))[1]
    connectors = []
    for f in extra:
        t = _parse(f)
        for node in ast.walk(t) if t else []:
            if (isinstance(node, ast.Call) and _name(node.func) == "register_connector"
                    and node.args and isinstance(node.args[0], ast.Constant)):  # fmt: skip
                connectors.append(node.args[0].value)
    return {
        "engine": "vllm",
        "version": version,
        "command": ["vllm", "serve"],
        "source": f"vllm=={version} wheel (PyPI), read statically by "
        "tools/capture_engine_options.py",
        "allow_abbrev": False,
        "underscores": True,
        "positional": positional,
        "options": dict(sorted(options.items())),
        "json_options": {"--kv-transfer-config": {"fields": kv_fields, "kv_role": kv_role,
                                                  "kv_connector": sorted(set(connectors))}},
    }  # fmt: skip


# ---------------------------------------------------------------------------------------------
# SGLang


def sglang_table(root: Path, version: str) -> dict:
    srt = root / "sglang" / "srt"
    files = [srt / "server_args.py", *sorted((srt / "arg_groups").rglob("*.py"))]
    files = [f for f in files if f.exists()]
    src = Source(files + sorted((srt / "utils").glob("*.py")))
    options: dict = {}
    for f in files:
        t = _parse(f)
        if t is None:
            continue
        options.update(add_argument_calls(t, src, {}))
        for node in ast.walk(t):
            if not isinstance(node, ast.ClassDef):
                continue
            for item in node.body:
                if not (isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)):
                    continue
                ann = item.annotation
                if not (isinstance(ann, ast.Subscript) and _name(ann.value) == "A"):
                    continue
                elts = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
                if len(elts) < 2:
                    continue
                meta = elts[1]
                aliases, cli_name, no_cli, choices = [], None, False, None
                action = None
                if isinstance(meta, ast.Call) and _name(meta.func) == "Arg":
                    al = _kw(meta, "aliases")
                    if isinstance(al, ast.List | ast.Tuple):
                        aliases = [e.value for e in al.elts if isinstance(e, ast.Constant)]
                    cn = _kw(meta, "cli_name")
                    cli_name = cn.value if isinstance(cn, ast.Constant) else None
                    nc = _kw(meta, "no_cli")
                    no_cli = isinstance(nc, ast.Constant) and nc.value is True
                    ch = _kw(meta, "choices")
                    if isinstance(ch, ast.List | ast.Tuple):
                        choices = [str(e.value) for e in ch.elts if isinstance(e, ast.Constant)]
                    elif ch is not None and _name(ch) in src.lists:
                        choices = src.lists[_name(ch)]
                    act = _kw(meta, "action")
                    action = ast.unparse(act) if act is not None else None
                elif not (isinstance(meta, ast.Constant) and isinstance(meta.value, str)):
                    continue
                if no_cli:
                    continue
                name = item.target.id
                takes, lit = src.kind(elts[0])
                if action is not None and any(
                    w in action.lower().replace("_", "") for w in ("storetrue", "storefalse")
                ):
                    takes = 0
                flag = cli_name or "--" + name.replace("_", "-")
                for n in [flag, *aliases]:
                    options[n] = [takes, choices or lit, name]
    positional = options.pop("_positional", [])
    return {
        "engine": "sglang",
        "version": version,
        "command": ["python", "-m", "sglang.launch_server"],
        "source": f"sglang=={version} wheel (PyPI), read statically by "
        "tools/capture_engine_options.py",
        "allow_abbrev": True,
        "underscores": False,
        "positional": positional,
        "options": dict(sorted(options.items())),
    }


# ---------------------------------------------------------------------------------------------
# TensorRT-LLM

# keys of the YAML --extra_llm_api_options reads that kvcalc writes (LlmArgs / TorchLlmArgs
# fields, KvCacheConfig.dtype / tokens_per_block / enable_block_reuse,
# CacheTransceiverConfig.backend), declared by hand, since the YAML is validated by pydantic
# models (StrictBaseModel: an unknown key is an error), not by the click parser. Read in each
# release's published llm_args.py (gh-pages <version>/_modules/tensorrt_llm/llmapi/
# llm_args.html): 1.0.0's KvCacheConfig has enable_block_reuse, free_gpu_memory_fraction and
# dtype ("auto") but no tokens_per_block, its CacheTransceiverConfig.backend is
# Literal["DEFAULT", "UCX", "NIXL", "MPI"], its BaseLlmArgs (extra "forbid") has
# enable_attention_dp, kv_cache_config, enable_chunked_prefill and cache_transceiver_config
# (TorchLlmArgs' disable_overlap_scheduler not re-read); 1.1.0's KvCacheConfig adds tokens_per_block
# (int, 32). The later releases keep them (the llm_args.py revisions of
# bench/validation_sources.py). kvcalc writes tokens_per_block for DeepSeek sparse attention
# alone; backend upper case since PR 6323 (July 2025, before 1.0.0). MoeConfig.backend: 1.0.0's
# Literal["CUTLASS", "CUTEDSL", "WIDEEP", "TRTLLM", "DEEPGEMM", "VANILLA"] (default CUTLASS;
# a later revision adds "TRITON", which kvcalc never writes); kvcalc writes TRTLLM or DEEPGEMM
# where --moe-backend states it (calc/deploy/engines/trtllm/moe_backend.py).
# batch_wait_timeout_iters (int) and batch_wait_max_tokens_ratio (float in [0, 1]): TorchLlmArgs
# fields from NVIDIA/TensorRT-LLM pulls 7287/7416 (on main after the 1.0 release branch; 1.0.0's
# llm_args.py not re-read for them, so taken as absent there: calc/deploy/engines/trtllm/rules.py
# batch_wait_keys); kvcalc writes them where --batch-wait-iters/--batch-wait-ratio state them
TRTLLM_YAML_KEYS = {
    "enable_chunked_prefill": "bool",
    "enable_attention_dp": "bool",
    "disable_overlap_scheduler": "bool",
    "kv_cache_config": {"dtype": ["auto", "fp8"], "free_gpu_memory_fraction": "float",
                        "tokens_per_block": "int", "enable_block_reuse": "bool"},
    "cache_transceiver_config": {"backend": ["DEFAULT", "UCX", "NIXL", "MPI"]},
    "moe_config": {"backend": ["CUTLASS", "CUTEDSL", "WIDEEP", "TRTLLM", "DEEPGEMM", "VANILLA"]},
    "batch_wait_timeout_iters": "int",
    "batch_wait_max_tokens_ratio": "float",
}
# keys a release does not have (read as above): a section's keys, or a top-level key under ""
TRTLLM_YAML_ABSENT = {"1.0.0": {"kv_cache_config": ("tokens_per_block",),
                                "": ("batch_wait_timeout_iters", "batch_wait_max_tokens_ratio")}}


def trtllm_yaml_keys(version: str) -> dict:
    """The YAML keys kvcalc writes that ``version`` accepts."""
    keys = {k: dict(v) if isinstance(v, dict) else v for k, v in TRTLLM_YAML_KEYS.items()}
    for section, absent in TRTLLM_YAML_ABSENT.get(version, {}).items():
        for key in absent:
            (keys[section] if section else keys).pop(key)
    return keys


def _trtllm(version: str, options: dict, source: str, meta: dict) -> dict:
    return {
        "engine": "trtllm",
        "version": version,
        "command": ["trtllm-serve"],
        "source": source,
        "meta": meta,
        "allow_abbrev": False,
        "underscores": False,
        "positional": ["model"],
        "options": dict(sorted(options.items())),
        "yaml_options": {"--extra_llm_api_options": trtllm_yaml_keys(version)},
    }


def trtllm_table(serve_py: Path, version: str, source: str) -> dict:
    """The table of ``trtllm-serve`` from ``serve.py`` source (the ``serve`` function's
    ``@click.option`` decorators, read by ``ast``)."""
    options: dict = {}
    tree = _parse(serve_py)
    for node in ast.walk(tree) if tree else []:
        if not (isinstance(node, ast.FunctionDef) and node.name == "serve"):
            continue
        for dec in node.decorator_list:
            if not (isinstance(dec, ast.Call) and _name(dec.func) == "option"):
                continue
            names = [a.value for a in dec.args if isinstance(a, ast.Constant)
                     and str(a.value).startswith("-")]  # fmt: skip
            flag = _kw(dec, "is_flag")
            takes = 0 if isinstance(flag, ast.Constant) and flag.value is True else 1
            choices = None
            typ = _kw(dec, "type")
            if isinstance(typ, ast.Call) and _name(typ.func) in ("Choice", "ChoiceWithAlias"):
                first = typ.args[0] if typ.args else None
                if isinstance(first, ast.List | ast.Tuple):
                    choices = [str(e.value) for e in first.elts if isinstance(e, ast.Constant)]
                    alias = typ.args[1] if len(typ.args) > 1 else None
                    if isinstance(alias, ast.Dict):
                        choices += [str(k.value) for k in alias.keys
                                    if isinstance(k, ast.Constant)]  # fmt: skip
            dest = names[0].lstrip("-") if names else ""
            for n in names:
                options[n] = [takes, choices, dest]
    meta = {"how": "ast over serve.py: the serve command's @click.option decorators"}
    return _trtllm(version, options, source, meta)


# the published CLI reference of a release: NVIDIA/TensorRT-LLM's gh-pages branch keeps each
# release's documentation under <version>/, and <version>/commands/trtllm-serve/trtllm-serve.html
# holds sphinx-click's rendering of that release's serve command (its Syntax section), built
# from the release's own serve.py; its footer names the TensorRT-LLM commit it was built from
_ENTRY = r'<dt class="sig sig-object std" id="cmdoption-trtllm-serve-{}-([^"]+)">'
_NAME = re.compile(r'<span class="sig-name descname"><span class="pre">([^<]+)</span></span>')
_CHOICES = re.compile(r'Options<span class="colon">:</span></dt>\s*'
                      r'<dd class="field-odd"><p>([^<]*)</p>')  # fmt: skip
_BUILT_FROM = re.compile(r'generated by TensorRT-LLM commit <a href="https://github.com/NVIDIA/'
                         r'TensorRT-LLM/tree/([0-9a-f]{7,40})"')  # fmt: skip
_UPDATED = re.compile(r"Last updated on ([A-Z][a-z]+ \d{1,2}, \d{4})\.")
_DOC_VERSION = re.compile(r'<meta name="docsearch:version" content="([^"]+)"')


def sphinx_click_options(html: str, command: str = "serve") -> tuple[dict, list[str]]:
    """(option -> [takes a value, choices or None, dest], positional arguments) of the
    ``trtllm-serve`` subcommand ``command`` as sphinx-click renders it: each option entry's
    names (the first long one is click's parameter name), a ``<metavar>`` when it takes a value
    (a flag shows none), the ``Options:`` field when its type is a ``click.Choice``."""
    section = re.search(rf'<section id="trtllm-serve-{command}">(.*?)</section>', html, re.S)
    if section is None:
        raise SystemExit(f"no <section id=\"trtllm-serve-{command}\"> in the page")
    entry = re.compile(_ENTRY.format(command) + r'(.*?)</dt>(.*?)(?=<dt class="sig sig-object '
                       r'std"|\Z)', re.S)  # fmt: skip
    options: dict = {}
    positional: list[str] = []
    for anchor, head, body in entry.findall(section.group(1)):
        names = _NAME.findall(head)
        if anchor.startswith("arg-"):
            positional += [n.lower() for n in names]
            continue
        takes = 1 if "&lt;" in head else 0
        found = _CHOICES.search(body)
        choices = [c.strip() for c in found.group(1).split("|")] if found else None
        dest = next((n for n in names if n.startswith("--")), names[0]).lstrip("-")
        dest = dest.replace("-", "_")  # click's parameter name (--metrics-log-interval)
        for n in names:
            options[n] = [takes, choices, dest]
    if not options:
        raise SystemExit("no options in the serve section")
    return options, positional


def trtllm_docs_table(html: str, version: str, gh_pages_commit: str) -> dict:
    """The table of ``trtllm-serve`` ``version`` from its published CLI reference page."""
    shown = _DOC_VERSION.search(html)  # the page's own version, where the copy holds it
    if shown is not None and shown.group(1) != version:
        raise SystemExit(f"the page documents {shown.group(1)}, not {version}")
    options, positional = sphinx_click_options(html)
    router, _ = sphinx_click_options(html, "disaggregated")  # the disaggregated router
    built = _BUILT_FROM.search(html)
    updated = _UPDATED.search(html)
    path = f"{version}/commands/trtllm-serve/trtllm-serve.html"
    meta = {
        "repo": "NVIDIA/TensorRT-LLM",
        "path": path,
        "commit": gh_pages_commit,
        "built_from_commit": built.group(1) if built else None,
        "last_updated": updated.group(1) if updated else None,
        "how": "the gh-pages branch's published CLI reference of the release (sphinx-click's "
        "rendering of its serve.py: option names, <metavar> for a value, Options: for a "
        "click.Choice), read by tools/capture_engine_options.py --trtllm-docs; a "
        "ChoiceWithAlias's aliases (trt for tensorrt) are not rendered, so not listed",
    }
    source = (f"NVIDIA/TensorRT-LLM {path} at gh-pages commit {gh_pages_commit} (the "
              f"release's published trtllm-serve reference, built from TensorRT-LLM commit "
              f"{meta['built_from_commit']})")  # fmt: skip
    if positional != ["model"]:
        raise SystemExit(f"positional arguments {positional}, expected [model]")
    table = _trtllm(version, options, source, meta)
    table["subcommands"] = {"disaggregated": dict(sorted(router.items()))}
    return table


# ---------------------------------------------------------------------------------------------


def unpack(engine: str, version: str, into: Path) -> Path:
    """The release's wheel from PyPI, its Python files unpacked under ``into``."""
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q",
                    f"{engine}=={version}", "-d", str(into)], check=True)  # fmt: skip
    wheel = next(into.glob(f"{engine}-{version}-*.whl"))
    with zipfile.ZipFile(wheel) as z:
        for name in z.namelist():
            if name.endswith(".py"):
                z.extract(name, into)
    return into


def main(argv: list[str]) -> int:
    src_dir = None
    if argv[:1] == ["--src"]:
        src_dir, argv = Path(argv[1]), argv[2:]
    if argv[:1] in (["--trtllm-serve"], ["--trtllm-docs"]):
        # --trtllm-serve SERVE.PY VERSION SOURCE-NOTE | --trtllm-docs PAGE.html VERSION COMMIT
        if argv[0] == "--trtllm-serve":
            table = trtllm_table(Path(argv[1]), argv[2], " ".join(argv[3:]))
        else:
            text = Path(argv[1]).read_text(encoding="utf-8")
            table = trtllm_docs_table(text, argv[2], argv[3])
        path = OUT / f"trtllm-{argv[2]}.json"
        path.write_text(json.dumps(table, separators=(",", ":"), sort_keys=True) + "\n")
        print(f"{path.relative_to(ROOT)}: {len(table['options'])} options")
        return 0
    if len(argv) < 2 or argv[0] not in ("vllm", "sglang"):
        print(__doc__)
        return 2
    engine, versions = argv[0], argv[1:]
    OUT.mkdir(parents=True, exist_ok=True)
    build = vllm_table if engine == "vllm" else sglang_table
    for version in versions:
        if src_dir is not None:
            table = build(src_dir, version)
        else:
            with tempfile.TemporaryDirectory() as tmp:
                table = build(unpack(engine, version, Path(tmp)), version)
        path = OUT / f"{engine}-{version}.json"
        path.write_text(json.dumps(table, separators=(",", ":"), sort_keys=True) + "\n")
        print(f"{path.relative_to(ROOT)}: {len(table['options'])} options")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
