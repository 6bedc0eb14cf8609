"""Bad config files become one-line diagnostics naming the file; the other files are still read."""

from dataclasses import replace
from pathlib import Path

from gyrelint.graphs.model import Graphs
from gyrelint.index import build_index
from gyrelint.settings import load_settings
from gyrelint.topology import analyze_topology

BOMB = """a: &a ["x","x","x","x","x","x","x","x","x"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"""


def make_repo(tmp_path: Path) -> Path:
    # code that names every config file, so each counts as loaded (a file nobody loads is not config)
    (tmp_path / "main.py").write_text("import yaml\nCONFIGS = ['good.yaml', 'dupes.yaml', 'unsafe.yaml', 'latin.yaml', "
                                      "'huge.yaml', 'merge.yaml', 'broken.toml', 'dupes.json']\n")
    files = {
        "good.yaml": "trainer:\n  nnodes: 2\n",
        "broken.yaml": "trainer:\n  nnodes: [1, 2\nother: 3\n",
        "dupes.yaml": "master_port: 1\nmaster_port: 2\n",
        "unsafe.yaml": "obj: !!python/object/apply:os.system ['echo hi']\nserver_port: 80\n",
        "bomb.yaml": BOMB,
        "broken.toml": "[server]\nport = \n",
        "broken.json": '{"port": 1,\n "host": }\n',
        "dupes.json": '{"port": 1,\n "port": 2}\n',
        "dupes.ini": "[dist]\nbackend = nccl\nbackend = gloo\n",
        "merge.yaml": "base: &base\n  port: 10\nchild:\n  <<: *base\n  host: h\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "latin.yaml").write_bytes("# caf\xe9\nrouter_port: 7\n".encode("latin-1"))
    (tmp_path / "huge.yaml").write_text("world_size: 2\n" + "# padding\n" * 2000)
    return tmp_path


def run(root: Path):
    settings, _ = load_settings(root)
    settings = replace(settings, use_cache=False, jobs=1, max_file_size=8 * 1024)
    index = build_index(root, settings)
    return analyze_topology(index, Graphs(), settings)


def test_bad_files_are_diagnostics_and_analysis_goes_on(tmp_path):
    topo, diags = run(make_repo(tmp_path))  # the alias bomb ends at the node budget instead of expanding
    by_file = {}
    for d in diags:
        by_file.setdefault(d.file, []).append(d)
        assert "\n" not in d.message
    assert by_file["broken.yaml"][0].kind == "parse" and by_file["broken.yaml"][0].line == 3
    assert "duplicate key 'master_port'" in by_file["dupes.yaml"][0].message
    assert by_file["dupes.yaml"][0].line == 2
    assert "unsafe YAML tag" in by_file["unsafe.yaml"][0].message
    assert "alias bomb" in by_file["bomb.yaml"][0].message
    assert by_file["broken.toml"][0].kind == "parse" and by_file["broken.toml"][0].line == 2
    assert by_file["broken.json"][0].kind == "parse" and by_file["broken.json"][0].line == 2
    assert "duplicate key 'port'" in by_file["dupes.json"][0].message
    assert "duplicate key 'backend'" in by_file["dupes.ini"][0].message
    assert by_file["latin.yaml"][0].kind == "decode"
    assert by_file["huge.yaml"][0].kind == "size"
    keys = {(k.key, k.file): k for k in topo.config_keys}
    assert keys[("trainer.nnodes", "good.yaml")].value == "2"
    assert ("server_port", "unsafe.yaml") in keys  # the rest of the file is still read
    assert keys[("master_port", "dupes.yaml")].value == "2"  # YAML keeps the last
    assert keys[("router_port", "latin.yaml")].line == 2
    assert ("world_size", "huge.yaml") not in keys
    assert keys[("child.port", "merge.yaml")].value == "10"  # merge keys expand
    assert ("obj", "unsafe.yaml") not in keys


def test_deeply_nested_files_do_not_crash(tmp_path):
    (tmp_path / "main.py").write_text("x = open('ok.yaml')\n")
    depth = 5000
    (tmp_path / "deep.json").write_text("[" * depth + "]" * depth)
    (tmp_path / "deep.yaml").write_text("a: " + "[" * depth + "]" * depth + "\n")
    (tmp_path / "deep.toml").write_text("a = " + "[" * depth + "]" * depth + "\n")
    (tmp_path / "ok.yaml").write_text("master_port: 1\n")
    topo, diags = run(tmp_path)
    assert {d.file for d in diags} <= {"deep.json", "deep.yaml", "deep.toml"}
    assert [k.key for k in topo.config_keys] == ["master_port"]
