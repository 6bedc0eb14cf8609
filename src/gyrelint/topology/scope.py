"""Which key occurrences a reader wants by default, and why the others are set aside.

A knob mentioned only by a test, a docs page, a CI job, a container recipe or vendored
code does not decide how the product runs; neither does an env var that tunes the
interconnect (NCCL/GLOO/HCCL buffers and sockets, NVLink, proxies). Those occurrences are
kept in the JSON with their reason and shown by ``--all``; they never outvote product code.
"""

from __future__ import annotations

import re

from ..repo import is_dockerfile

# scope reasons, in the order a listing names them
SCOPES = ("tests", "docs", "ci", "container", "vendored", "tools", "hardware-tuning", "unloaded-config")

_TEST_DIRS = {"tests", "test", "testing", "unittests", "unit_tests", "e2e", "e2e_tests", "integration_tests"}
_DOC_DIRS = {"docs", "doc", "documentation", "site"}
_CI_DIRS = {".github", ".gitlab", ".ci", ".circleci", ".buildkite", "ci", ".azure-pipelines", ".jenkins"}
_CI_FILES = {".gitlab-ci.yml", ".gitlab-ci.yaml", "azure-pipelines.yml", "jenkinsfile", ".travis.yml",
             ".pre-commit-config.yaml", ".pre-commit-hooks.yaml", "codecov.yml", ".readthedocs.yaml",
             ".readthedocs.yml", "mkdocs.yml", "mkdocs.yaml", ".codespellrc", "tox.ini", "noxfile.py"}
_CONTAINER_DIRS = {"docker", "dockerfiles", ".devcontainer", "containers", "container", "k8s", "kubernetes", "helm"}
_VENDORED_DIRS = {"vendor", "vendored", "_vendor", "third_party", "thirdparty", "3rdparty", "third-party", "external",
                  "site-packages", "node_modules"}

# env vars that tune the interconnect or the network path rather than choose the layout
_HW_ENV = re.compile(
    r"^(?:NCCL|GLOO|HCCL|TORCH_NCCL|NVSHMEM|UCX|UCC|MLX5|IBV|OMPI_MCA|FI|NVTE|CUDA_DEVICE_MAX_CONNECTIONS|"
    r"PYTORCH_CUDA_ALLOC_CONF|PYTORCH_NVML|CUDA_LAUNCH_BLOCKING|TORCH_DISTRIBUTED_DEBUG|TORCH_SHOW_CPP_STACKTRACES|"
    r"OMP|MKL|TOKENIZERS_PARALLELISM)(?:_|$)"
    r"|NVLINK|(?:^|_)(?:HTTPS?|FTP|ALL|NO|SOCKS)_PROXY$|^PROXY$", re.I)
_ENV_SOURCES = {"env", "env (python)", "script", "readme"}


def file_scope(path: str) -> str:
    """``tests``/``docs``/``ci``/``container``/``vendored``/``tools`` for a file that is not product config, else ``""``."""
    parts = path.split("/")
    name = parts[-1]
    lower = name.lower()
    dirs = [p.lower() for p in parts[:-1]]
    if any(d in _VENDORED_DIRS for d in dirs):
        return "vendored"
    if any(d in _CI_DIRS for d in dirs) or lower in _CI_FILES:
        return "ci"
    if is_dockerfile(name) or lower.startswith(("docker-compose", "compose.")) or any(d in _CONTAINER_DIRS for d in dirs):
        return "container"
    if any(d in _TEST_DIRS for d in dirs) or lower.startswith("test_") or lower.endswith(("_test.py", "_tests.py")) \
            or lower in ("conftest.py", "pytest.ini"):
        return "tests"
    if any(d in _DOC_DIRS for d in dirs) or lower.endswith((".md", ".rst", ".ipynb")):
        return "docs"
    if lower.startswith(("convert_", "converter_", "convert-", "converter-")):
        return "tools"  # a checkpoint converter is run by hand between runs, not part of one
    return ""


def key_scope(name: str, source: str) -> str:
    """``hardware-tuning`` for an env var that tunes the interconnect (NCCL_*, *_PROXY, NVLink)."""
    if (source.startswith("env") or (source in _ENV_SOURCES and name.isupper())) and _HW_ENV.search(name):
        return "hardware-tuning"
    parent, _, leaf = name.rpartition(".")
    if leaf.isupper() and "env" in parent.lower() and _HW_ENV.search(leaf):
        return "hardware-tuning"  # ``runtime_env.env_vars.NCCL_DEBUG`` in a config: the same tuning, set for workers
    return ""
