"""The comparison behind ``ABWS_FROM_JSON=check`` (the tests' mode): a result built
straight from its JSON answer must be the one the decoded answer converts to, down to
each object's type, attribute order, wire texts kept for ``to_dict()`` and decimal scale.
Imported only in that mode."""

from datetime import datetime
from decimal import Decimal
from typing import Any, Optional

from ._model_base import Money


def differences(built: Any, decoded: Any, path: str = "$") -> Optional[str]:
    """Where ``built`` and ``decoded`` first differ, or ``None`` when they are alike."""
    if type(built) is not type(decoded):
        return f"{path}: {type(built).__name__} != {type(decoded).__name__}"
    if isinstance(built, list):
        if len(built) != len(decoded):
            return f"{path}: {len(built)} items != {len(decoded)}"
        for i, (a, b) in enumerate(zip(built, decoded)):
            d = differences(a, b, f"{path}[{i}]")
            if d:
                return d
        return None
    if isinstance(built, dict):
        if list(built) != list(decoded):
            return f"{path}: keys {list(built)} != {list(decoded)}"
        for k in built:
            d = differences(built[k], decoded[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(built, Decimal):
        same = str(built) == str(decoded)
    elif isinstance(built, datetime):
        same = built == decoded and built.utcoffset() == decoded.utcoffset()
    elif hasattr(built, "__dict__"):
        return differences(vars(built), vars(decoded), path)
    elif isinstance(built, Money):  # slots, no __dict__
        names = ("amount", "currency_code", "_flags", "_extra")
        return differences({n: getattr(built, n) for n in names}, {n: getattr(decoded, n) for n in names}, path)
    else:
        same = built == decoded
    return None if same else f"{path}: {built!r} != {decoded!r}"
