"""A constructor's ``*_config: dict`` parameter is the run's config handed in by the framework.

Plugins of a training framework (a callback registered "with config", a model class built from a
registry) receive the whole parsed YAML as a plain ``dict`` in their constructor: the framework
fills it, no repo call site does, so no value flow proves it a config. Its name and its mapping
annotation together do: the keys read on it (``train_config["variables"].get("num_nodes")``) are
the YAML's keys, relative until a caller in the repo says where the value sits under the root.
"""

from __future__ import annotations

import re

from ...index.summary import FunctionDef, Param

_CONFIG_NAME = re.compile(r"(?:^|_)(?:config|cfg|conf)$")
_MAPPING = re.compile(r"^(?:typing\.)?(?:dict|Dict|Mapping|MutableMapping)(?:\[|$)")


def dict_config_param(fn: FunctionDef, p: Param) -> bool:
    """``def __init__(self, train_config: dict)``: a config-named constructor parameter typed as a mapping."""
    return fn.name == "__init__" and bool(_CONFIG_NAME.search(p.name)) and p.annotation is not None \
        and bool(_MAPPING.match(p.annotation.strip()))
