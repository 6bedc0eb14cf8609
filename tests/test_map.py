"""The map: clusters, both directed handoff edges, node budget, formats, determinism."""

from __future__ import annotations

import html
import re
import shutil

import pydot
import pytest
from click.testing import CliRunner
from test_map_support import P, fixture_analysis

from gyrelint.cli import main
from gyrelint.cli import map_cmd as map_cmd_module
from gyrelint.render import dot as dot_mod
from gyrelint.render.dot import MapError, build_map, node_id, to_dot
from gyrelint.render.mermaid import to_mermaid

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")  # pydot's parser on new pyparsing
HAS_DOT = shutil.which("dot") is not None
needs_dot = pytest.mark.skipif(not HAS_DOT, reason="GraphViz 'dot' is not installed (apt-get install graphviz)")
if not HAS_DOT:
    print("test_map: GraphViz 'dot' is not installed; image tests are skipped (apt-get install graphviz)")


@pytest.fixture(scope="module")
def analysis():
    return fixture_analysis()


@pytest.fixture(scope="module")
def big():
    return fixture_analysis(extra=900)


def _parse(dot_text: str):
    graphs = pydot.graph_from_dot_data(dot_text)
    assert graphs, "DOT did not parse"
    return graphs[0]


def _clusters(g) -> dict[str, set[str]]:
    """Each side's cluster and the nodes inside it, its module sub-clusters included."""
    def nodes(sub) -> set[str]:
        own = {n.get_name().strip('"') for n in sub.get_nodes() if n.get_name() not in ("graph", "node", "edge")}
        return own.union(*(nodes(s) for s in sub.get_subgraphs()))

    out = {}
    for sub in g.get_subgraphs():
        name = sub.get_name().strip('"')
        if name.startswith("cluster_"):
            out[name] = nodes(sub)
    return out


def _edges(g, cls: str) -> list[tuple[str, str, str]]:
    out = []
    for e in g.get_edges():
        attrs = e.get_attributes()
        if cls in attrs.get("class", "").strip('"').split():
            label = attrs.get("xlabel", attrs.get("label", ""))  # handoff edges: an xlabel beside the edge
            out.append((e.get_source().strip('"'), e.get_destination().strip('"'), label.strip('"')))
    return out


def _reaches(edges: list[tuple[str, str, str]], starts: set[str], goals: set[str]) -> bool:
    """Directed path along ``edges`` from a node in ``starts`` to a node in ``goals``."""
    frontier, seen = set(starts), set(starts)
    while frontier:
        nxt = {d for s, d, _ in edges if s in frontier} - seen
        if nxt & goals:
            return True
        seen |= nxt
        frontier = nxt
    return False


def test_clusters_hold_each_side(analysis):
    g = _parse(to_dot(build_map(analysis)))
    clusters = _clusters(g)
    assert {"cluster_sampling", "cluster_training", "cluster_handoff", "cluster_driver"} <= set(clusters)
    assert node_id(f"{P}.rollout.Sampler.generate") in clusters["cluster_sampling"]
    assert node_id(f"{P}.trainer.Trainer.update") in clusters["cluster_training"]
    assert node_id(f"{P}.buffer.TrajectoryBuffer.put") in clusters["cluster_handoff"]
    assert node_id(f"{P}.sync.push_weights") in clusters["cluster_handoff"]
    assert node_id(f"{P}.main.train_loop") in clusters["cluster_driver"]
    # neutral helpers are left out
    all_nodes = set().union(*clusters.values())
    assert node_id(f"{P}.main.log_metrics") not in all_nodes


def test_both_handoff_edges_are_directed_and_labelled(analysis):
    g = _parse(to_dot(build_map(analysis)))
    clusters = _clusters(g)
    sampling, training = clusters["cluster_sampling"], clusters["cluster_training"]
    traj, ws = _edges(g, "trajectory"), _edges(g, "weight_sync")
    assert traj and ws
    assert _reaches(traj, sampling, training), "no trajectory path sampler -> trainer"
    assert not _reaches(traj, training, sampling), "trajectory edges point the wrong way"
    assert _reaches(ws, training, sampling), "no weight-sync path trainer -> sampler"
    assert not _reaches(ws, sampling, training)
    # the trajectory goes through the handoff nodes between the clusters
    assert {s for s, _, _ in traj} & clusters["cluster_handoff"]
    assert any("queue" in label for _, _, label in traj)
    assert any("in-process" in label for _, _, label in ws)
    # drawn distinctly
    styles = {e.get_attributes().get("style", "").strip('"') for e in g.get_edges()
              if "weight_sync" in e.get_attributes().get("class", "")}
    assert styles == {"dashed"}


def test_entry_points_sit_above(analysis):
    text = to_dot(build_map(analysis))
    entry = node_id(f"entry:{P}.main")
    assert re.search(r"\{ rank=min; [^}]*" + entry, text)
    g = _parse(text)
    assert (entry, node_id(f"{P}.main.train_loop")) in {(s, d) for s, d, _ in _edges(g, "entry")}


def test_legend_present(analysis):
    text = to_dot(build_map(analysis))
    assert "legend" in text and "weight sync" in text and "trajectories" in text


@pytest.mark.parametrize("budget", [60, 20, 8])
def test_node_budget_and_collapsed_counts(big, budget):
    m = build_map(big, max_nodes=budget)
    assert len(m.nodes) <= budget
    groups = [n for n in m.nodes if n.kind == "group"]
    assert groups, "910 functions must be collapsed"
    for n in groups:
        assert n.label.startswith(f"+{len(n.members)} more")  # "+14 more functions / in pkg.sub"
    drawn = {q for n in m.nodes if n.side != "entry" for q in n.members}
    assert len(drawn) == m.total == 910
    g = _parse(to_dot(m))
    drawn_nodes = set().union(*(v for k, v in _clusters(g).items()))
    assert len(drawn_nodes) + 1 <= budget + 1  # + the entry point outside clusters
    # the handoff functions stay visible one by one
    assert node_id(f"{P}.sync.push_weights") in drawn_nodes
    assert _edges(g, "trajectory") and _edges(g, "weight_sync")


def test_no_collapse_when_it_fits(analysis):
    m = build_map(analysis)
    assert not any(n.kind == "group" for n in m.nodes)
    assert m.collapsed == {}


def test_deterministic_bytes(big):
    a = to_dot(build_map(big))
    b = to_dot(build_map(fixture_analysis(extra=900)))
    assert a == b


def test_focus_neighbourhood(analysis):
    m = build_map(analysis, focus="consume")
    keys = {q for n in m.nodes for q in n.members}
    assert f"{P}.trainer.Trainer.consume" in keys
    assert f"{P}.trainer.Trainer.update" in keys  # caller
    assert f"{P}.buffer.TrajectoryBuffer.get" in keys  # callee
    assert f"{P}.rollout.Sampler.score" not in keys
    with pytest.raises(MapError):
        build_map(analysis, focus="no_such_function_anywhere")


def test_module_level(analysis):
    m = build_map(analysis, level="module")
    by_key = {n.key: n for n in m.nodes}
    assert by_key[f"{P}.rollout"].side == "sampling"
    assert by_key[f"{P}.trainer"].side == "training"
    assert by_key[f"{P}.buffer"].side == "handoff"
    g = _parse(to_dot(m))
    assert _reaches(_edges(g, "trajectory"), {node_id(f"{P}.rollout")}, {node_id(f"{P}.trainer")})
    assert _reaches(_edges(g, "weight_sync"), {node_id(f"{P}.trainer")}, {node_id(f"{P}.rollout")})


def test_mermaid(analysis):
    text = to_mermaid(build_map(analysis))
    assert text.startswith("flowchart TB")
    assert "subgraph cluster_sampling" in text and "subgraph cluster_training" in text
    assert re.search(r"==>\|\"trajectories<br/>\(queue\)\"\|", text)
    assert re.search(r"-\.->\|\"weights<br/>\(in-process\)\"\|", text)
    assert "linkStyle" in text
    m = build_map(analysis)
    m.nodes[0].label = 'a "quoted" <b>x</b>'
    assert '<b>' not in to_mermaid(m) and "#quot;" in to_mermaid(m)


@pytest.fixture()
def cli(monkeypatch, analysis):
    monkeypatch.setattr(map_cmd_module, "run_analysis", lambda *a, **k: analysis)
    return CliRunner()


def test_cli_formats_by_extension(cli, tmp_path):
    out = tmp_path / "m.dot"
    r = cli.invoke(main, ["map", "x", "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert out.read_text().startswith("digraph gyrelint_map")
    r = cli.invoke(main, ["map", "x", "-o", str(tmp_path / "m.mmd")])
    assert (tmp_path / "m.mmd").read_text().startswith("flowchart TB")
    r = cli.invoke(main, ["map", "x", "--format", "mermaid"])
    assert r.output.startswith("flowchart TB")
    r = cli.invoke(main, ["map", "x", "-o", str(tmp_path / "m.jpeg")])
    assert r.exit_code == 2 and "unknown map format" in r.output
    r = cli.invoke(main, ["map", "x", "--focus", "nope_nothing", "-o", str(tmp_path / "f.dot")])
    assert r.exit_code == 2 and "--focus" in r.output


@needs_dot
def test_cli_images(cli, tmp_path):
    magic = {"svg": b"<svg", "png": b"\x89PNG", "pdf": b"%PDF"}
    for fmt, head in magic.items():
        out = tmp_path / f"m.{fmt}"
        r = cli.invoke(main, ["map", "x", "-o", str(out)])
        assert r.exit_code == 0, r.output
        data = out.read_bytes()
        assert head in data[:400]


@needs_dot
def test_svg_tooltips_and_identical_bytes(analysis):
    from gyrelint.render.dot import render_image

    dot_text = to_dot(build_map(analysis))
    svg = render_image(dot_text, "svg").decode()
    assert svg == render_image(dot_text, "svg").decode()
    nid = node_id(f"{P}.rollout.Sampler.generate")
    gen = re.search(rf'<g id="{nid}" class="([^"]*)"', svg)
    assert gen and "side-sampling" in html.unescape(gen.group(1))
    assert re.search(r'xlink:title="[^"]*looprl/rollout\.py:12', svg), "evidence file:line missing from tooltips"
    png1 = render_image(dot_text, "png")
    assert png1 == render_image(dot_text, "png")


def test_missing_graphviz_writes_dot(cli, tmp_path, monkeypatch):
    monkeypatch.setattr(dot_mod, "dot_program", lambda: None)
    out = tmp_path / "m.png"
    r = cli.invoke(main, ["map", "x", "-o", str(out)])
    assert r.exit_code == 2
    assert "graphviz" in r.output and "apt-get install graphviz" in r.output
    assert not out.exists()
    assert (tmp_path / "m.dot").read_text().startswith("digraph")


def test_demo_end_to_end(tmp_path):
    """The real pipeline on the bundled demo: every tagged function is drawn, budget and clusters hold."""
    from gyrelint.api import analyze, demo_root
    from gyrelint.render.dot import map_side

    a = analyze(demo_root(), use_cache=False)
    m = build_map(a, max_nodes=12)
    assert len(m.nodes) <= 12
    tagged = {q for q, f in a.functions.items() if map_side(f.side, f.handoff_kind) != "neutral"}
    drawn = {q for n in m.nodes for q in n.members}
    assert tagged <= drawn
    clusters = _clusters(_parse(to_dot(m)))
    for side in {map_side(a.functions[q].side, a.functions[q].handoff_kind) for q in tagged}:
        assert f"cluster_{side}" in clusters
    if a.handoff.trajectory and any(n.side == "sampling" for n in m.nodes) and any(n.side == "training" for n in m.nodes):
        assert any(e.kind == "trajectory" for e in m.edges)
    r = CliRunner().invoke(main, ["map", "--demo", "--no-cache", "-o", str(tmp_path / "demo.mmd")])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "demo.mmd").read_text().startswith("flowchart TB")


def test_focus_keeps_its_node_when_collapsing(big):
    m = build_map(big, focus="train_loop", max_nodes=10)
    assert len(m.nodes) <= 10
    single = {n.members[0] for n in m.nodes if n.kind == "function"}
    assert f"{P}.main.train_loop" in single
    assert any(n.kind == "group" for n in m.nodes)
