"""The installed package: version, exception tree, stubs, wheel shape."""

import importlib.resources
import pickle
import re
from pathlib import Path

import abws
from abws import _abws


def workspace_version() -> str:
    """The version of [workspace.package] in the repository's Cargo.toml."""
    text = (Path(__file__).resolve().parents[2] / "Cargo.toml").read_text()
    section = text[text.index("[workspace.package]") :].split("\n[", 1)[0]
    found = re.search(r'^version\s*=\s*"([^"]+)"', section, re.M)
    assert found, "no version in [workspace.package] of Cargo.toml"
    return found.group(1)


def test_version_matches_the_core():
    assert abws.__version__ == workspace_version()


def test_every_error_is_an_abws_error():
    for name in abws.__all__:
        obj = getattr(abws, name)
        if isinstance(obj, type) and issubclass(obj, BaseException):
            assert issubclass(obj, abws.Error), name


def test_builtin_compatibility():
    assert issubclass(abws.ValidationError, ValueError)
    assert issubclass(abws.Timeout, TimeoutError)
    assert issubclass(abws.NotFound, abws.ApiError)


def test_errors_pickle_with_their_fields():
    err = abws.NotFound("no such invoice", status=404, code="NotFound", request_id="r-1")
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is abws.NotFound
    assert (back.status, back.code, back.request_id, str(back)) == (404, "NotFound", "r-1", "no such invoice")


def test_typed_package_ships_its_stubs():
    files = importlib.resources.files("abws")
    assert files.joinpath("py.typed").is_file()
    stub = files.joinpath("_abws.pyi").read_text()
    for name in _abws.__all__:
        assert re.search(rf"^(def |class |){re.escape(name)}\b", stub, re.M) or f'"{name}"' in stub, name


def test_one_abi3_extension():
    assert ".abi3." in _abws.__file__ or _abws.__file__.endswith(".pyd")


def test_public_names_resolve():
    for name in abws.__all__:
        assert getattr(abws, name) is not None, name


def test_every_operation_of_the_core_has_its_method_and_pager():
    """The Python groups against the core's operations table (no hand-kept list)."""
    client = abws.Client("JP", access_token="t", endpoint="http://127.0.0.1:9")  # never called
    table = _abws._operations()
    assert len(table) == len({op_id for op_id, *_ in table}) >= 24
    for op_id, group, name, pager in table:
        methods = getattr(client, group)
        assert callable(getattr(methods, name)), f"{group}.{name} ({op_id})"
        assert op_id in (getattr(methods, name).__doc__ or ""), name
        if pager is not None:
            assert callable(getattr(methods, pager)), f"{group}.{pager}"
    # ... and nothing generated that the table does not hold
    from abws import _operations

    generated = {
        (cls.__name__, n)
        for cls in vars(_operations).values()
        if isinstance(cls, type) and cls.__module__ == _operations.__name__
        for n in vars(cls)
        if not n.startswith("_")
    }
    expected = {(f"{f}{g.capitalize()}Operations", n) for _, g, n, _ in table for f in ("_", "_Async")}
    expected |= {(f"{f}{g.capitalize()}Operations", p) for _, g, _, p in table if p for f in ("_", "_Async")}
    assert generated == expected
    conveniences = {
        "reconciliation": ["invoice_details_for"],
        "documents": ["wait_for_report", "download", "download_to", "fetch_pdf"],
    }
    for group, names in conveniences.items():
        for n in names:
            assert callable(getattr(getattr(client, group), n)), f"{group}.{n}"


def test_import_is_lazy_and_the_surface_complete():
    """`import abws` loads no submodule nor the extension (B7 of docs/benchmarks.md); each
    public name loads its module on first use, and `dir` lists every name before that."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "had = set(sys.modules)\n"
        "import abws\n"
        "assert set(sys.modules) - had <= {'abws', '__future__'}, sorted(set(sys.modules) - had)\n"
        "assert set(abws.__all__) <= set(dir(abws))\n"
        "abws.Client\n"
        "assert 'abws.async_client' not in sys.modules and 'abws.sandbox' not in sys.modules\n"
        "import logging\n"
        "assert any(isinstance(h, logging.NullHandler) for h in logging.getLogger('abws').handlers)\n"
        "try:\n"
        "    abws.NoSuchName\n"
        "except AttributeError:\n"
        "    pass\n"
        "else:\n"
        "    raise AssertionError('abws.NoSuchName resolved')\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
