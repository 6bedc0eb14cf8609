"""Suite-wide isolation: a developer's own gyrelint config must not change what the tests see."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator

import pytest

# fixture repos are analyzed, never run: a test_*.py inside one (a repo's own test double) is not a test of ours
collect_ignore_glob = ["fixtures/*"]


@pytest.fixture(autouse=True, scope="session")
def no_user_config() -> Iterator[None]:
    """Point ``$XDG_CONFIG_HOME`` at an empty folder, so ``~/.config/gyrelint/config.toml`` (a
    trusted settings layer, see ``gyrelint.settings.sources``) is not read by any test or by the
    gyrelint processes they start. ``$CI`` is unset for the same reason: the suite must print the
    same on a CI runner as on a laptop."""
    with tempfile.TemporaryDirectory(prefix="gyrelint-test-config-") as empty, pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CONFIG_HOME", empty)
        # CI runners set CI, which turns on progress lines on stderr; tests that want them set it themselves
        mp.delenv("CI", raising=False)
        yield
