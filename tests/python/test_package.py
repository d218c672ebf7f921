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
    client_ops = {
        "invoices": ["get_invoices", "get_invoice_detail_by_invoice_number",
                     "get_invoice_line_items_by_invoice_number", "iter_invoices", "iter_invoice_line_items"],
        "reconciliation": ["get_transactions", "get_invoice_details_by_order_line_items",
                           "invoice_details_for", "iter_transactions"],
        "documents": ["create_report", "get_report", "get_report_document", "wait_for_report",
                      "download", "fetch_pdf"],
        "cart": ["list_carts", "get_cart", "get_items", "add_items", "modify_items", "delete_items",
                 "get_estimated_total_purchase_cost", "iter_carts"],
        "products": ["search_products_request", "products_request", "search_offers_request",
                     "get_products_by_asins", "get_offers_by_offer_ids", "iter_search_products",
                     "iter_search_offers"],
        "ordering": ["place_order"],
        "reporting": ["get_orders_by_order_id", "get_shipment_line_item_reports",
                      "iter_shipment_line_item_reports"],
        "tracking": ["get_package_tracking_details"],
    }
    client = abws.Client("JP", access_token="t")
    for group, ops in client_ops.items():
        for op in ops:
            assert callable(getattr(getattr(client, group), op)), f"{group}.{op}"
