"""Element-wise max, min, where and ceiling division of plain numbers or numpy arrays (the
result has the unit of the operands).

The formula modules take ints/floats or numpy arrays that broadcast; these helpers give the
builtin result for plain numbers and import numpy only when an argument is an array.
"""

from __future__ import annotations


def _is_array(*xs) -> bool:
    for x in xs:  # (a loop, not any() over a generator: called per op of every step)
        if hasattr(x, "shape"):
            return True
    return False


def maximum(a, b):
    """max(a, b), element-wise for arrays."""
    if _is_array(a, b):
        import numpy as np

        return np.maximum(a, b)
    return max(a, b)


def minimum(a, b):
    """min(a, b), element-wise for arrays."""
    if _is_array(a, b):
        import numpy as np

        return np.minimum(a, b)
    return min(a, b)


def where(cond, a, b):
    """``a if cond else b``, element-wise for arrays."""
    if _is_array(cond, a, b):
        import numpy as np

        return np.where(cond, a, b)
    return a if cond else b


def cdiv(a, b):
    """Ceiling division of non-negative integers (or integer arrays): ceil(a / b) = -(-a // b)."""
    return -(-a // b)
