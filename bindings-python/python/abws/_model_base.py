"""The base of every result class (the classes themselves are generated into
``abws.models``), :class:`Money`, and :func:`to_pandas`.

A result is an instance of a subclass of :class:`Model`: attribute access to the
snake_case fields, ``to_dict()`` for the wire form (camelCase, unknown fields included,
explicit ``null``s kept), ``==``, a readable ``repr``, a compact ``_repr_html_`` for
notebooks, pickling. The extension fills instances directly (``objects.rs``): the
declared fields, then ``_wire`` (wire text that the Python value would not give back),
``_extra`` (unknown fields) and ``_nulls`` (bit i: declared field i came as ``null``),
each only when needed.
"""

from __future__ import annotations

import html
import json
import re
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any, ClassVar, Dict, Iterable, List, Optional, Tuple

__all__ = ["Model", "Money", "to_pandas"]


def _loads_raw(text: str) -> Any:
    """JSON the models do not type (unknown fields, free-form fields), read with every
    number a ``Decimal`` of its exact text: such a number may be money (a yen amount is
    written ``1750``), and an int beside a Decimal, or a float, would not be."""
    return json.loads(text, parse_float=Decimal, parse_int=Decimal)


#: Bits of ``Money._flags``: the amount is written as a JSON string; ``currencyCode``,
#: ``amount`` came as an explicit ``null`` (kept so that ``to_dict()`` gives it back).
_STRING_FORM = 1
_NULL_CURRENCY = 2
_NULL_AMOUNT = 4


class Money:
    """An exact amount with its ISO 4217 currency code (``None`` when the wire had none).

    A value, like the ``Decimal`` it holds: immutable (assigning an attribute raises
    ``AttributeError``), hashable, and slotted with no ``__dict__`` (a page of results
    holds thousands; the extension fills the slots directly, ``objects.rs``).
    ``amount`` is ``None`` when the service sent the money object without one (``null``);
    fields of the money object this version does not know are kept for ``to_dict()``.
    """

    __slots__ = ("amount", "currency_code", "_flags", "_extra")

    amount: Optional[Decimal]
    currency_code: Optional[str]
    _flags: int
    _extra: Optional[Dict[str, Any]]

    def __init__(
        self,
        amount: Any,
        currency_code: Optional[str] = None,
        _flags: int = 0,
        _extra: Optional[Dict[str, Any]] = None,
    ) -> None:
        if isinstance(amount, (float, bool)):
            # Money is exact: a float already lost the digits meant (0.1 + 0.2 is
            # 0.30000000000000004), so it is refused rather than converted.
            raise TypeError(
                f"Money amount must be a Decimal, an int or a str, not {type(amount).__name__} "
                "(money is exact: Decimal(\"0.30\"), not 0.1 + 0.2)"
            )
        if amount is not None and not isinstance(amount, Decimal):
            amount = Decimal(str(amount))
        setter = object.__setattr__
        setter(self, "amount", amount)
        setter(self, "currency_code", currency_code)
        # An int (a pickle of an older version gives a bool: its string form).
        setter(self, "_flags", int(_flags))
        setter(self, "_extra", dict(_extra) if _extra else None)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(
            f"Money is immutable (a value, like Decimal): cannot set {name!r}; "
            "make a new Money instead"
        )

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"Money is immutable (a value, like Decimal): cannot delete {name!r}")

    @property
    def extra(self) -> Dict[str, Any]:
        """Fields of the money object this version does not know (wire name → value)."""
        return dict(self._extra or {})

    def to_dict(self) -> Dict[str, Any]:
        """The wire form: ``{"currencyCode": ..., "amount": ...}``, a key that came as
        ``null`` given back as ``None``, an absent one left out, unknown fields kept."""
        out: Dict[str, Any] = {}
        flags = self._flags
        if self.currency_code is not None or flags & _NULL_CURRENCY:
            out["currencyCode"] = self.currency_code
        amount = self.amount
        if amount is not None:
            out["amount"] = str(amount) if flags & _STRING_FORM else amount
        elif flags & _NULL_AMOUNT:
            out["amount"] = None
        if self._extra:
            out.update(self._extra)
        return out

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Money):
            return NotImplemented
        return self.amount == other.amount and self.currency_code == other.currency_code

    def __hash__(self) -> int:
        return hash((self.amount, self.currency_code))

    def __repr__(self) -> str:
        amount = None if self.amount is None else str(self.amount)
        return f"Money({amount!r}, {self.currency_code!r})"

    def __str__(self) -> str:
        amount = "null" if self.amount is None else str(self.amount)
        return f"{amount} {self.currency_code}" if self.currency_code else amount

    def __reduce__(self) -> Any:
        return (Money, (self.amount, self.currency_code, self._flags, self._extra))


_MISSING = object()


def _redact(value: str) -> str:
    """The core's redaction of a sensitive field (an address loses its query and
    credentials; anything else is hidden whole)."""
    from . import _abws

    redacted: str = _abws._redact(value)
    return redacted


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def _iso(value: datetime) -> str:
    """A date-time in the wire's style: ISO 8601, UTC written as ``Z``.

    The binding keeps a field's received text apart (``_wire``) only when it differs
    from this rendering, so both must stay in step (``wire_style`` in objects.rs).
    """
    text = value.isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def _wire(value: Any) -> Any:
    if isinstance(value, (Model, Money)):
        return value.to_dict()
    if isinstance(value, list):
        return [_wire(v) for v in value]
    if isinstance(value, dict):
        return {k: _wire(v) for k, v in value.items()}
    if isinstance(value, datetime):
        return _iso(value)
    return value


def _short(value: Any, depth: int = 0) -> str:
    if isinstance(value, Model):
        if depth >= 2:
            return f"{type(value).__name__}(…)"
        return value._repr(depth + 1)
    if isinstance(value, list):
        if len(value) > 3:
            head = ", ".join(_short(v, depth + 1) for v in value[:3])
            return f"[{head}, … {len(value) - 3} more]"
        return "[" + ", ".join(_short(v, depth + 1) for v in value) + "]"
    if isinstance(value, Decimal):
        return f"Decimal('{value}')"
    if isinstance(value, datetime):
        return f"datetime({value.isoformat()!r})"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "…"


class Model:
    """Base class of every result type.

    Fields are attributes (``None`` when the service did not send them, or sent
    ``null``). ``to_dict()`` gives the wire form back; fields this version does not know
    are kept in ``extra`` (wire name → value) and are also readable as snake_case
    attributes (at run time; type checkers see only the declared ones).
    """

    #: (attribute name, wire name) of every declared field, in wire order.
    _fields: ClassVar[Tuple[Tuple[str, str], ...]] = ()
    #: Fields the core marks sensitive (a presigned address): ``repr`` and
    #: ``_repr_html_`` show them redacted by the core's rule; ``to_dict()`` and the
    #: attribute keep the value.
    _sensitive: ClassVar[Tuple[str, ...]] = ()

    def __init__(self, **fields: Any) -> None:
        known = {name for name, _ in self._fields}
        for name, _ in self._fields:
            self.__dict__[name] = fields.pop(name, None)
        if fields:
            unknown = ", ".join(sorted(set(fields) - known))
            raise TypeError(f"{type(self).__name__} has no field(s) {unknown}")

    @property
    def extra(self) -> Dict[str, Any]:
        """Fields received that this version does not declare (wire name → value)."""
        return dict(self.__dict__.get("_extra", {}))

    if not TYPE_CHECKING:
        # Unknown fields as attributes, at run time only: to a type checker a misspelt
        # field stays an error instead of becoming Any.

        def __getattr__(self, name: str) -> Any:
            if name.startswith("__"):
                raise AttributeError(name)
            extra = self.__dict__.get("_extra", {})
            for wire, value in extra.items():
                if _snake(wire) == name or wire == name:
                    return value
            raise AttributeError(f"{type(self).__name__!s} has no field {name!r}")

    def to_dict(self) -> Dict[str, Any]:
        """The wire form: camelCase keys, unknown fields kept, a field that came as
        ``null`` given back as ``None`` and an absent one left out.

        Date-times are their wire text; amounts are ``Decimal`` (or ``str`` where the
        wire writes them as strings), so ``json.dumps(..., default=str)`` gives the wire
        JSON back.
        """
        state = self.__dict__
        wire_values = state.get("_wire", {})
        nulls = state.get("_nulls", 0)
        out: Dict[str, Any] = {}
        for i, (name, wire) in enumerate(self._fields):
            value = wire_values.get(name, _MISSING)
            if value is _MISSING:
                value = state.get(name)
            if value is None:
                if nulls >> i & 1:
                    out[wire] = None
                continue
            out[wire] = _wire(value)
        for wire, value in self.__dict__.get("_extra", {}).items():
            out[wire] = value
        return out

    def fields(self) -> Dict[str, Any]:
        """The declared fields as a snake_case dict of Python values (nested models kept)."""
        return {name: self.__dict__.get(name) for name, _ in self._fields}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Model):
            return NotImplemented
        return type(self) is type(other) and self.__dict__ == other.__dict__

    __hash__ = None  # type: ignore[assignment]

    def _shown(self, name: str) -> Any:
        """A field's value as repr shows it (redacted when the core marks it sensitive)."""
        value = self.__dict__.get(name)
        if value is not None and name in self._sensitive:
            return _redact(str(value))
        return value

    def _repr(self, depth: int = 0) -> str:
        parts = [
            f"{name}={_short(self._shown(name), depth)}"
            for name, _ in self._fields
            if self.__dict__.get(name) is not None
        ]
        extra = self.__dict__.get("_extra")
        if extra:
            parts.append(f"extra={{{', '.join(map(repr, extra))}}}")
        return f"{type(self).__name__}({', '.join(parts)})"

    def __repr__(self) -> str:
        return self._repr()

    def _repr_html_(self) -> str:
        rows = []
        for name, _ in self._fields:
            value = self._shown(name)
            if value is None:
                continue
            rows.append(
                f"<tr><th style='text-align:left'>{html.escape(name)}</th>"
                f"<td style='text-align:left'>{html.escape(_short(value, 1))}</td></tr>"
            )
        for wire, value in self.__dict__.get("_extra", {}).items():
            rows.append(
                f"<tr><th style='text-align:left'><i>{html.escape(wire)}</i></th>"
                f"<td style='text-align:left'>{html.escape(_short(value, 1))}</td></tr>"
            )
        title = html.escape(type(self).__name__)
        return f"<table><caption style='text-align:left'><b>{title}</b></caption>{''.join(rows)}</table>"

    def __reduce__(self) -> Any:
        return (_rebuild_model, (type(self), dict(self.__dict__)))

    def __dir__(self) -> List[str]:
        return sorted(set(super().__dir__()) | {name for name, _ in self._fields})


def _rebuild_model(cls: type, state: Dict[str, Any]) -> Model:
    """Unpickles a result: its class (by reference, from ``abws.models``) and its state."""
    obj: Model = object.__new__(cls)
    obj.__dict__.update(state)
    return obj


def _flatten(value: Any, prefix: str, out: Dict[str, Any]) -> None:
    if isinstance(value, Model):
        for name, _ in value._fields:
            _flatten(value.__dict__.get(name), f"{prefix}{name}.", out)
        for wire, v in value.__dict__.get("_extra", {}).items():
            out[f"{prefix}{_snake(wire)}"] = v
    elif isinstance(value, Money):
        out[f"{prefix}amount"] = value.amount
        out[f"{prefix}currency_code"] = value.currency_code
    else:
        out[prefix[:-1] if prefix.endswith(".") else prefix] = value


def _pandas() -> Any:
    """The pandas module, or an ``ImportError`` saying what to install."""
    try:
        import pandas as pd  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError as e:
        raise ImportError(
            "to_pandas needs pandas, which is not installed: pip install 'abws[pandas]' (or pip install pandas)"
        ) from e
    return pd


def to_pandas(items: Iterable[Any], model: Any = None) -> Any:
    """A pandas DataFrame of results, one row per item.

    Nested objects are flattened into dotted columns (``total_amount.amount``,
    ``total_amount.currency_code``); lists stay in one cell; amounts stay
    ``decimal.Decimal`` (object columns). Given the items' ``model`` (a class of
    ``abws.models``), the columns follow its fields, in order, even for no item. Needs
    pandas (``pip install 'abws[pandas]'``).
    """
    pd = _pandas()
    rows = []
    for item in items:
        row: Dict[str, Any] = {}
        if isinstance(item, (Model, Money)):
            _flatten(item, "", row)
        elif isinstance(item, dict):
            row.update(item)
        else:
            row["value"] = item
        rows.append(row)
    # A nested object that is None in one row and present in another is its dotted columns
    # (empty) in both, not a column of its own beside them.
    nested = {key.rsplit(".", i)[0] for row in rows for key in row for i in range(1, key.count(".") + 1)}
    for row in rows:
        for key in [k for k, v in row.items() if v is None and k in nested]:
            del row[key]
    frame = pd.DataFrame(rows)
    fields = getattr(model, "_fields", None)
    if fields is None:
        return frame
    # The model's fields first, in order (a field's dotted columns where it is nested),
    # then any column it does not declare (fields of `extra`).
    columns: List[str] = []
    for name, _ in fields:
        dotted = [c for c in frame.columns if str(c).startswith(name + ".")]
        columns.extend(dotted or [name])
    columns.extend(c for c in frame.columns if c not in columns)
    return frame.reindex(columns=columns)
