"""The `check` spec for people: its JSON Schema, its Markdown reference (docs/check-spec.md),
the shipped example spec, and closest-key suggestions for misspelt keys.

Everything here is read off the spec's pydantic models (calc.reports.check_spec), so the schema, the
reference and the suggestions follow the models as they change; ``FIELD_HELP`` only adds a
sentence and a unit where a field's own ``description`` is missing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

_PKG = Path(__file__).resolve().parent.parent  # calc/
EXAMPLE_NAME = "check-spec.yaml"

# One line per key for the reference and the JSON Schema, used where the model's Field gives no
# description. Keys are "Model.field"; units are named as in the rest of kvcalc.
FIELD_HELP: dict[str, str] = {
    "CheckSpec.deployments": "the deployments to judge, each with its own requirements",
    "Deployment.name": "unique name; the JUnit test suite and the table rows carry it",
    "Deployment.model": "shipped model name (kvcalc models), model YAML path or config.json path",
    "Deployment.hardware": "shipped hardware name (kvcalc hardware) or hardware YAML path",
    "Deployment.tp": "tensor-parallel degree [GPUs]",
    "Deployment.pp": "pipeline-parallel degree [stages]",
    "Deployment.ep": "expert-parallel degree [GPUs] (MoE models)",
    "Deployment.dp": "data-parallel replicas, each serving batch / dp; with ep > tp it is the "
    "attention-DP size ep / tp (the default)",
    "Deployment.max_model_len": "tokens contiguous preallocation reserves per sequence "
    "(default: the model's max) [tokens]",
    "Deployment.weight_dtype": "weight dtype (default: the model config's dtype)",
    "Deployment.kv_dtype": "KV-cache dtype (default: the model config's kv_dtype, else its dtype)",
    "Deployment.engine": "serving engine whose memory budget rule applies",
    "Deployment.engine_version": "engine release whose defaults apply (default: the latest "
    "modelled)",
    "Deployment.max_num_seqs": "sequences per step (vLLM max_num_seqs; default: the engine's)",
    "Deployment.mem_util": "engine memory fraction (vLLM gpu_memory_utilization, SGLang "
    "mem_fraction_static, TensorRT-LLM free_gpu_memory_fraction; default: the engine's)",
    "Deployment.block_size": "KV-cache page size [tokens]",
    "Deployment.max_batched_tokens": "tokens per forward pass the activation peak is sized for",
    "Deployment.activation": "activation peak per GPU: bytes or a size like '4GiB' "
    "(default: estimated from max_batched_tokens)",
    "Deployment.overhead": "non-torch memory per GPU (CUDA context, NCCL): bytes or '0.25GiB' "
    "(default: modelled by TP)",
    "Deployment.usd_per_hour": "price per GPU-hour [USD] (default: the hardware profile's price)",
    "Deployment.efficiency": "which efficiency band of the hardware profile the latency uses",
    "Deployment.workload": "the operating point the requirements are judged at",
    "Deployment.requirements": "the limits to meet; at least one",
    "Workload.ctx": "tokens per sequence, prompt + output [tokens]",
    "Workload.batch": "concurrent sequences [sequences]",
    "Requirements.must_fit": "true: the per-GPU ledger's verdict must be 'fits': the busiest GPU's "
    "sequences (KV paged to whole blocks, plus any SSM state) within the engine's KV budget",
    "Requirements.min_concurrency": "at least this many ctx-token sequences fit [sequences]",
    "Requirements.max_tpot_ms": "decode step at batch sequences of ctx tokens [ms]: a number "
    "in ms, or a time with its unit (40ms; the unit-less key max_tpot takes only that)",
    "Requirements.max_ttft_ms": "prefill of one prompt [ms]: a number in ms, or a time with its "
    "unit (1s; the unit-less key max_ttft takes only that)",
    "Requirements.max_usd_per_million_output_tokens": "decode cost at batch [USD per 10^6 tokens]",
    "Requirements.max_usd_per_million_input_tokens": "prefill cost [USD per 10^6 tokens]",
    "Requirements.max_ttft_p50_s": "median time to first token under the workload's rate "
    "(serving simulation) [s]"
    "; a number in s, or a time with its unit (the unit-less key max_ttft_p50 takes only that)",
    "Requirements.max_ttft_p90_s": "90th-percentile time to first token under load [s]"
    "; a number in s, or a time with its unit (the unit-less key max_ttft_p90 takes only that)",
    "Requirements.max_ttft_p99_s": "99th-percentile time to first token under load [s] "
    "(MLPerf Llama-2-70B server: 2 s)"
    "; a number in s, or a time with its unit (the unit-less key max_ttft_p99 takes only that)",
    "Requirements.max_tpot_p50_s": "median time per output token of a request under load [s]"
    "; a number in s, or a time with its unit (the unit-less key max_tpot_p50 takes only that)",
    "Requirements.max_tpot_p90_s": "90th-percentile time per output token under load [s]"
    "; a number in s, or a time with its unit (the unit-less key max_tpot_p90 takes only that)",
    "Requirements.max_tpot_p99_s": "99th-percentile time per output token under load [s] "
    "(MLPerf Llama-2-70B server: 0.2 s); a saturated deployment fails every load limit"
    "; a number in s, or a time with its unit (the unit-less key max_tpot_p99 takes only that)",
    "Requirements.training_fit": "a training or fine-tuning step that must fit one GPU's memory "
    "(keys as `kvcalc train`'s options; see examples/check-train.yaml)",
}


def _models() -> list[type]:
    """The spec's pydantic models, top level first, each once (read off the annotations)."""
    from pydantic import BaseModel

    from calc.output.schema_tree import nested_classes
    from calc.reports.check_spec import CheckSpec
    from calc.reports.check_spec import nested_models as _nested_models

    def inner(model: type) -> list[type]:  # the models its fields' annotations name
        fields = model.model_fields.values()  # type: ignore[attr-defined]
        return [sub for f in fields for sub in _nested_models(f.annotation, BaseModel)]

    return nested_classes(CheckSpec, inner)


def spec_json_schema() -> dict[str, Any]:
    """The spec's JSON Schema (draft 2020-12, as pydantic writes it) with every key described."""
    from calc.reports.check_spec import CheckSpec

    schema = CheckSpec.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "kvcalc check spec"
    defs = schema.get("$defs", {})
    for model in _models():
        node = schema if model is CheckSpec else defs.get(model.__name__)
        if node is None:
            continue
        for key, prop in node.get("properties", {}).items():
            prop.setdefault("description", FIELD_HELP.get(f"{model.__name__}.{key}", ""))
            if not prop["description"]:
                del prop["description"]
    return schema


def spec_json_schema_text() -> str:
    return json.dumps(spec_json_schema(), indent=2, ensure_ascii=False) + "\n"


# --- the Markdown reference ---------------------------------------------------------------------


def _type_text(prop: dict[str, Any]) -> str:
    """A property's type as a reader writes it: `integer`, `"vllm" | "sglang"`, `list of X`."""
    if "$ref" in prop:
        return prop["$ref"].rsplit("/", 1)[-1]
    if "enum" in prop:
        return " | ".join(f"`{v}`" for v in prop["enum"])
    if "anyOf" in prop:
        parts = [_type_text(p) for p in prop["anyOf"] if p.get("type") != "null"]
        return " or ".join(parts)
    if prop.get("type") == "array":
        return f"list of {_type_text(prop.get('items', {}))}"
    return str(prop.get("type", "any"))


def _bounds_text(prop: dict[str, Any]) -> str:
    """The value constraints of a property (merged over anyOf branches)."""
    branches = prop.get("anyOf", [prop])
    out: list[str] = []
    for b in branches:
        if "exclusiveMinimum" in b:
            out.append(f"> {b['exclusiveMinimum']:,}")
        if "minimum" in b:
            out.append(f"≥ {b['minimum']:,}")
        if "maximum" in b:
            out.append(f"≤ {b['maximum']:,}")
        if "minItems" in b:
            out.append(f"at least {b['minItems']:,} item{'s' * (b['minItems'] != 1)}")
        if "maxItems" in b:
            out.append(f"at most {b['maxItems']:,} items")
        if "minLength" in b and b["minLength"] > 0:
            out.append("non-empty")
        if "pattern" in b:
            out.append(f"matches `{b['pattern']}`")
    return ", ".join(out)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def spec_reference() -> str:
    """docs/check-spec.md: every key of the spec with its type, default, bounds and meaning,
    then the shipped example. Generated; a test checks the file is current."""
    schema = spec_json_schema()
    defs = schema.get("$defs", {})
    lines = [
        "# `kvcalc check` spec reference\n",
        "\n",
        "Generated from the spec's schema by `python -m calc.reports.check_reference > "
        "docs/check-spec.md`;"
        " a test fails when it is out of date. `kvcalc check --schema` prints the same schema as"
        " JSON Schema (for editors and CI linters); `kvcalc check --example` prints the example"
        " below, which ships inside the package.\n",
        "\n",
        "A spec is a YAML (or JSON) mapping. Unknown keys are errors (a misspelt key gets the"
        " closest valid one suggested). Sizes take bytes or a unit (`4GiB`, `512MB`; GB = 10^9 B,"
        " GiB = 2^30 B). `kvcalc check SPEC` exits 0 when every requirement passes, 1 when any"
        " fails, 2 when the spec is invalid; `--junit FILE` writes JUnit XML in all three cases"
        " (an invalid spec gives one errored test case naming the problem).\n",
    ]
    from calc.reports.check_spec import CheckSpec

    for model in _models():
        node = schema if model is CheckSpec else defs[model.__name__]
        title = "top level" if model is CheckSpec else f"`{model.__name__}`"
        lines += ["\n", f"## {title}\n", "\n"]
        doc = (model.__doc__ or "").strip().splitlines()
        if doc and model is not CheckSpec:
            lines += [doc[0], "\n\n"]
        lines += [
            "| key | type | required / default | allowed values | meaning |\n",
            "|---|---|---|---|---|\n",
        ]
        required = set(node.get("required", []))
        for key, prop in node.get("properties", {}).items():
            default = (
                "**required**"
                if key in required
                else f"`{json.dumps(prop.get('default'))}`"
                if "default" in prop
                else "optional"
            )
            lines.append(
                f"| `{key}` | {_cell(_type_text(prop))} | {default} | "
                f"{_cell(_bounds_text(prop))} | {_cell(prop.get('description', ''))} |\n"
            )
    lines += [
        "\n",
        "## Example (`kvcalc check --example`)\n",
        "\n",
        "```yaml\n",
        example_text(),
        "```\n",
    ]
    return "".join(lines)


# --- the shipped example ------------------------------------------------------------------------


def example_spec_path() -> Path:
    """The example spec: inside the installed package (calc/examples/, force-included in the
    wheel), else the source checkout's examples/ beside calc/."""
    inside = _PKG / "examples" / EXAMPLE_NAME
    return inside if inside.is_file() else _PKG.parent / "examples" / EXAMPLE_NAME


def example_text() -> str:
    return example_spec_path().read_text(encoding="utf-8")


# --- closest-key suggestions ---------------------------------------------------------------------


if __name__ == "__main__":
    print(spec_reference(), end="")
