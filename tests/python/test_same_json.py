"""One argument object per operation across the bindings.

Every function of libabws that takes a params object and answers JSON (one per operation
of the operations table, plus the conveniences ``invoice_details_for`` and
``wait_for_report``) is called twice against one embedded sandbox with the same argument
object: from Python as ``getattr(getattr(client, group), name)(**args)`` and from C
through ctypes with ``json.dumps(args)``. The Python result's ``to_dict()`` must equal
the C result's JSON (numbers compared as decimals).

The functions are read from ``include/abws.h``, which ``xtask gen`` writes from the
operations table: a new operation is covered without anything else to edit, called with
its description's example arguments (``_examples.json``) unless a builder here finds ids
the sandbox holds. The ids the arguments need are found through the C
library (wire JSON), so the builders do not depend on the Python models. Write
operations (``add_items``, ``place_order``) run on separate ids (carts, external ids) for
the two bindings; those ids, and the values a call mints (order and item ids, report
ids, presigned addresses), are masked before comparing.

The Python result is built from the answer's JSON, or, for a result the core makes
itself, from the core's JSON of it (bindings-python/src/from_json.rs): either way it is
compared here with the C library's JSON, the core's own writing of its decoded result.

libabws comes from ``ABWS_LIBABWS`` (set by scripts/test-python.sh, which builds it).
"""

from __future__ import annotations

import copy
import ctypes
import json
import os
import re
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import pytest

from conftest import END, START, shared_sandbox

HEADER = Path(__file__).resolve().parents[2] / "include" / "abws.h"
GROUPS = ("invoices", "reconciliation", "documents", "cart", "products", "ordering", "reporting", "tracking")


def json_functions(header: Path = HEADER) -> List[Tuple[str, str, str]]:
    """(C function, group, method) of every `(client, params_json, result_json, err)`
    function of the header."""
    text = header.read_text()
    sig = (
        r"abws_status (abws_[a-z_]+)\(const abws_client \*client,\s*const char \*params_json,"
        r"\s*char \*\*result_json,\s*abws_error \*\*err\);"
    )
    out = []
    for function in re.findall(sig, text):
        group = next((g for g in GROUPS if function.startswith(f"abws_{g}_")), None)
        assert group, f"{function}: no known group (add it to GROUPS)"
        out.append((function, group, function[len(f"abws_{group}_"):]))
    return out


FUNCTIONS = json_functions()


# --- libabws through ctypes -----------------------------------------------------------


class CError(Exception):
    def __init__(self, function: str, status: int, message: str) -> None:
        super().__init__(f"{function}: status {status}: {message}")
        self.status = status


class CLib:
    """A client of libabws: `call(function, args)` gives the result JSON, parsed."""

    def __init__(self, path: str, settings: Dict[str, Any]) -> None:
        self.lib = lib = ctypes.CDLL(path)
        vp, pvp = ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)
        lib.abws_client_new.argtypes = [ctypes.c_char_p, pvp, pvp]
        lib.abws_client_new.restype = ctypes.c_uint32
        lib.abws_client_free.argtypes = [vp]
        lib.abws_client_free.restype = ctypes.c_uint32
        lib.abws_string_free.argtypes = [vp]
        lib.abws_string_free.restype = ctypes.c_uint32
        lib.abws_error_free.argtypes = [vp]
        lib.abws_error_free.restype = ctypes.c_uint32
        lib.abws_error_message.argtypes = [vp]
        lib.abws_error_message.restype = ctypes.c_char_p
        self.client = vp()
        err = vp()
        status = lib.abws_client_new(json.dumps(settings).encode(), ctypes.byref(self.client), ctypes.byref(err))
        self._check("abws_client_new", status, err)

    def _check(self, function: str, status: int, err: ctypes.c_void_p) -> None:
        if status == 0:
            return
        message = (self.lib.abws_error_message(err) or b"").decode()
        self.lib.abws_error_free(err)
        raise CError(function, status, message)

    def text(self, function: str, args: Dict[str, Any]) -> str:
        fn = getattr(self.lib, function)
        fn.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_void_p)]
        fn.restype = ctypes.c_uint32
        out, err = ctypes.c_void_p(), ctypes.c_void_p()
        status = fn(self.client, json.dumps(args).encode(), ctypes.byref(out), ctypes.byref(err))
        self._check(function, status, err)
        try:
            return ctypes.string_at(out.value).decode()
        finally:
            self.lib.abws_string_free(out)

    def call(self, function: str, args: Dict[str, Any]) -> Any:
        return json.loads(self.text(function, args), parse_float=Decimal)

    def close(self) -> None:
        self.lib.abws_client_free(self.client)


# --- the argument objects -------------------------------------------------------------


@dataclass
class Case:
    """The arguments of one function. `c_args`: other arguments for the C call (a write
    on separate ids); `same`: values that stand for the same thing on the two sides
    (Python's, C's), replaced before comparing; `masked`: wire keys whose values the call
    mints (compared as present, not by value)."""

    args: Dict[str, Any]
    c_args: Optional[Dict[str, Any]] = None
    same: List[Tuple[str, str]] = field(default_factory=list)
    masked: Tuple[str, ...] = ()

    def c_side(self) -> Dict[str, Any]:
        return self.c_args if self.c_args is not None else self.args


def first(obj: Any, key: str, where: Callable[[Dict[str, Any]], bool] = lambda d: True) -> Any:
    """The first value of a wire key anywhere in a JSON value (depth first)."""
    if isinstance(obj, dict):
        if key in obj and where(obj):
            return obj[key]
        values: Any = obj.values()
    elif isinstance(obj, list):
        values = obj
    else:
        return None
    for v in values:
        found = first(v, key, where)
        if found is not None:
            return found
    return None


class World:
    """Ids of the sandbox's data set, found through the C library once and shared."""

    def __init__(self, c: CLib) -> None:
        self.c = c
        self._cache: Dict[str, Any] = {}

    def _once(self, key: str, make: Callable[[], Any]) -> Any:
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    def invoice_number(self) -> str:
        page = self.c.call("abws_invoices_get_invoices", self.invoice_range())
        return str(page["invoices"][0]["invoiceMetadata"]["invoiceNumber"])

    def invoice_range(self) -> Dict[str, Any]:
        return {"invoice_issue_start_date": START, "invoice_issue_end_date": END}

    def feed(self) -> Dict[str, Any]:
        return {"feed_start_date": START, "feed_end_date": END}

    def line_item(self) -> Dict[str, str]:
        """order_id, order_line_item_id, shipment_id of a charged line item."""

        def find() -> Dict[str, str]:
            page = self.c.call("abws_reconciliation_get_transactions", self.feed())
            tx = next(t for t in page["transactions"] if t.get("transactionType") == "CHARGE")
            li = tx["transactionLineItems"][0]
            return {"order_id": li["orderId"], "order_line_item_id": li["orderLineItemId"], "shipment_id": li["shipmentId"]}

        return dict(self._once("line_item", find))

    def report_options(self) -> Dict[str, Any]:
        li = self.line_item()
        return {"order_id": li["order_id"], "order_line_item_id": li["order_line_item_id"], "document_type": "Invoice"}

    def done_report(self) -> Dict[str, Any]:
        """A report that is DONE (created and waited for through C)."""

        def make() -> Dict[str, Any]:
            created = self.c.call("abws_documents_create_report", {"report_options": self.report_options()})
            return dict(self.c.call("abws_documents_wait_for_report", {"report_id": created["reportId"], "poll_interval": 0.2, "timeout": 120}))

        return dict(self._once("report", make))

    def context(self) -> Dict[str, Any]:
        return {"product_region": "JP", "locale": "ja-JP"}

    def product(self) -> Tuple[str, str]:
        """(asin, offer id) of a product with an offer in stock."""

        def find() -> Tuple[str, str]:
            result = self.c.call("abws_products_search_products_request", {**self.context(), "keywords": ["cable"], "facets": ["OFFERS"], "page_size": 5})
            for p in result["products"]:
                offers = self.c.call("abws_products_search_offers_request", {**self.context(), "product_id": p["asin"]})
                for o in offers.get("offers") or []:
                    if (o.get("quantityInStock") or 0) > 10:
                        return str(p["asin"]), str(o["offerId"])
            raise AssertionError("no product with an offer in stock")

        return tuple(self._once("product", find))  # type: ignore[return-value]

    def order_parts(self) -> Dict[str, str]:
        """order_id, shipment_id, package_id of a shipped package."""

        def find() -> Dict[str, str]:
            order_id = self.line_item()["order_id"]
            orders = self.c.call("abws_reporting_get_orders_by_order_id", {"order_id": order_id, "include_shipments": True})
            package_id = first(orders, "packageId")
            shipment_id = first(orders, "shipmentId", lambda d: "packages" in d)
            assert package_id and shipment_id, orders
            return {"order_id": order_id, "shipment_id": str(shipment_id), "package_id": str(package_id)}

        return dict(self._once("order_parts", find))

    def empty_cart(self, cart_id: str) -> str:
        self.c.call("abws_cart_delete_items", {"cart_id": cart_id})
        return cart_id

    def cart_with_item(self, cart_id: str) -> Tuple[str, str]:
        """A cart holding one item of `product()`: (cart id, item id)."""
        asin, offer = self.product()
        self.empty_cart(cart_id)
        self.c.call("abws_cart_add_items", {"cart_id": cart_id, "items": [self.add_item(asin, offer, "setup")]})
        items = self.c.call("abws_cart_get_items", {"cart_id": cart_id})
        return cart_id, str(first(items, "itemId"))

    @staticmethod
    def add_item(asin: str, offer: str, external_id: str) -> Dict[str, Any]:
        return {"product_identifier": asin, "buying_option_identifier": offer, "quantity": 1, "external_id": external_id}

    @staticmethod
    def order_line(asin: str, offer: str) -> Dict[str, Any]:
        return {
            "external_id": "1",
            "quantity": 1,
            "attributes": [
                {"attributeType": "SelectedProductReference", "productReference": {"productType": "ASIN", "id": asin}},
                {"attributeType": "SelectedBuyingOptionReference", "buyingOptionReference": {"buyingOptionType": "OFFER", "id": offer}},
            ],
            "expectations": [],
        }


def _place_order(w: World) -> Case:
    asin, offer = w.product()
    order = {"line_items": [w.order_line(asin, offer)], "attributes": [], "expectations": []}
    return Case(
        {"external_id": "same-json-py", **order},
        c_args={"external_id": "same-json-c", **order},
        same=[("same-json-py", "same-json-c")],
        masked=("identifier", "lowerBoundary", "upperBoundary"),
    )


def _add_items(w: World) -> Case:
    asin, offer = w.product()
    py_cart, c_cart = w.empty_cart("cart-0002"), w.empty_cart("cart-0003")
    items = [w.add_item(asin, offer, "same-json-1")]
    return Case(
        {"cart_id": py_cart, "items": items},
        c_args={"cart_id": c_cart, "items": items},
        same=[(py_cart, c_cart)],
        masked=("itemId", "addedToCartDate", "modifiedDate"),
    )


# One argument object per function of the header (group_name → builder).
ARGS: Dict[str, Callable[[World], Case]] = {
    # invoices
    "invoices.get_invoices": lambda w: Case({**w.invoice_range(), "region": "JP"}),
    "invoices.get_invoice_detail_by_invoice_number": lambda w: Case({"invoice_number": w.invoice_number()}),
    "invoices.get_invoice_line_items_by_invoice_number": lambda w: Case({"invoice_number": w.invoice_number(), "region": "JP"}),
    # reconciliation
    "reconciliation.get_transactions": lambda w: Case(w.feed()),
    "reconciliation.get_invoice_details_by_order_line_items": lambda w: Case({"order_line_items": [w.line_item()]}),
    "reconciliation.invoice_details_for": lambda w: Case({"line_items": [w.line_item(), w.line_item()]}),
    # documents
    "documents.create_report": lambda w: Case({"report_options": w.report_options()}, masked=("reportId",)),
    "documents.get_report": lambda w: Case({"report_id": w.done_report()["reportId"]}),
    "documents.get_report_document": lambda w: Case({"report_document_id": w.done_report()["reportDocumentId"]}, masked=("url",)),
    "documents.wait_for_report": lambda w: Case({"report_id": w.done_report()["reportId"], "poll_interval": 0.2, "timeout": 120}),
    # cart
    "cart.add_items": _add_items,
    "cart.modify_items": lambda w: (lambda ci: Case({"cart_id": ci[0], "items": [{"item_id": ci[1], "quantity": 2}]}, masked=("modifiedDate",)))(
        w.cart_with_item("cart-0004")
    ),
    "cart.delete_items": lambda w: Case({"cart_id": w.cart_with_item("cart-0005")[0]}),
    # products
    "products.search_products_request": lambda w: Case({**w.context(), "keywords": ["cable"], "facets": ["OFFERS"], "page_size": 2}),
    "products.products_request": lambda w: Case({**w.context(), "product_id": w.product()[0]}),
    "products.search_offers_request": lambda w: Case({**w.context(), "product_id": w.product()[0]}),
    "products.get_products_by_asins": lambda w: Case({**w.context(), "product_ids": [w.product()[0]]}),
    "products.get_offers_by_offer_ids": lambda w: Case({**w.context(), "offer_ids": [w.product()[1]], "inclusions_for_offers": ["ALL"]}),
    # ordering
    "ordering.place_order": _place_order,
    # reporting
    "reporting.get_orders_by_order_id": lambda w: Case({"order_id": w.line_item()["order_id"], "include_line_items": True, "include_shipments": True, "include_charges": True}),
    "reporting.get_shipment_line_item_reports": lambda w: Case({"order_start_date": START, "order_end_date": END}),
    # tracking
    "tracking.get_package_tracking_details": lambda w: Case(w.order_parts()),
}

# Every other operation: the example arguments of its description (spec/src/ops.rs), which
# `xtask gen` writes to _examples.json. An operation whose example names records the
# sandbox does not hold needs a builder above.
EXAMPLES: Dict[str, Any] = json.loads((Path(__file__).with_name("_examples.json")).read_text())
for _name, _args in EXAMPLES.items():
    if not _name.startswith("$"):
        ARGS.setdefault(_name, lambda w, a=_args: Case(copy.deepcopy(a)))


# --- comparison -----------------------------------------------------------------------


def plain(value: Any) -> Any:
    """A Python result as JSON-like data (its wire form)."""
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    to_dict = getattr(value, "to_dict", None)
    assert callable(to_dict), f"a result without to_dict(): {type(value).__name__}"
    return to_dict()


# Wire keys whose values every call mints anew.
MINTED = ("nextPageToken",)


def replace(value: Any, same: Dict[str, str], masked: Tuple[str, ...]) -> Any:
    if isinstance(value, dict):
        return {k: ("<masked>" if k in masked and v is not None else replace(v, same, masked)) for k, v in value.items()}
    if isinstance(value, list):
        return [replace(v, same, masked) for v in value]
    if isinstance(value, str):
        return same.get(value, value)
    return value


def differences(py: Any, c: Any, path: str = "$") -> Iterator[str]:
    """Where the Python result and the C JSON differ (numbers as decimals, date-times by
    instant)."""
    number = (int, float, Decimal)
    if isinstance(py, bool) or isinstance(c, bool):
        if py is not c:
            yield f"{path}: {py!r} (Python) != {c!r} (C)"
    elif isinstance(py, number) and isinstance(c, number):
        if Decimal(str(py)) != Decimal(str(c)):
            yield f"{path}: {py!r} (Python) != {c!r} (C)"
    elif isinstance(py, (datetime, date)) and isinstance(c, str):
        if py != type(py).fromisoformat(c.replace("Z", "+00:00")):
            yield f"{path}: {py!r} (Python) != {c!r} (C)"
    elif isinstance(py, dict) and isinstance(c, dict):
        for k in sorted(set(py) | set(c)):
            if k not in py:
                yield f"{path}.{k}: absent in Python, {c[k]!r} in C"
            elif k not in c:
                yield f"{path}.{k}: {py[k]!r} in Python, absent in C"
            else:
                yield from differences(py[k], c[k], f"{path}.{k}")
    elif isinstance(py, list) and isinstance(c, list):
        if len(py) != len(c):
            yield f"{path}: {len(py)} items (Python) != {len(c)} (C)"
        for i, (a, b) in enumerate(zip(py, c)):
            yield from differences(a, b, f"{path}[{i}]")
    elif py != c or type(py) is not type(c):
        yield f"{path}: {py!r} (Python) != {c!r} (C)"


# --- the test -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Any]:
    """A sandbox of this module's own: its writes do not meet the other tests'."""
    with shared_sandbox() as s:
        yield s


@pytest.fixture(scope="module")
def c_lib(sandbox: Any) -> Iterator[CLib]:
    path = os.environ.get("ABWS_LIBABWS")
    if not path:
        pytest.fail("ABWS_LIBABWS is not set: run scripts/test-python.sh, which builds libabws and sets it")
    creds = sandbox.credentials()
    settings = {
        "region": "JP",
        "client_id": creds["client_id"],
        "client_secret": creds["client_secret"],
        "refresh_token": creds["refresh_token"],
        "user_email": creds["user_email"],
        "endpoint": sandbox.group_url("JP"),
        "auth_endpoint": sandbox.base_url,
        "consent_endpoint": sandbox.base_url,
        "rate_limiting": False,
    }
    lib = CLib(path, settings)
    yield lib
    lib.close()


@pytest.fixture(scope="module")
def world(c_lib: CLib) -> World:
    return World(c_lib)


@pytest.fixture(scope="module")
def py_client(sandbox: Any) -> Any:
    return sandbox.client("JP", rate_limiting=False)


def test_every_operation_of_the_table_is_covered() -> None:
    """The header lists every operation (24 in the two documents) and the two JSON
    conveniences, and each has an argument object here."""
    names = {f"{group}.{name}" for _, group, name in FUNCTIONS}
    assert len(names) >= 26, sorted(names)
    missing = sorted(names - set(ARGS))
    assert not missing, f"no argument object for {missing}: add one to ARGS in {__file__}"
    stale = sorted(set(ARGS) - names)
    assert not stale, f"argument objects for functions the header no longer has: {stale}"


@pytest.mark.parametrize("function,group,name", FUNCTIONS, ids=[f"{g}.{n}" for _, g, n in FUNCTIONS])
def test_same_json_from_python_and_c(function: str, group: str, name: str, world: World, c_lib: CLib, py_client: Any) -> None:
    build = ARGS.get(f"{group}.{name}")
    if build is None:
        pytest.fail(f"no argument object for {group}.{name}: add one to ARGS in {__file__}")
    case = build(world)
    method = getattr(getattr(py_client, group), name)
    py_result = method(**copy.deepcopy(case.args))
    assert_same(case, f"{group}.{name}", py_result, c_lib.call(function, copy.deepcopy(case.c_side())))


def assert_same(case: Case, what: str, py_result: Any, c_result: Any) -> None:
    """The Python result and the C JSON of one case are the same (minted values masked)."""
    same = {c: f"<{p}|{c}>" for p, c in case.same}
    same.update({p: f"<{p}|{c}>" for p, c in case.same})
    masked = case.masked + MINTED
    diff = list(differences(replace(plain(py_result), same, masked), replace(c_result, same, masked)))
    assert not diff, f"{what}({json.dumps(case.args)}): Python and C differ:\n" + "\n".join(diff[:20])


NULLS = r"""{"transactions": [
  {"transactionId": "T1", "amount": {"amount": null, "currencyCode": "USD"},
   "transactionLineItems": [
     {"orderId": "O1", "businessOrderInfo": {"Cost Center": "CC-1", "Project": null},
      "totalAmount": {"amount": 5.10, "currencyCode": null},
      "principalAmount": {"amount": "1.50", "currencyCode": "USD", "formatted": "$1.50"},
      "tax": {"currencyCode": "USD"}}
   ]}
]}"""


def test_nulls_in_money_and_string_maps_reach_c_and_python_as_sent(
    sandbox: Any, world: World, c_lib: CLib, py_client: Any
) -> None:
    """A `null` amount or currency in a money object, a money's unknown field and a
    `null` value of a label map: the C JSON and Python's `to_dict()` are the answer as
    sent (a null kept, an absent key left out), not an error."""
    want = json.loads(NULLS, parse_float=Decimal)
    sandbox.fail("getTransactions", action={"status": 200, "body": NULLS}, times=1)
    assert c_lib.call("abws_reconciliation_get_transactions", world.feed()) == want
    sandbox.fail("getTransactions", action={"status": 200, "body": NULLS}, times=1)
    assert py_client.reconciliation.get_transactions(**world.feed()).to_dict() == want


# --- the sandbox answers only what the service declares ------------------------------

SANDBOX_DOC = Path(__file__).resolve().parents[2] / "docs" / "sandbox.md"


def sandbox_only_fields() -> set:
    """`Model.wireName` of the fields docs/sandbox.md lists as sent by the sandbox only
    (its table "Fields only the sandbox sends")."""
    text = SANDBOX_DOC.read_text()
    section = text.split("## Fields only the sandbox sends", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `([A-Za-z]+\.[A-Za-z]+)` \|", section, re.M))


def undeclared(value: Any, found: set) -> None:
    """Adds `Model.wireName` of every field of a result that its model does not declare
    (what lands in `extra`), at any depth; `Money` for a money object's."""
    from abws import Money
    from abws._model_base import Model

    if isinstance(value, Money):
        found.update(f"Money.{k}" for k in value.extra)
    elif isinstance(value, Model):
        found.update(f"{type(value).__name__}.{k}" for k in value.extra)
        for v in value.fields().values():
            undeclared(v, found)
    elif isinstance(value, (list, tuple)):
        for v in value:
            undeclared(v, found)
    elif isinstance(value, dict):
        for v in value.values():
            undeclared(v, found)


@pytest.mark.parametrize("function,group,name", FUNCTIONS, ids=[f"{g}.{n}" for _, g, n in FUNCTIONS])
def test_the_sandbox_sends_only_declared_fields(function: str, group: str, name: str, world: World, py_client: Any) -> None:
    """Every field of every answer is one the models declare (from the specification and the
    service's published models and examples), or one docs/sandbox.md lists as the
    sandbox's own: a field the sandbox invents fails here."""
    case = ARGS[f"{group}.{name}"](world)
    result = getattr(getattr(py_client, group), name)(**copy.deepcopy(case.args))
    found: set = set()
    undeclared(result, found)
    invented = sorted(found - sandbox_only_fields())
    assert not invented, f"{group}.{name}: fields no model declares: {invented} (drop them from the sandbox, or list them in docs/sandbox.md)"
