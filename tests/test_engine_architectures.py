"""Issue 21: a release that cannot load the model is not a deployment. The architectures each
modelled vLLM and SGLang release loads (calc/data/engine_architectures.json, read from each
release's PyPI wheel by tools/capture_engine_architectures.py), every shipped model's
config.json architecture, and the refusal: plan screens the release out (``engine release``),
launch commands refuse it, the other commands warn."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest
import yaml

from calc.data.engine_architectures import loads, refusal, spans
from calc.data.registry import load_hardware, load_model, model_names
from calc.deploy.deployment import Deployment, EngineSettings
from calc.deploy.engines import engine
from calc.errors import InvalidInputError
from calc.reports.launch_flags import launch_commands

ROOT = Path(__file__).resolve().parent.parent


# golden entries: (engine, architecture) -> the loading spans, each with the wheel file that
# shows it (the first modelled release whose wheel lists it; the release before does not)
@pytest.mark.parametrize(
    ("eng", "arch", "expected"),
    [
        # sglang-0.4.5-py3-none-any.whl srt/models/mllama4.py: EntryClass =
        # Llama4ForConditionalGeneration (no 0.4.4 module names it)
        ("sglang", "Llama4ForConditionalGeneration", ["0.4.5"]),
        # sglang-0.4.1 srt/models/deepseek_v2.py: EntryClass = [DeepseekV2ForCausalLM,
        # DeepseekV3ForCausalLM] (0.4.0: DeepseekV2ForCausalLM only)
        ("sglang", "DeepseekV3ForCausalLM", ["0.4.1"]),
        # sglang-0.4.6 srt/models/qwen3.py and qwen3_moe.py (new files in 0.4.6)
        ("sglang", "Qwen3ForCausalLM", ["0.4.6"]),
        ("sglang", "Qwen3MoeForCausalLM", ["0.4.6"]),
        # sglang-0.5.3 srt/models/gpt_oss.py: EntryClass = GptOssForCausalLM (0.4.10 has none;
        # 0.5.0-0.5.2 are not modelled)
        ("sglang", "GptOssForCausalLM", ["0.5.3"]),
        # vllm-0.10.1 registry.py _TEXT_GENERATION_MODELS "GptOssForCausalLM": ("gpt_oss", ...)
        # (absent from 0.10.0)
        ("vllm", "GptOssForCausalLM", ["0.10.1"]),
        # vllm-0.17.0 registry.py _MULTIMODAL_MODELS "Qwen3_5ForConditionalGeneration"
        ("vllm", "Qwen3_5ForConditionalGeneration", ["0.17.0"]),
        # removed: vllm-0.25.0 registry.py _PREVIOUSLY_SUPPORTED_MODELS "AquilaForCausalLM":
        # "0.24.0" (the last release that loaded it)
        ("vllm", "AquilaForCausalLM", ["0.10.0", "0.25.0"]),
        # every modelled release loads Llama
        ("vllm", "LlamaForCausalLM", ["0.10.0"]),
        ("sglang", "LlamaForCausalLM", ["0.4.0"]),
    ],
)
def test_first_release_that_loads_an_architecture(eng, arch, expected):
    assert spans(eng, arch) == expected


def test_loads_and_unknown():
    assert loads("sglang", "0.4.4", "Llama4ForConditionalGeneration") is False
    assert loads("sglang", "0.4.5", "Llama4ForConditionalGeneration") is True
    assert loads("vllm", "0.24.0", "AquilaForCausalLM") is True
    assert loads("vllm", "0.25.0", "AquilaForCausalLM") is False
    # unknown: TensorRT-LLM's table (its wheel is not on PyPI), an architecture no release of
    # the engine lists (SGLang has no FalconForCausalLM module), no architecture at all
    assert loads("trtllm", "1.0.0", "Llama4ForConditionalGeneration") is None
    assert loads("sglang", "0.4.0", "FalconForCausalLM") is None
    assert loads("sglang", "0.4.0", None) is None
    assert refusal("trtllm", "1.0.0", "GptOssForCausalLM") is None


def test_refusal_names_the_release_that_loads_it():
    assert refusal("sglang", "0.4.0", "Llama4ForConditionalGeneration") == (
        "sglang 0.4.0 cannot load Llama4ForConditionalGeneration (from 0.4.5); "
        "use --engine-version 0.4.5 or later"
    )
    assert refusal("sglang", "0.4.5", "Llama4ForConditionalGeneration") is None
    # removed: the last release that loads it (0.25.0's predecessor in the table, 0.24.0)
    assert refusal("vllm", "0.30.0", "AquilaForCausalLM") == (
        "vllm 0.30.0 cannot load AquilaForCausalLM (removed in 0.25.0; loaded 0.10.0 to "
        "0.24.0); use --engine-version 0.24.0 or earlier"
    )


def test_every_shipped_model_states_its_architecture():
    for name in model_names():
        text = (ROOT / "model_configs" / f"{name}.yaml").read_text()
        arch = yaml.safe_load(text).get("architecture")
        assert arch and arch.isidentifier(), name
        assert load_model(name).architecture == arch


@pytest.mark.parametrize("eng", ["vllm", "sglang", "trtllm"])
def test_default_release_loads_every_shipped_model(eng):
    for name in model_names():
        dep = Deployment.build(load_model(name), load_hardware("h200"),
                               engine=EngineSettings(name=eng))  # fmt: skip
        assert dep.engine_config.version == engine(eng).versions.newest
        assert dep.engine_model.cannot_load(dep) is None, name


def _dep(model, eng, release, **kw):
    return Deployment.build(load_model(model), load_hardware("h100"),
                            engine=EngineSettings(name=eng, version=release), **kw)  # fmt: skip


def test_a_release_between_modelled_ones_is_unknown():
    # SGLang 0.5.0 is not modelled (it runs as 0.4.10, which has no gpt_oss.py); 0.5.3, the
    # next modelled release, loads gpt-oss: whether 0.5.0 does is unknown, so not refused
    dep = _dep("gpt-oss-20b", "sglang", "0.5.0")
    assert dep.engine_config.version == "0.4.10"
    assert dep.engine_model.cannot_load(dep) is None
    dep = _dep("gpt-oss-20b", "sglang", "0.4.10")
    assert "cannot load GptOssForCausalLM (from 0.5.3)" in dep.engine_model.cannot_load(dep)
    # below the oldest modelled release: older still, refused (vLLM 0.9.2 runs as 0.10.0)
    dep = _dep("gpt-oss-20b", "vllm", "0.9.2")
    assert "vllm 0.10.0 cannot load GptOssForCausalLM" in dep.engine_model.cannot_load(dep)


def test_launch_commands_refuse_a_release_older_than_the_model():
    dep = _dep("gemma-3-12b", "sglang", "0.4.3")
    with pytest.raises(InvalidInputError, match=r"sglang 0.4.3 cannot load "
                       r"Gemma3ForConditionalGeneration \(from 0.4.5\)"):  # fmt: skip
        launch_commands(dep)
    assert launch_commands(_dep("gemma-3-12b", "sglang", "0.4.5"))


PLAN = ("plan", "-m", "llama4-scout", "-H", "h100", "--rate", "3", "--prompt", "2000", "--gen",
        "200", "--ttft-p99", "2s", "--tpot-p99", "50ms", "--engine", "sglang", "--method",
        "analytic", "-f", "json")  # fmt: skip


def test_plan_screens_a_release_older_than_the_model(cli):
    # the audit's example: Llama 4 Scout on SGLang 0.4.0 (Dec 2024, before Llama 4)
    r = cli(*PLAN, "--engine-version", "0.4.0")
    assert r.code == 0, r.err
    out = r.json()
    assert not out["rows"] and not out.get("launch_commands")
    assert out["rejected"]
    for x in out["rejected"]:
        assert x["reason"] == "engine release"
        assert x["detail"].startswith("sglang 0.4.0 cannot load Llama4ForConditionalGeneration "
                                      "(from 0.4.5); use --engine-version 0.4.5")  # fmt: skip
    # Qwen3 on 0.4.3 likewise (from 0.4.6)
    q = cli("plan", "-m", "qwen3-8b", *PLAN[3:], "--engine-version", "0.4.3").json()
    assert not q["rows"] and {x["reason"] for x in q["rejected"]} == {"engine release"}
    # the release that loads it ranks it
    new = cli(*PLAN, "--engine-version", "0.4.5").json()
    assert not [x for x in new["rejected"] if "cannot load" in x["detail"]]
    assert new["rows"]


def test_user_model_without_architecture_still_plans(cli, tmp_path):
    data = yaml.safe_load((ROOT / "model_configs" / "llama4-scout.yaml").read_text())
    del data["architecture"]
    data["name"] = "my-scout"
    path = tmp_path / "my-scout.yaml"
    path.write_text(yaml.safe_dump(data))
    r = cli("plan", "-m", str(path), *PLAN[3:], "--engine-version", "0.4.0")
    assert r.code == 0, r.err
    out = r.json()
    assert not [x for x in out["rejected"] if "cannot load" in x["detail"]]
    assert out["rejected"] or out["rows"]  # it was screened like any model


def test_other_commands_warn(cli):
    r = cli("memory", "-m", "llama4-scout", "-H", "h100", "--tp", "8", "--ctx", "4096",
            "--engine", "sglang", "--engine-version", "0.4.0")  # fmt: skip
    assert r.code == 0, r.err
    assert "warning: sglang 0.4.0 cannot load Llama4ForConditionalGeneration" in r.err
    ok = cli("memory", "-m", "llama4-scout", "-H", "h100", "--tp", "8", "--ctx", "4096",
             "--engine", "sglang", "--engine-version", "0.4.5")  # fmt: skip
    assert ok.code == 0 and "cannot load" not in ok.err


def _capture():
    spec = importlib.util.spec_from_file_location(
        "capture_engine_architectures", ROOT / "tools" / "capture_engine_architectures.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_capture_reads_registries_statically():
    cap = _capture()
    vllm_src = (
        '_TEXT_GENERATION_MODELS = {"LlamaForCausalLM": ("llama", "L"), **{"XForCausalLM": 1}}\n'
        '_MULTIMODAL_MODELS = {"Llama4ForConditionalGeneration": ("mllama4", "L4")}\n'
        '_EMBEDDING_MODELS = {"BertModel": ("bert", "B")}\n'
    )
    assert cap.vllm_architectures({cap.VLLM_REGISTRY: vllm_src}) == {
        "LlamaForCausalLM",
        "XForCausalLM",
        "Llama4ForConditionalGeneration",
    }
    sgl = {
        "sglang/srt/models/llama.py": "EntryClass = [LlamaForCausalLM, Phi3ForCausalLM]\n",
        "sglang/srt/models/qwen3.py": "EntryClass = Qwen3ForCausalLM\n",
        "sglang/srt/models/deep/sub.py": "EntryClass = NotRegistered\n",  # not a top module
    }
    assert cap.sglang_architectures(sgl) == {"LlamaForCausalLM", "Phi3ForCausalLM",
                                             "Qwen3ForCausalLM"}  # fmt: skip
    rel = ("1", "2", "3", "4")
    got = cap.spans(rel, [{"A"}, {"A", "B"}, {"B"}, {"A", "B"}])
    assert got == {"A": ["1", "3", "4"], "B": ["2"]}
    ast.parse((ROOT / "tools" / "capture_engine_architectures.py").read_text())


def test_table_covers_every_modelled_release():
    # a release added to an engine's rules without re-running the capture fails here
    from calc.data.engine_architectures import _table

    for eng in ("vllm", "sglang"):
        releases = list(engine(eng).versions.releases)
        assert _table()[eng]["releases"] == releases, "run tools/capture_engine_architectures.py"
        assert sorted(_table()[eng]["wheels"]) == sorted(releases)
        assert all(w.startswith(f"{eng}-{r}-") for r, w in _table()[eng]["wheels"].items())
    # TensorRT-LLM: every modelled release listed, none read (tests/test_trtllm_releases.py)
    assert _table()["trtllm"]["releases"] == list(engine("trtllm").versions.releases)
