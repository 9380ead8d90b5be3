"""Load a repository script (bench/*.py, tools/*.py) as a module for its tests: registered in
``sys.modules`` under its file name first, since its dataclasses look their module up."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def load_script(relpath: str):
    """The module of the script at ``relpath`` from the repository root, executed afresh."""
    path = ROOT / relpath
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None, relpath
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module
