"""calc.deploy.ops._init_by_dict: ``Op``'s ``__init__`` fills the instance dict at once and
builds the same op the dataclass-generated ``__init__`` builds (values, defaults, order,
equality, hash, repr, ``replace``, frozen, its errors); classes it cannot serve are refused."""

from __future__ import annotations

import dataclasses

import pytest

from calc.deploy.ops import COMPUTE, Op, _init_by_dict

# the same fields, defaults and flags as Op, with the __init__ dataclasses generates
Reference = dataclasses.make_dataclass(
    "Op",
    [(f.name, f.type, f.default) if f.default is not dataclasses.MISSING else (f.name, f.type)
     for f in dataclasses.fields(Op)],
    frozen=True,
)  # fmt: skip

CALLS = [
    (("attn_scores", 1.0, 2.0), {}),
    (("lm_head", 10, 20, 30, 0, COMPUTE, 1, 0, False, False, False, 2), {"fmt": "bf16"}),
    (("ar", 0, 4096.0), {"kind": "allreduce", "group": 8, "count": 2, "kernels": 2}),
    (("moe", 1.5, 2.5), {"grouped": True, "gemm_shapes": ((2, 3),), "fanout": (8, 4)}),
]


@pytest.mark.parametrize(("args", "kw"), CALLS)
def test_op_is_the_dataclass_op(args, kw):
    op, ref = Op(*args, **kw), Reference(*args, **kw)
    assert vars(op) == vars(ref) and list(vars(op)) == list(vars(ref))
    assert repr(op) == repr(ref)
    assert op == Op(*args, **kw) and hash(op) == hash(Op(*args, **kw))
    changed = dataclasses.replace(op, kernels=7)
    assert changed.kernels == 7 and vars(changed) == vars(dataclasses.replace(ref, kernels=7))
    with pytest.raises(dataclasses.FrozenInstanceError):
        op.kernels = 3  # type: ignore[misc]


def test_defaults_are_the_same_objects():
    op = Op("x", 0, 0)
    for f in dataclasses.fields(Op):
        if f.default is not dataclasses.MISSING:
            assert getattr(op, f.name) is f.default


def test_errors_read_as_the_generated_init_s():
    with pytest.raises(TypeError) as ours:
        Op("x")
    with pytest.raises(TypeError) as theirs:
        Reference("x")
    assert str(ours.value) == str(theirs.value)  # "Op.__init__() missing 2 required ..."


def test_refuses_what_it_cannot_serve():
    @dataclasses.dataclass(frozen=True)
    class WithFactory:
        xs: list = dataclasses.field(default_factory=list)

    @dataclasses.dataclass(frozen=True)
    class WithPostInit:
        x: int = 0

        def __post_init__(self) -> None:
            pass

    for cls in (WithFactory, WithPostInit):
        with pytest.raises(TypeError, match="plain fields"):
            _init_by_dict(cls)
