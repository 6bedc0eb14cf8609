"""Entry points: each source kind, continuations, env prefixes, variables, missing targets,
external programs left alone, de-duplication, stable order, and the `entries` command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from gyrelint.api import index_repo
from gyrelint.cli import main
from gyrelint.entrypoints import find_entry_points, scan_entry_points
from gyrelint.entrypoints.docs import markdown_blocks, rst_blocks
from gyrelint.entrypoints.packaging import (
    entry_points_txt_scripts,
    pyproject_scripts,
    setup_cfg_scripts,
    setup_py_scripts,
)
from gyrelint.entrypoints.shell import scan_shell
from gyrelint.settings import load_settings

FIXTURES = Path(__file__).parent / "fixtures"
REPO = FIXTURES / "entries_repo"
SRC = FIXTURES / "entries_srclayout"


def launches(text: str, **kw) -> list[tuple[str, str]]:
    lines = list(enumerate(text.splitlines(), 1))
    return [(x.kind, x.target) for x in scan_shell(lines, **kw).launches]


# ---- the shell reader ----------------------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("python -m pkg.train --lr 1", [("module", "pkg.train")]),
    ("python3 -u train.py", [("file", "train.py")]),
    ("python3.11 -O -X dev -W ignore -m pkg.a", [("module", "pkg.a")]),
    ("CUDA_VISIBLE_DEVICES=0,1 NCCL_DEBUG=INFO python -m pkg.b", [("module", "pkg.b")]),
    ("env -u X A=1 python -m pkg.c", [("module", "pkg.c")]),
    ("nohup python -m pkg.d > log 2>&1 &", [("module", "pkg.d")]),
    ("exec python3 -m pkg.e", [("module", "pkg.e")]),
    ("timeout 10 sudo -E python x/y.py", [("file", "x/y.py")]),
    ("torchrun --nnodes 1 --nproc_per_node=8 --standalone -m pkg.f --x 1", [("module", "pkg.f")]),
    ("torchrun --nproc_per_node 2 --master_port 29500 scripts/t.py", [("file", "scripts/t.py")]),
    ("python -m torch.distributed.run --nproc_per_node 2 t.py", [("file", "t.py")]),
    ("accelerate launch --multi_gpu --num_processes 8 train.py", [("file", "train.py")]),
    ("accelerate launch --config_file c.yaml -m pkg.g", [("module", "pkg.g")]),
    ("accelerate config", []),
    ("deepspeed --num_gpus 8 train.py --deepspeed ds.json", [("file", "train.py")]),
    ("deepspeed --module pkg.h --x 1", [("module", "pkg.h")]),
    ("ray job submit --address=http://x:8265 --runtime-env-json='{\"a\": 1}' -- python3 -m pkg.i", [("module", "pkg.i")]),
    ("ray start --head", []),
    ("uv run --with torch python -m pkg.j", [("module", "pkg.j")]),
    ("uv run -m pkg.k", [("module", "pkg.k")]),
    ("uv run my-tool --x", [("console", "my-tool")]),
    ("poetry run python t.py", [("file", "t.py")]),
    ("srun -N 2 --ntasks 8 python -m pkg.l", [("module", "pkg.l")]),
    ("bash -c 'cd x && python -m pkg.m'", [("module", "pkg.m")]),
    ("if true; then python -m pkg.n; fi", [("module", "pkg.n")]),
    ("python -m pkg.o | tee log.txt && python -m pkg.p", [("module", "pkg.o"), ("module", "pkg.p")]),
    ("./scripts/run.py --x", [("file", "./scripts/run.py")]),
    ("python -c 'import pkg'", []),
    ("python --version", []),
    ("python setup.py install", []),
    ("pip install python-dateutil", []),
    ("echo python -m pkg.q", []),
    ("sudo apt install -y python3.10 python3.10-venv", []),
    ("nice -n 10 taskset -c 0-3 python -m pkg.s", [("module", "pkg.s")]),
    ("# python -m pkg.r", []),
])
def test_command_forms(text: str, expected: list[tuple[str, str]]) -> None:
    assert launches(text) == expected


def test_continuations_and_comment_lines() -> None:
    text = "python3 -m pkg.train \\\n    --a 1 \\\n    --b 2\n# python -m pkg.commented \\\npython x.py\n"
    scan = scan_shell(list(enumerate(text.splitlines(), 1)))
    assert [(x.target, x.line) for x in scan.launches] == [("pkg.train", 1), ("x.py", 5)]
    assert "--b 2" in scan.launches[0].command


def test_quoted_string_across_lines_is_one_command() -> None:
    text = 'CMD="python -m pkg.multi\n  --x 1"\n$CMD\n'
    assert launches(text) == [("module", "pkg.multi")]


def test_long_continuations_and_stray_apostrophes() -> None:
    long_cmd = "python -m pkg.long \\\n" + "".join(f"  --x{i} {i} \\\n" for i in range(150)) + "  --end\n"
    assert launches(long_cmd + "python -m pkg.after\n") == [("module", "pkg.long"), ("module", "pkg.after")]
    assert launches("echo don't forget\npython -m pkg.next\n") == [("module", "pkg.next")]


def test_variables_defaults_and_heredoc_read() -> None:
    text = (
        'ENTRY=${ENTRY:-"-m pkg.sft"}\n'
        "torchrun --standalone ${ENTRY} --x 1\n"
        "read -r -d '' ARGS <<EOF\npkg.ppo \\\n  --lr 1\nEOF\n"
        "deepspeed --module $ARGS\n"
        "python $UNKNOWN_DIR/t.py\n"
        "python -m $UNKNOWN_MOD\n"
    )
    scan = scan_shell(list(enumerate(text.splitlines(), 1)))
    targets = [(x.kind, x.target, x.uncertain) for x in scan.launches]
    assert ("module", "pkg.sft", False) in targets
    assert ("module", "pkg.ppo", False) in targets
    assert ("file", "$UNKNOWN_DIR/t.py", True) in targets
    assert len(scan.unresolved) == 1  # -m $UNKNOWN_MOD


def test_heredoc_body_is_not_commands_and_written_files_are_known() -> None:
    text = "cat > gen.py <<'EOF'\npython -m pkg.inside_heredoc\nEOF\npython gen.py\n"
    scan = scan_shell(list(enumerate(text.splitlines(), 1)))
    assert [x.target for x in scan.launches] == ["gen.py"]
    assert "gen.py" in scan.generated


def test_makefile_recipes_and_variables() -> None:
    text = "PY ?= python3\nall:\n\t@$(PY) -m pkg.make --x\nNOT_A_RECIPE = python -m pkg.no\n"
    assert launches(text, make=True) == [("module", "pkg.make")]


def test_yaml_command_lines() -> None:
    text = ("steps:\n  - run: python -m pkg.ci\n  - run: |\n      torchrun --standalone \\\n        t.py\n"
            "  paths: ['!pkg/x.py']\n  command: [\"python\", \"-m\", \"pkg.job\"]\n  name: python\n")
    assert launches(text, yaml=True) == [("module", "pkg.ci"), ("file", "t.py"), ("module", "pkg.job")]


# ---- documentation blocks ------------------------------------------------------------------------

def test_markdown_blocks_languages_and_prompts() -> None:
    text = ("```bash\npython -m a\n```\n```python\nx = 'python -m b'\n```\n"
            "```console\n$ python -m c \\\n    --x\noutput python -m d\n```\n~~~sh\npython -m e\n~~~\n")
    got = [[t for _, t in b] for b in markdown_blocks(text)]
    assert got == [["python -m a"], ["python -m c \\", "    --x"], ["python -m e"]]
    assert markdown_blocks(text)[0][0][0] == 2  # line numbers are the file's


def test_markdown_myst_and_indented_fences() -> None:
    text = "1. step\n\n      ```{code-block} bash\n      python -m a\n      ```\n```{code-block} python\nx = 1\n```\n"
    assert [[t for _, t in b] for b in markdown_blocks(text)] == [["python -m a"]]


def test_rst_code_blocks() -> None:
    text = "T\n=\n\n.. code-block:: bash\n   :linenos:\n\n   python -m a\n   python -m b\n\nafter\n\n.. code-block:: python\n\n   python -m c\n"
    blocks = rst_blocks(text)
    assert [[t for _, t in b if t.strip()] for b in blocks] == [["python -m a", "python -m b"]]
    assert [n for n, t in blocks[0] if t.strip()] == [7, 8]


# ---- package metadata ----------------------------------------------------------------------------

def test_setup_py_is_read_not_run(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    text = (f"open({str(marker)!r}, 'w').write('x')\nfrom setuptools import setup\n"
            "EPS = {'console_scripts': ['a = pkg.cli:main', 'b=pkg.other']}\nsetup(entry_points=EPS)\n")
    scripts, diags = setup_py_scripts(text)
    assert [(s.name, s.module, s.attr) for s in scripts] == [("a", "pkg.cli", "main"), ("b", "pkg.other", None)]
    assert not diags and not marker.exists()


def test_setup_py_ini_string_and_setup_cfg() -> None:
    text = 'setup(entry_points="""\n[console_scripts]\ntool = pkg.mod:run\n""")\n'
    assert [(s.name, s.module, s.line) for s in setup_py_scripts(text)[0]] == [("tool", "pkg.mod", 3)]
    cfg = "[options.entry_points]\nconsole_scripts =\n    t2 = pkg.b:go\n"
    assert [(s.name, s.module, s.attr, s.line) for s in setup_cfg_scripts(cfg)[0]] == [("t2", "pkg.b", "go", 3)]


def test_wheel_entry_points_txt() -> None:
    text = "[console_scripts]\nrun-it = pkg.cli:main\n\n[other.group]\nx = pkg.plugin:P\n"
    assert [(s.name, s.module, s.attr, s.line) for s in entry_points_txt_scripts(text)[0]] == [("run-it", "pkg.cli", "main", 2)]


def test_pyproject_scripts_and_bad_toml() -> None:
    text = '[project.scripts]\nx = "pkg.m:f"\n[tool.poetry.scripts]\ny = "pkg.n:g"\n'
    assert [(s.name, s.module, s.attr) for s in pyproject_scripts(text)[0]] == [("x", "pkg.m", "f"), ("y", "pkg.n", "g")]
    scripts, diags = pyproject_scripts("[project\n")
    assert scripts == [] and diags and diags[0].kind == "entry"


# ---- the fixture repos ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def repo_scan():
    settings, _ = load_settings(REPO)
    index = index_repo(REPO, settings.with_overrides(use_cache=False, jobs=1))
    return index, settings, scan_entry_points(index, settings)


def _by(scan, found_by: str) -> set[tuple]:
    return {(e.module, e.source) for e in scan.entries if e.found_by == found_by and e.exists}


def test_every_source_kind_is_found(repo_scan) -> None:
    _, _, scan = repo_scan
    assert ("rlx.cli", "pyproject.toml") in _by(scan, "pyproject")
    assert ("rlx.serve", "setup.py") in _by(scan, "setup")
    assert ("rlx.evaluate", "setup.cfg") in _by(scan, "setup")
    assert ("rlx.train", "README.md") in _by(scan, "readme")
    assert ("scripts.run_eval", "docs/guide.rst") in _by(scan, "readme")
    assert ("rlx.app.__main__", "README.md") in _by(scan, "readme")  # console block continuation line
    script = _by(scan, "script")
    for expected in [("rlx.train", "scripts/launch.sh"), ("rlx.train", "Makefile"), ("rlx.driver", "scripts/launch.sh"),
                     ("rlx.sft", "scripts/launch.sh"), ("rlx.evaluate", "scripts/launch.sh"),
                     ("rlx.smoke", ".github/workflows/ci.yml"), ("scripts.run_eval", ".github/workflows/ci.yml")]:
        assert expected in script
    assert ("rlx.driver", "rlx/driver.py") in _by(scan, "hydra")
    assert ("tools.extra", "tools/extra.py") in _by(scan, "hydra")  # `from hydra import main as ...`
    assert ("rlx.train", "rlx/train.py") in _by(scan, "main-guard")
    assert ("tools.extra", "pyproject.toml") in _by(scan, "config")


def test_functions_are_named(repo_scan) -> None:
    _, _, scan = repo_scan
    fn = {(e.found_by, e.file): e.function for e in scan.entries if e.exists}
    assert fn[("pyproject", "rlx/cli.py")] == "rlx.cli.main"
    assert fn[("pyproject", "rlx/app/__init__.py")] == "rlx.app.launch"  # pkg:func imports pkg, not __main__
    assert fn[("hydra", "rlx/driver.py")] == "rlx.driver.run_driver"
    assert fn[("main-guard", "rlx/train.py")] == "rlx.train.main"  # main(parse()): not parse
    assert fn[("main-guard", "scripts/run_local.py")] == "rlx.train.main"  # imported from the repo
    assert fn[("readme", "rlx/train.py")] == "rlx.train.main"
    assert fn[("main-guard", "scripts/prep_data.py")] is None  # an inline script body has no entry function


def test_script_paths_resolve_from_script_dir_and_root(repo_scan) -> None:
    _, _, scan = repo_scan
    files = {e.file for e in scan.entries if e.source == "scripts/launch.sh" and e.exists}
    assert "scripts/run_local.py" in files  # relative to the script's folder
    assert "tools/extra.py" in files  # relative to the repo root
    assert any(e.command.startswith("uv run rlx-train") and e.file == "rlx/cli.py" for e in scan.entries)


def test_missing_targets_are_reported_with_location(repo_scan) -> None:
    _, _, scan = repo_scan
    msgs = {str(d) for d in scan.diagnostics if d.kind == "entry"}
    for loc, target in [("README.md:12", "rlx.trainer_v0"), ("README.md:13", "scripts/missing_script.py"),
                        ("docs/guide.rst:7", "rlx.renamed_module"), ("Makefile:7", "rlx.old_train"),
                        (".github/workflows/ci.yml:14", "scripts/removed_step.py"),
                        ("pyproject.toml:7", "rlx.gone")]:
        assert any(m.startswith(loc + ":") and target in m for m in msgs), (loc, target)
    assert any("not_defined" in m for m in msgs)
    assert any(m.startswith("pyproject.toml:12:") and "rlx.absent" in m for m in msgs)
    missing = {(e.module or e.file) for e in scan.missing}
    assert {"rlx.trainer_v0", "scripts/missing_script.py", "rlx.old_train"} <= missing


def test_external_programs_placeholders_and_non_shell_are_not_flagged(repo_scan) -> None:
    _, _, scan = repo_scan
    text = " ".join(str(d) for d in scan.diagnostics) + " ".join(e.command for e in scan.entries)
    for name in ("pip", "pytest", "vllm", "your_script", "ghost", "printed_output", "literal_block", "commented_out",
                 "gen_model", "run_train", "rlx/train.py"):
        assert name not in text, name
    assert scan.external >= 3  # pip, pytest, vllm
    assert scan.unresolved >= 1  # $WORKDIR/run_train.py


def test_deduplicated_and_deterministic(repo_scan) -> None:
    index, settings, scan = repo_scan
    keys = [(e.found_by, e.source, e.file or e.module, e.function) for e in scan.entries]
    assert len(keys) == len(set(keys))
    again, diags = find_entry_points(index, settings)
    assert again == scan.entries and diags == scan.diagnostics


def test_src_layout_and_subproject_readme() -> None:
    index = index_repo(SRC, use_cache=False, jobs=1)
    settings, _ = load_settings(SRC)
    scan = scan_entry_points(index, settings)
    readme = [(e.source, e.module, e.file, e.exists) for e in scan.entries if e.found_by == "readme"]
    assert ("README.md", "pkgx.train", "src/pkgx/train.py", True) in readme
    assert ("examples/proj/README.md", "examples.proj.run", "examples/proj/run.py", True) in readme
    assert sum(1 for r in readme if r[0] == "README.md" and r[2] == "src/pkgx/train.py") == 1  # -m and path: one
    assert [e.module or e.file for e in scan.missing] == ["pkgx.missing", "pkgx.train", "pkgx"]
    assert any("no __main__.py" in str(d) and "README.md:20" in str(d) for d in scan.diagnostics)
    assert any("add -m" in str(d) and "README.md:19" in str(d) for d in scan.diagnostics)
    assert not any("build_ext" in str(d) for d in scan.diagnostics)  # after `cd` into a folder not in the repo
    # a console script naming a re-export (`from .train import main as cli`) enters the real function
    assert [e.function for e in scan.entries if e.found_by == "pyproject"] == ["pkgx.train.main"]


def test_excluded_files_still_exist(tmp_path: Path) -> None:
    (tmp_path / "pkg" / "legacy").mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "main.py").write_text("print(1)\n")
    (tmp_path / "pkg" / "legacy" / "run.py").write_text("print(2)\n")
    (tmp_path / "pyproject.toml").write_text('[tool.gyrelint]\nexclude = ["pkg/legacy"]\n')
    (tmp_path / "README.md").write_text("```bash\npython -m pkg.legacy.run\npython pkg/legacy/run.py\n```\n")
    settings, _ = load_settings(tmp_path)
    scan = scan_entry_points(index_repo(tmp_path, settings.with_overrides(use_cache=False, jobs=1)), settings)
    assert not scan.missing
    assert {(e.module, e.file) for e in scan.entries if e.found_by == "readme"} == {("pkg.legacy.run", "pkg/legacy/run.py")}


# ---- the command -----------------------------------------------------------------------------------

def test_entries_command_text_and_json() -> None:
    runner = CliRunner()
    res = runner.invoke(main, ["entries", str(REPO), "--no-cache", "-j", "1"])
    assert res.exit_code == 0, res.output
    assert "rlx.train" in res.output and "Missing targets" in res.output and "README.md:12" in res.output
    res = runner.invoke(main, ["entries", str(REPO), "--no-cache", "-j", "1", "--format", "json"])
    data = json.loads(res.stdout)
    assert data["schema"] == "gyrelint/1"
    assert {"module", "file", "found_by", "source", "line", "command", "function", "exists"} <= set(data["entry_points"][0])
    assert any(m["module"] == "rlx.trainer_v0" for m in data["missing"])
    assert data["counts"]["hydra"] == 2


def test_entries_command_extra_entry_option() -> None:
    res = CliRunner().invoke(main, ["entries", str(SRC), "--no-cache", "-j", "1", "--format", "json",
                                    "--entry", "examples/proj/run.py", "--entry", "pkgx.nothere"])
    data = json.loads(res.stdout)
    config = [(e["source"], e["file"], e["exists"]) for e in data["entry_points"] if e["found_by"] == "config"]
    assert ("--entry", "examples/proj/run.py", True) in config
    assert any(m["module"] == "pkgx.nothere" and m["source"] == "--entry" for m in data["missing"])


def test_entries_command_bad_path(tmp_path: Path) -> None:
    runner = CliRunner()
    for bad in (str(tmp_path / "nope"), str(REPO / "README.md"), str(tmp_path)):
        res = runner.invoke(main, ["entries", bad])
        assert res.exit_code == 2
        assert len(res.output.strip().splitlines()) == 1 and "error" in res.output
