"""The installed package: version, exception tree."""

import pickle
import re

import abws


def test_version_matches_the_core():
    assert re.fullmatch(r"\d+\.\d+\.\d+", abws.__version__)


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
