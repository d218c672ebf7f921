"""The Python surface is typed: no operation method, pager or convenience gives `Any`, in
``abws.Client`` and in ``abws.AsyncClient`` (awaited, listings read with ``anext``).

The test writes a script that calls every public method of every API group of the client
(the generated operation methods and iter_* pagers, and the hand-written conveniences),
found by introspection so that a new operation is covered without editing this file, with
arguments of the declared types, and reads one field of each result. mypy --strict checks
the script (so the arguments fit the signatures), and every `reveal_type` of a result, an
item of a listing and a field must be free of `Any`. The script is only type-checked,
never run.
"""

from __future__ import annotations

import collections.abc
import inspect
import re
import typing
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest

import mypy  # noqa: F401  (the check needs it: a missing mypy fails, never skips)

import abws
from abws import _abws
from abws._group import AsyncListing, Listing, _AsyncGroup, _Group
from abws._model_base import Model
from conftest import mypy_strict


def _has_any(tp: Any) -> bool:
    if tp is Any:
        return True
    return any(_has_any(a) for a in typing.get_args(tp))


def _value(tp: Any, where: str) -> str:
    """A Python expression of type `tp`."""
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Union:
        for alt in args:
            if alt is not type(None):
                return _value(alt, where)
    if tp is str or tp is Any:
        return '"x"'
    if tp is bool:
        return "True"
    if tp is int:
        return "1"
    if tp is float:
        return "0.5"
    if tp is bytes:
        return 'b"x"'
    if tp is typing.BinaryIO:
        return "io.BytesIO()"
    if inspect.isclass(tp) and issubclass(tp, Model):
        return "abws.Model()" if tp is Model else f"abws.models.{tp.__name__}()"
    if inspect.isclass(tp) and tp.__name__ == "datetime":
        return "datetime(2026, 1, 1, tzinfo=timezone.utc)"
    if inspect.isclass(tp) and tp.__name__ == "date":
        return "date(2026, 1, 1)"
    if origin in (list, collections.abc.Sequence):
        return f"[{_value(args[0], where)}]"
    if origin in (dict, collections.abc.Mapping):
        return f'{{"k": {_value(args[1], where)}}}'
    if origin is tuple:
        return "(" + ", ".join(_value(a, where) for a in args) + ",)"
    raise AssertionError(f"{where}: teach test_typing how to make a value of {tp!r}")


def _readable_field(cls: type) -> str:
    """A declared field of a model class whose type holds no Any."""
    hints = typing.get_type_hints(cls)
    for name, _ in cls._fields:  # type: ignore[attr-defined]
        if not _has_any(hints[name]):
            return name
    raise AssertionError(f"{cls.__name__}: every field is typed Any")


def _groups(client: type) -> Dict[str, type]:
    hints = typing.get_type_hints(client)
    return {n: t for n, t in hints.items() if inspect.isclass(t) and issubclass(t, (_Group, _AsyncGroup))}


def _script(client_class: type = abws.Client) -> Tuple[str, List[str], set]:
    """The script, what each reveal_type is of, and the (group, method) pairs covered. For
    ``AsyncClient`` the calls are in a coroutine, awaited."""
    aio = client_class is abws.AsyncClient
    pad = "    " if aio else ""
    lines = [
        "import io",
        "from datetime import date, datetime, timezone",
        "import abws",
        "import abws.models",
        "",
        f'client = abws.{client_class.__name__}("JP", access_token="t")',
        "",
    ]
    if aio:
        lines.append("async def main() -> None:")
    reveals: List[str] = []
    covered = set()

    def reveal(expr: str, what: str) -> None:
        lines.append(f"{pad}reveal_type({expr})")
        reveals.append(what)

    def read(var: str, tp: Any, what: str) -> None:
        """Reveals `var` (of type `tp`) and, down to a model, one of its fields."""
        reveal(var, what)
        origin = typing.get_origin(tp)
        if inspect.isclass(origin) and issubclass(origin, Listing):
            (item,) = typing.get_args(tp)
            lines.append(f"{pad}{var}_item = next({var})")
            read(f"{var}_item", item, f"{what} item")
        elif inspect.isclass(origin) and issubclass(origin, AsyncListing):
            (item,) = typing.get_args(tp)
            lines.append(f"{pad}{var}_item = await anext({var})")
            read(f"{var}_item", item, f"{what} item")
        elif origin is list:
            (item,) = typing.get_args(tp)
            lines.append(f"{pad}{var}_item = {var}[0]")
            read(f"{var}_item", item, f"{what} item")
        elif inspect.isclass(tp) and issubclass(tp, Model):
            reveal(f"{var}.{_readable_field(tp)}", f"{what} .{_readable_field(tp)}")

    n = 0
    for group, cls in _groups(client_class).items():
        for name, fn in inspect.getmembers(cls, inspect.isfunction):
            if name.startswith("_"):
                continue
            where = f"{group}.{name}"
            covered.add((group, name))
            hints = typing.get_type_hints(fn)
            args, kwargs = [], []
            for p in list(inspect.signature(fn).parameters.values())[1:]:
                value = _value(hints[p.name], f"{where}({p.name})")
                if p.kind == p.KEYWORD_ONLY:
                    kwargs.append(f"{p.name}={value}")
                elif p.default is p.empty:
                    args.append(value)
                else:
                    kwargs.append(f"{p.name}={value}")
            call = f"client.{group}.{name}({', '.join(args + kwargs)})"
            if inspect.iscoroutinefunction(fn):
                call = f"await {call}"
            if hints["return"] is type(None):
                lines.append(pad + call)  # mypy refuses to use the value of a None function
                continue
            var = f"r{n}"
            n += 1
            lines.append(f"{pad}{var} = {call}")
            read(var, hints["return"], where)
            lines.append("")
    return "\n".join(lines) + "\n", reveals, covered


@pytest.mark.parametrize("client_class", [abws.Client, abws.AsyncClient], ids=["Client", "AsyncClient"])
def test_every_method_of_every_group_is_typed_without_any(tmp_path: Path, client_class: type) -> None:
    script, reveals, covered = _script(client_class)
    # Every operation and pager of the core's table is among the methods checked.
    for _, group, name, pager in _abws._operations():
        assert (group, name) in covered, f"{group}.{name} is not a method of the client"
        if pager:
            assert (group, pager) in covered, f"{group}.{pager} is not a method of the client"
    path = tmp_path / "typed_calls.py"
    path.write_text(script)
    r = mypy_strict(tmp_path, path.name)
    out = r.stdout + r.stderr
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert not errors, "the script does not type-check:\n" + "\n".join(errors) + "\n\n" + script
    revealed = re.findall(r':(\d+): note: Revealed type is "(.*)"', out)
    assert len(revealed) == len(reveals), out
    with_any = [f"{what}: {t}" for what, (_, t) in zip(reveals, revealed) if "Any" in t]
    assert not with_any, "typed Any:\n" + "\n".join(with_any)
    # The check can fail: an Any result is seen (guards against a vacuous pass).
    probe = tmp_path / "probe.py"
    probe.write_text("import abws\nreveal_type(abws.Client('JP', access_token='t')._call('x', {}))\n")
    r = mypy_strict(tmp_path, probe.name)
    assert 'Revealed type is "Any"' in r.stdout, r.stdout
