"""`GET /v1/rules`, `GET /v1/rules/{name}`, `GET /healthz`, the docs, and the OpenAPI schema."""
from __future__ import annotations

import dataclasses

import pytest

from scoring import PRESETS


def test_rules_lists_every_preset_with_players(client):
    r = client.get("/v1/rules")
    assert r.status_code == 200
    listed = {x["name"]: x for x in r.json()}
    assert set(listed) == set(PRESETS)
    assert listed["sanma"]["players"] == 3 and listed["tenhou"]["players"] == 4
    assert all(x["description"] for x in listed.values())


def test_one_rule_set_shows_every_field_with_value_default_and_doc(client):
    r = client.get("/v1/rules/shinhouchi")
    assert r.status_code == 200
    body = r.json()
    fields = {f["name"]: f for f in body["fields"]}
    assert set(fields) == {f.name for f in dataclasses.fields(PRESETS["shinhouchi"])}
    assert fields["ura_dora"]["value"] is False and fields["ura_dora"]["default"] is True
    assert fields["red_fives"]["value"] == [0, 0, 0]
    assert all(f["doc"] for f in fields.values())
    assert fields["renhou"]["choices"] == ["none", "mangan", "yakuman"]


def test_rule_set_names_are_case_insensitive_like_in_hands(client):
    assert client.get("/v1/rules/M-League").json()["name"] == "m-league"


def test_unknown_rule_set_is_404_listing_the_known_ones(client):
    r = client.get("/v1/rules/tenhoo")
    assert r.status_code == 404
    assert "tenhoo" in r.json()["detail"] and "tenhou" in r.json()["detail"]


def test_healthz_ready(client):
    r = client.get("/healthz")
    assert r.status_code == 200
    assert r.json()["status"] == "ready" and r.json()["models_loaded"] is True


def test_docs_are_served_without_a_cdn(client):
    html = client.get("/docs").text
    assert "/static-docs/swagger-ui-bundle.js" in html
    assert "cdn" not in html.lower()
    assert client.get("/static-docs/swagger-ui-bundle.js").status_code == 200
    assert client.get("/redoc").status_code == 200


def test_openapi_lists_every_endpoint(client):
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/v1/photos/score", "/v1/photos/read", "/v1/hands/score", "/v1/rules", "/v1/rules/{name}", "/healthz"} <= set(paths)
    form = paths["/v1/photos/score"]["post"]["requestBody"]["content"]
    assert "multipart/form-data" in form


@pytest.mark.parametrize("path", ["/healthz", "/", "/v1/rules", "/v1/rules/tenhou", "/static/app.js"])
def test_head_is_answered_wherever_get_is(client, path):
    """Uptime monitors probe with HEAD: /healthz and / answered 405. Same status and headers as GET, no body."""
    get, head = client.get(path), client.head(path)
    assert head.status_code == get.status_code == 200
    assert head.content == b""
    assert head.headers["content-type"] == get.headers["content-type"]
    assert head.headers["content-length"] == str(len(get.content))


def test_head_keeps_the_status_of_get(make_client):
    loading = make_client(wait=False, load_models=False)
    assert loading.head("/healthz").status_code == loading.get("/healthz").status_code == 503
    assert loading.head("/v1/rules/nope").status_code == 404
    assert loading.head("/v1/hands/score").status_code == 405  # POST only, as before
