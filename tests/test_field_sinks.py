"""The field contract lists what the sampler hands the trainer, not the settings it writes beside it."""

from __future__ import annotations

from pathlib import Path

from gyrelint.api import analyze
from gyrelint.semantics.field_sinks import settings_name

FIXTURE = Path(__file__).parent / "fixtures" / "fields_settings_sinks"


def test_only_the_record_keys_are_written_on_the_sampling_side():
    """Engine arguments in ``args = {...}``, ``os.environ[...]``, a ``runtime_env``'s variables,
    HTTP headers and metric names with slashes were listed as trajectory fields beside the
    record's three keys (failed before: ``DUNLIN_DEBUG``, ``enforce_eager``, ``gen/count``...)."""
    a = analyze(FIXTURE, use_cache=False, jobs=1, run_rules=False)
    assert a.functions["dunlin.sampler.Sampler.rollout"].side.value == "sampling"
    fc = a.handoff.fields
    assert set(fc.produced) == {"tokens", "logprobs", "reward"}
    assert set(fc.consumed) == {"tokens", "logprobs", "reward"}
    assert not fc.missing


def test_settings_names():
    assert settings_name("runtime_env") and settings_name("headers") and settings_name("engine_kwargs")
    assert settings_name("vllm_args") and settings_name("args")
    assert not settings_name("batch") and not settings_name("sample") and not settings_name("record")
