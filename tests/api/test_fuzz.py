"""Schemathesis against the app's own OpenAPI schema, in-process (ASGI): no input may cause a
server error, every status code is a documented one, and every response matches its schema."""
from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from api.app import create_app
from api.settings import ApiSettings
from tests.api.conftest import FakeReader


def _app():
    # A ready stand-in reader: the photo endpoints then run their whole path (context, header
    # probing, decoding) on whatever the fuzzer sends, quickly.
    reader = FakeReader()
    app = create_app(ApiSettings(load_models=True), reader_factory=lambda s: reader)
    app.state.reader_state.load(lambda: reader)
    return app


schema = schemathesis.openapi.from_asgi("/openapi.json", _app())


@pytest.mark.slow
@schema.parametrize()
@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_server_errors(case):
    # (Not `positive_data_acceptance`: a schema cannot say which 14 tiles make a legal hand, so
    # well-typed hands the engine refuses are a documented 422.)
    case.call_and_validate(checks=[not_a_server_error, response_schema_conformance,
                                   status_code_conformance, content_type_conformance])
