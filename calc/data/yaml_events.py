"""A YAML document built straight from libyaml's events (no node tree): the fast path of
``calc.data.yaml_io``'s strict loader for the plain documents kvcalc ships.

libyaml's C parser yields the events; each scalar's tag is resolved and its value constructed
by the strict loader's own resolver and constructors (``yaml_io._loader``), so a document built
here equals what the strict loader returns. Whatever this path does not handle (an alias, a
merge key, an explicit tag other than a plain mapping's, sequence's or scalar's, a collection as
a key, a repeated key, more than one document, any error) returns ``NOT_PLAIN``: the caller then
runs the strict loader, which answers or refuses it in its own words.
"""

from __future__ import annotations

from typing import Any

NOT_PLAIN = object()  # the document needs the strict loader

_MAP, _SEQ = "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"
_TAGS: dict = {}  # (value, implicit) -> the resolved tag (the resolver is a pure function)


class _NotPlain(Exception):
    """Raised inside the builder: hand the document to the strict loader."""


def build(text: str, loader_cls: type) -> Any:
    """The document ``text`` as ``loader_cls`` (the strict libyaml loader) constructs it, or
    ``NOT_PLAIN``."""
    import yaml

    scratch = loader_cls("")  # its resolver and constructors, called as the loader calls them
    try:
        return _from_events(yaml.parse(text, Loader=yaml.CSafeLoader), scratch)
    except Exception:  # anything unexpected: the strict loader decides
        return NOT_PLAIN


def _scalar(ev: Any, scratch: Any, ScalarNode: type) -> Any:
    """A scalar event's value: its tag (explicit, or resolved as the composer resolves it),
    then the constructor the loader registers for that tag."""
    tag = ev.tag
    if tag is None or tag == "!":
        key = (ev.value, ev.implicit, type(scratch))
        tag = _TAGS.get(key)
        if tag is None:
            if len(_TAGS) > 4096:
                _TAGS.clear()
            tag = _TAGS[key] = scratch.resolve(ScalarNode, ev.value, ev.implicit)
    if tag == "tag:yaml.org,2002:str":
        return ev.value
    make = scratch.yaml_constructors.get(tag)
    if make is None or tag == "tag:yaml.org,2002:merge":
        raise _NotPlain
    node = ScalarNode(tag, ev.value, ev.start_mark, ev.end_mark, ev.style)
    out = make(scratch, node)
    if hasattr(out, "__next__"):  # a two-step constructor: not a plain scalar
        raise _NotPlain
    return out


def _collection(ev: Any, default: str) -> None:
    if ev.tag not in (None, "!", default):
        raise _NotPlain


def _from_events(events: Any, scratch: Any) -> Any:
    """The single document of ``events``: mappings (keys unique, in order), sequences and
    scalars (``_NotPlain`` raised at the first thing it leaves to the strict loader)."""
    import yaml
    from yaml.nodes import ScalarNode

    stack: list = []  # open collections: [container, pending key or _NO_KEY]
    done, docs = None, 0
    for ev in events:
        kind = type(ev)
        if kind is yaml.ScalarEvent:
            value = _scalar(ev, scratch, ScalarNode)
        elif kind is yaml.MappingStartEvent:
            _collection(ev, _MAP)
            stack.append([{}, _NO_KEY])
            continue
        elif kind is yaml.SequenceStartEvent:
            _collection(ev, _SEQ)
            stack.append([[], _NO_KEY])
            continue
        elif kind is yaml.MappingEndEvent or kind is yaml.SequenceEndEvent:
            value = stack.pop()[0]
        elif kind is yaml.DocumentStartEvent:
            docs += 1
            if docs > 1:
                raise _NotPlain
            continue
        elif kind in (yaml.StreamStartEvent, yaml.StreamEndEvent, yaml.DocumentEndEvent):
            continue
        else:  # an alias
            raise _NotPlain
        if not stack:
            done = value
            continue
        top = stack[-1]
        box = top[0]
        if type(box) is list:
            box.append(value)
        elif top[1] is _NO_KEY:
            if isinstance(value, dict | list) or value in box:
                raise _NotPlain  # a collection as a key, or a repeated key
            top[1] = value
        else:
            box[top[1]] = value
            top[1] = _NO_KEY
    return done


_NO_KEY = object()  # a mapping's next scalar is a key
