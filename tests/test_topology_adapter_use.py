"""A LoRA rank decides the layout by its use (issue 15 item 4): given to the inference engine as its adapter
option it switches the weight push to adapter tensors (transport); read where a role-merging switch is set
it spares the reference role's workers (layout); read only to build a model it is no layout key. Before
``topology/adapter_use.py`` none of the three was listed (the process vocabulary vetoes ``lora``)."""

from pathlib import Path

import pytest

from gyrelint.api import analyze

FIXTURE = Path(__file__).parent / "fixtures" / "topology_adapter_use"


@pytest.fixture(scope="module")
def entries():
    return {e.name: e for e in analyze(FIXTURE, use_cache=False, jobs=1).topology.keys if not e.scope}


def test_a_rank_that_sizes_the_engines_adapter_slots_is_a_transport_key(entries):
    e = entries["policy.adapter.rank"]
    assert e.cls == "comm" and "max_lora_rank" in e.evidence and e.file == "marrowby/config.py"


def test_a_rank_read_where_a_role_merging_switch_is_set_is_a_layout_key(entries):
    e = entries["roles.policy.adapter_rank"]
    assert e.cls == "layout" and "ref_in_policy" in e.evidence


def test_a_rank_only_read_by_model_building_is_not_listed(entries):
    assert "judge.adapter.rank" not in entries
    assert "roles.policy.adapter_alpha" not in entries


def test_a_key_whose_value_another_key_interpolates_takes_that_keys_class():
    """``lora_rank: ${lora.rank}`` (OmegaConf/Hydra): ``lora.rank`` is where the user sets it, so it takes the
    class its reader earned; an interpolated key already classified keeps its own."""
    from gyrelint.topology.entries import Occurrence
    from gyrelint.topology.keys import _interpolated
    from gyrelint.topology.sources import RawKey

    fed = Occurrence(RawKey("policy.adapter_rank", "${adapter.rank}", "conf/run.yaml", 9, "yaml"), ("layout", "use"))
    source = Occurrence(RawKey("adapter.rank", "8", "conf/run.yaml", 2, "yaml"), None)
    other = Occurrence(RawKey("adapter.alpha", "16", "conf/run.yaml", 3, "yaml"), None)
    out = _interpolated([fed, source, other])
    assert out[1].hit is not None and out[1].hit[0] == "layout" and "policy.adapter_rank" in out[1].hit[1]
    assert out[2].hit is None and out[0] is fed
