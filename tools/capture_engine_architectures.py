"""Capture which model architectures (a checkpoint's config.json ``architectures[0]``) each
modelled engine release can load, into calc/data/engine_architectures.json (read by
``calc.data.engine_architectures``; the engine wing refuses a release older than the model).

Usage (a dev tool; it downloads wheels from PyPI, so it is not part of the suite):

    python tools/capture_engine_architectures.py             # every modelled vLLM, SGLang release
    python tools/capture_engine_architectures.py --src ROOT  # ROOT/<engine>-<version>/src

Method. Each release's wheel is read statically (``ast``, nothing imported or executed):

- vLLM: ``vllm/model_executor/models/registry.py``, the keys of ``_TEXT_GENERATION_MODELS``,
  ``_MULTIMODAL_MODELS`` and (from 0.24) ``_TRANSFORMERS_SUPPORTED_MODELS`` (architectures
  moved from a native model file to the Transformers backend, still listed as supported): the
  architectures ``vllm serve`` runs for generation. The embedding, scoring and draft-model
  tables are left out, and so is the generic Transformers fallback for unlisted
  architectures (not a supported model). ``_PREVIOUSLY_SUPPORTED_MODELS`` are the removed.
- SGLang: ``sglang/srt/models/*.py`` (and package ``__init__``), the classes each module names
  in ``EntryClass`` (``srt/models/registry.py`` registers each by its ``__name__``).
- TensorRT-LLM: its wheel is not on PyPI (the package is a stub that fetches it from NVIDIA's
  index), and ``tensorrt_llm/_torch/models`` (each ``modeling_*.py``'s
  ``@register_auto_model("...")``) could not be read at a commit tied to a modelled release
  (``TRTLLM_TRIED``: what was tried, kept in the entry's ``meta``). Each release is recorded as
  not read (``"read": {release: null}``) with no architectures, so kvcalc refuses no
  TensorRT-LLM release for its architecture. ``--trtllm`` rewrites that entry alone.

The stored table is, per engine, architecture -> the releases where loading it starts and
stops, alternately (``["0.4.5"]``: from 0.4.5 on; ``["0.10.0", "0.15.0"]``: 0.10.0 up to but
not including 0.15.0), over the modelled releases only, plus each wheel's file name and
sha256.
"""

from __future__ import annotations

import ast
import hashlib
import json
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = ROOT / "calc" / "data" / "engine_architectures.json"

VLLM_TABLES = ("_TEXT_GENERATION_MODELS", "_MULTIMODAL_MODELS", "_TRANSFORMERS_SUPPORTED_MODELS")
VLLM_REGISTRY = "vllm/model_executor/models/registry.py"
SGLANG_MODELS = "sglang/srt/models/"


def _dict_keys(node: ast.AST) -> list[str]:
    """The string keys of a dict literal (``**{...}`` inside it followed)."""
    out: list[str] = []
    if isinstance(node, ast.Dict):
        for k, v in zip(node.keys, node.values, strict=True):
            if k is None:
                out += _dict_keys(v)
            elif isinstance(k, ast.Constant) and isinstance(k.value, str):
                out.append(k.value)
    return out


def vllm_architectures(files: dict[str, str]) -> set[str]:
    """The architectures of a vLLM release's registry (``files``: path -> text)."""
    tree = ast.parse(files[VLLM_REGISTRY])
    found: set[str] = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, ast.AnnAssign) else [])  # fmt: skip
        for t in targets:
            if isinstance(t, ast.Name) and t.id in VLLM_TABLES and node.value is not None:
                found |= set(_dict_keys(node.value))
    if not found:
        raise SystemExit("vLLM registry: no architecture tables found")
    return found


def sglang_architectures(files: dict[str, str]) -> set[str]:
    """The classes SGLang's model modules name in ``EntryClass`` (``files``: path -> text of
    each top-level module of sglang/srt/models and each package __init__ there)."""
    found: set[str] = set()
    for path, text in files.items():
        rest = path[len(SGLANG_MODELS) :]
        top = rest.count("/") == 0 or (rest.endswith("/__init__.py") and rest.count("/") == 1)
        if not top:
            continue
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for node in tree.body:
            if not isinstance(node, ast.Assign):
                continue
            if not any(isinstance(t, ast.Name) and t.id == "EntryClass" for t in node.targets):
                continue
            elts = node.value.elts if isinstance(node.value, ast.List | ast.Tuple) else [node.value]
            for e in elts:
                if isinstance(e, ast.Name):
                    found.add(e.id)
                elif isinstance(e, ast.Attribute):
                    found.add(e.attr)
    if not found:
        raise SystemExit("SGLang models: no EntryClass found")
    return found


def _wanted(engine: str, name: str) -> bool:
    if engine == "vllm":
        return name == VLLM_REGISTRY
    return name.startswith(SGLANG_MODELS) and name.endswith(".py")


def _from_wheel(engine: str, version: str) -> tuple[dict[str, str], str, str]:
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q",
                        f"{engine}=={version}", "-d", tmp], check=True)  # fmt: skip
        wheel = next(Path(tmp).glob(f"{engine}-*.whl"))
        sha = hashlib.sha256(wheel.read_bytes()).hexdigest()
        with zipfile.ZipFile(wheel) as z:
            files = {n: z.read(n).decode("utf-8", "replace") for n in z.namelist()
                     if _wanted(engine, n)}  # fmt: skip
        return files, wheel.name, sha


def _from_src(root: Path, engine: str, version: str) -> tuple[dict[str, str], str, str]:
    d = root / f"{engine}-{version}"
    src = d / "src"
    files = {
        p.relative_to(src).as_posix(): p.read_text(encoding="utf-8", errors="replace")
        for p in src.rglob("*.py")
        if _wanted(engine, p.relative_to(src).as_posix())
    }
    return files, (d / "wheel_name").read_text().strip(), (d / "wheel_sha256").read_text().strip()


def spans(releases: tuple[str, ...], present: list[set[str]]) -> dict[str, list[str]]:
    """architecture -> the releases where it starts and stops being loadable, alternately."""
    out: dict[str, list[str]] = {}
    every = set().union(*present)
    for arch in sorted(every):
        edges, was = [], False
        for rel, archs in zip(releases, present, strict=True):
            if (arch in archs) != was:
                edges.append(rel)
                was = not was
        out[arch] = edges
    return out


def compact_json(data: dict) -> str:
    """JSON with one line per architecture, release or wheel (diffs read release by release)."""
    dump = json.dumps
    lines = ["{"]
    keys = sorted(data)
    for i, key in enumerate(keys):
        end = "," if i < len(keys) - 1 else ""
        value = data[key]
        if not isinstance(value, dict):
            lines.append(f"{dump(key)}: {dump(value)}{end}")
            continue
        lines.append(f"{dump(key)}: {{")
        parts = sorted(value)
        for j, part in enumerate(parts):
            sub = value[part]
            tail = "," if j < len(parts) - 1 else ""
            if isinstance(sub, dict):
                rows = [f" {dump(k)}: {dump(v)}" for k, v in sorted(sub.items())]
                lines += [f"{dump(part)}: {{", ",\n".join(rows), f"}}{tail}"]
            else:
                lines.append(f"{dump(part)}: {dump(sub)}{tail}")
        lines.append(f"}}{end}")
    return "\n".join([*lines, "}"]) + "\n"


# What was tried for TensorRT-LLM's architecture table, release by release (issue 21): the
# registry is the @register_auto_model decorators of tensorrt_llm/_torch/models/modeling_*.py
TRTLLM_TRIED = (
    "NVIDIA/TensorRT-LLM tensorrt_llm/_torch/models/ (__init__.py, modeling_*.py) and "
    "tensorrt_llm/version.py in the search index: each stored version is kept at one commit, "
    "and read_file at the release commits finds none (1.0.0: "
    "ae8270b713446948246f16fadf4e2a32e35d0f62, triton-inference-server/tensorrtllm_backend's "
    "v1.0.0 submodule pin, the commit 1.0.0's published docs name; 1.1.0: "
    "9bab773cb5d367a705d7727807ccde1de7ec1b21, its r25.12 pin with TENSORRTLLM_VER=1.1.0); "
    "the two stored version.py revisions are 1.0.0rc4 (000a01de) and 1.2.0rc2 (b35ac1b6), so "
    "no stored modeling file's commit can be tied to a modelled release",
    "forks in the index holding tensorrt_llm/version.py (13) or "
    "tensorrt_llm/_torch/models/__init__.py (36): none at a release version or commit "
    "(0.7.1 to 1.3.0rc80, one a merge conflict)",
    "the published supported-models pages (gh-pages <version>/models/supported-models.html: "
    "1.0.0 at 090dc64986babe6445f97234e18db6e35d50af55, 1.1.0 at "
    "8660c119a1f9be58cb574b8895f60bdb2e2c40ec) are not the registry: 1.1.0's architecture "
    "table lists 18 classes and no GptOssForCausalLM, yet 1.0.0's key-model matrix already has "
    "a GPT-OSS row, while docs/source/release-notes.md (stored at 001eaece) says Release 1.1 "
    "'Add GPT-OSS model support': neither the pages nor the notes bound what a release "
    "refuses, so they were not used",
)


def trtllm_entry(releases: tuple[str, ...]) -> dict:
    """TensorRT-LLM's entry: every modelled release not read (null), no architectures (never
    refused), and what was tried."""
    return {
        "releases": list(releases),
        "read": {r: None for r in releases},
        "architectures": {},
        "meta": {"registry": "tensorrt_llm/_torch/models/modeling_*.py "
                             "@register_auto_model(\"...\") (the PyTorch backend's AutoModel)",
                 "not read, because": " | ".join(TRTLLM_TRIED)},
    }  # fmt: skip


def main(argv: list[str]) -> int:
    from calc.deploy.engines.sglang.rules import RELEASES as SGLANG
    from calc.deploy.engines.trtllm.rules import RELEASES as TRTLLM
    from calc.deploy.engines.vllm.rules import RELEASES as VLLM

    if argv[:1] == ["--trtllm"]:  # rewrite TensorRT-LLM's entry alone
        data = json.loads(OUT.read_text())
        data["trtllm"] = trtllm_entry(TRTLLM)
        OUT.write_text(compact_json(data))
        print(f"{OUT.relative_to(ROOT)}: trtllm entry written", file=sys.stderr)
        return 0
    src = Path(argv[1]) if argv[:1] == ["--src"] else None
    data: dict = {
        "source": "python tools/capture_engine_architectures.py (ast over each release's "
        "PyPI wheel: vLLM " + VLLM_REGISTRY + " " + " + ".join(VLLM_TABLES) + "; "
        "SGLang " + SGLANG_MODELS + "*.py EntryClass). TensorRT-LLM: wheel not on PyPI, "
        "source at its tags not reachable: unknown, never refused.",
        "trtllm": trtllm_entry(TRTLLM),
    }
    for engine, releases, read in (("vllm", VLLM, vllm_architectures),
                                   ("sglang", SGLANG, sglang_architectures)):  # fmt: skip
        present, wheels = [], {}
        for v in releases:
            files, name, sha = _from_src(src, engine, v) if src else _from_wheel(engine, v)
            present.append(read(files))
            wheels[v] = f"{name} sha256:{sha[:16]}"
            print(f"{engine} {v}: {len(present[-1])} architectures", file=sys.stderr)
        data[engine] = {"releases": list(releases), "wheels": wheels,
                        "architectures": spans(releases, present)}  # fmt: skip
    OUT.write_text(compact_json(data))
    print(f"{OUT.relative_to(ROOT)} written", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
