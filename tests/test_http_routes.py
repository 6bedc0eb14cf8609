"""Path pairing of HTTP clients with the repo's routes (``semantics.http_routes``)."""

from __future__ import annotations

from gyrelint.semantics.http_routes import _control, matches, segments


def test_segments_drop_scheme_host_and_query_and_mark_holes():
    assert segments("http://{}:{}/generate") == ("generate",)
    assert segments("{}/scored_data?x=1") == ("*", "scored_data")
    assert segments("/rollouts/{rollout_id}/events") == ("rollouts", "*", "events")
    assert segments("/items/<int:item_id>") == ("items", "*")
    assert segments("/api/rollouts/", client=True) == ("api", "rollouts", "*")  # ``"/api/rollouts/" + rid``
    assert segments("Sending {} to {}/batch") is None  # a message, not a URL
    assert segments("batch") is None


def test_a_route_matches_the_tail_of_a_client_path():
    route = segments("/rollouts/{rollout_id}/events")
    assert matches(segments("/api/rollouts/{}/events", client=True), route)  # a router prefix before it
    assert not matches(segments("/api/rollouts/{}/attempt/{}/events", client=True), route)
    assert not matches(segments("{}/scored_data_list", client=True), segments("/scored_data"))
    assert matches(segments("{}/scored_data", client=True), segments("/scored_data"))
    assert not matches(segments("{}/{}", client=True), segments("/batch"))  # holes alone name nothing


def test_control_routes_are_named_by_their_words():
    for path in ("/health", "/healthz", "/register-env", "/status_env", "/wandb_info", "/v1/models", "/ping",
                 "/tokenizer_info", "/metrics"):
        assert _control(segments(path)), path
    for path in ("/scored_data_list", "/batch", "/next_batch", "/rollouts/{id}/events", "/groups"):
        assert not _control(segments(path)), path
