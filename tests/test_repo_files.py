"""Discovery: which files later stages see, and the module name each Python file gets."""

from __future__ import annotations

from pathlib import Path

from gyrelint.api import analyze
from gyrelint.repo import discover, module_names
from gyrelint.settings import Settings


def test_cluster_job_scripts_are_read_as_launchers(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "jobs").mkdir()
    (repo / "pkg" / "__init__.py").write_text("")
    (repo / "pkg" / "train.py").write_text("def main():\n    pass\n\nif __name__ == '__main__':\n    main()\n")
    (repo / "jobs" / "train.slurm").write_text(
        "#!/bin/bash\n#SBATCH --nodes=2\nexport MASTER_PORT=29500\n"
        "srun python -m pkg.train --trainer.nnodes=2\nsrun python -m pkg.missing\n"
    )
    (repo / "jobs" / "eval.sbatch").write_text("srun python -m pkg.train\n")
    files = discover(repo, Settings())
    assert {"jobs/train.slurm", "jobs/eval.sbatch"} <= set(files.other)
    a = analyze(repo, Settings(cache_dir=tmp_path / "cache", jobs=1))
    scripts = {(e.source, e.module, e.exists) for e in a.entry_points if e.found_by == "script"}
    assert ("jobs/train.slurm", "pkg.train", True) in scripts
    assert ("jobs/eval.sbatch", "pkg.train", True) in scripts
    assert any(not e.exists and e.source == "jobs/train.slurm" for e in a.entry_points)
    keys = {k.key: (k.cls, k.value) for k in a.topology.config_keys}
    assert keys["trainer.nnodes"] == ("process", "2")
    assert keys["MASTER_PORT"] == ("port", "29500")


def test_module_names_follow_packages_src_layout_and_scripts() -> None:
    paths = [
        "src/lib/__init__.py", "src/lib/core.py",           # src layout
        "tools/pkg/__init__.py", "tools/pkg/sub/__init__.py", "tools/pkg/sub/m.py",  # package under a folder
        "examples/run_ppo.py",                               # script outside packages
        "ns/part/mod.py",                                    # namespace package (no __init__)
        "my-dist.data/purelib/top/__init__.py", "my-dist.data/purelib/top/a.py",  # wheel data layout
    ]
    names = module_names(Path("/x"), paths)
    assert names["src/lib/core.py"] == "lib.core"
    assert names["src/lib/__init__.py"] == "lib"
    assert names["tools/pkg/sub/m.py"] == "pkg.sub.m"
    assert names["examples/run_ppo.py"] == "examples.run_ppo"
    assert names["ns/part/mod.py"] == "ns.part.mod"
    assert names["my-dist.data/purelib/top/a.py"] == "top.a"


def test_gitignore_and_exclude_are_honoured(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    for rel in ["a.py", "gen/b.py", "keep/c.py", "keep/skip_me.py", "third_party/d.py", "venv2/e.py"]:
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text("x = 1\n")
    (repo / "venv2" / "pyvenv.cfg").write_text("home = /usr\n")
    (repo / ".gitignore").write_text("gen/\n*skip_me.py\n!keep/c.py\n")
    files = discover(repo, Settings(exclude=("third_party",)))
    assert files.python == ["a.py", "keep/c.py"]


def test_shebang_scripts_and_dockerfiles_are_read_as_launchers(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "bin").mkdir()
    (repo / "docker").mkdir()
    (repo / "pkg" / "__init__.py").write_text("")
    (repo / "pkg" / "train.py").write_text("def main():\n    pass\n\nif __name__ == '__main__':\n    main()\n")
    (repo / "pkg" / "serve.py").write_text("print('serving')\n")
    (repo / "bin" / "launch").write_text(
        "#!/usr/bin/env bash\nset -e\nexport MASTER_PORT=29511\ntorchrun --nproc_per_node=4 -m pkg.train\n")
    (repo / "bin" / "notes").write_text("python -m pkg.train is how we ran it once\n")  # no shebang: not a script
    (repo / "bin" / "tool").write_text("#!/usr/bin/env python3\nprint('x')\n")  # a Python shebang: not shell
    (repo / "LICENSE").write_text("MIT\n")
    (repo / "docker" / "Dockerfile.gpu").write_text(
        "FROM python:3.11\nENV X=1\nRUN pip install -e . && \\\n    python -m pkg.serve --check\n"
        'CMD ["python", "-m", "pkg.train", "--nnodes", "1"]\n'
        'ENTRYPOINT ["python", "-m", "pkg.gone"]\n'
        "RUN curl -O https://example.com/get-pip.py && python get-pip.py\n")
    files = discover(repo, Settings())
    assert {"bin/launch", "docker/Dockerfile.gpu"} <= set(files.other)
    assert not {"bin/notes", "bin/tool", "LICENSE"} & set(files.other)
    a = analyze(repo, Settings(cache_dir=tmp_path / "cache", jobs=1))
    found = {(e.source, e.line, e.module, e.exists) for e in a.entry_points if e.found_by == "script"}
    assert ("bin/launch", 4, "pkg.train", True) in found
    assert ("docker/Dockerfile.gpu", 3, "pkg.serve", True) in found  # a continued RUN: the line it starts on
    assert ("docker/Dockerfile.gpu", 5, "pkg.train", True) in found  # exec form
    # a module of the repo that is not there is reported; a file of the image is not
    missing = [(e.module, e.file) for e in a.entry_points if e.source == "docker/Dockerfile.gpu" and not e.exists]
    assert missing == [("pkg.gone", None)]
    keys = {k.key: (k.cls, k.value) for k in a.topology.config_keys}
    assert keys["MASTER_PORT"] == ("port", "29511")


def test_a_package_named_env_is_code_a_virtualenv_is_not(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    for d in ("pkg/env", "env/bin", "tools/conda/conda-meta", "venv"):
        (repo / d).mkdir(parents=True)
    (repo / "pkg" / "__init__.py").write_text("")
    (repo / "pkg" / "env" / "__init__.py").write_text("")
    (repo / "pkg" / "env" / "gym_env.py").write_text("class GymEnv:\n    def step(self, action):\n        return 0\n")
    (repo / "env" / "bin" / "activate").write_text("# virtualenv\n")
    (repo / "env" / "site.py").write_text("x = 1\n")
    (repo / "tools" / "conda" / "conda_lib.py").write_text("y = 1\n")
    (repo / "venv" / "lib.py").write_text("z = 1\n")
    files = discover(repo, Settings())
    assert "pkg/env/gym_env.py" in files.python
    assert files.modules["pkg/env/gym_env.py"] == "pkg.env.gym_env"
    assert not {"env/site.py", "tools/conda/conda_lib.py", "venv/lib.py"} & set(files.python)
