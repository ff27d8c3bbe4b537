"""The code's shape, held: a few modules at pages/' top, no module too long to read whole,
and the extraction decision's numbers in its one thresholds record.

Read from the source (ast), as tests/test_layers.py reads the imports.
"""

import ast
import os

from conftest import ROOT

MAX_LINES = 650  # a module longer than this has more than one job: split it by job
PAGES_TOP = 4  # worker/pages/ by stage: its top level is the pipeline and the spec, few besides
EXTRACT = os.path.join(ROOT, "worker", "pages", "extract")
THRESHOLDS = os.path.join(EXTRACT, "thresholds.py")
# Decimal literals the extraction may keep outside the thresholds record: constants of
# arithmetic, not decisions (0.0 as "no share", a number's sanity bound).
MAX_DECIMALS = 8


def _python_files(*parts):
    for part in parts:
        for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, part)):
            dirnames[:] = [d for d in dirnames if d not in ("node_modules", "__pycache__") and not d.startswith(".")]
            for f in filenames:
                if f.endswith(".py"):
                    yield os.path.join(dirpath, f)


def _tree(path):
    with open(path, encoding="utf-8") as f:
        return ast.parse(f.read())


def test_pages_has_a_few_modules_at_its_top():
    pages = os.path.join(ROOT, "worker", "pages")
    top = sorted(f for f in os.listdir(pages) if f.endswith(".py") and f != "__init__.py")
    assert "pipeline.py" in top  # the listing found the package
    assert len(top) <= PAGES_TOP, top


def test_no_module_of_the_worker_or_its_hosts_is_over_the_length():
    lengths = {}
    for path in _python_files("worker", "hosts"):
        with open(path, encoding="utf-8") as f:
            lengths[os.path.relpath(path, ROOT)] = sum(1 for _ in f)
    assert len(lengths) > 100 and "hosts/mcp/server.py" in lengths
    over = {p: n for p, n in lengths.items() if n > MAX_LINES}
    assert not over, over


def _decimals(path):
    return [
        (os.path.relpath(path, ROOT), n.lineno)
        for n in ast.walk(_tree(path))
        if isinstance(n, ast.Constant) and isinstance(n.value, float)
    ]


def test_the_extractions_decimal_numbers_are_in_the_thresholds_record():
    held = _decimals(THRESHOLDS)
    assert len(held) > 30  # the record holds the decision's shares and ratios
    outside = [d for f in _python_files("worker/pages/extract") if f != THRESHOLDS for d in _decimals(f)]
    assert len(outside) <= MAX_DECIMALS, outside


def test_the_rules_read_the_thresholds_when_asked():
    """A sweep replaces the record (thresholds.using): a rule that copied a number at import
    (``from .thresholds import T``, a default argument ``= th.T.X``) would not see it."""
    checked = 0
    for path in _python_files("worker/pages/extract"):
        tree = _tree(path)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("thresholds"):
                raise AssertionError("%s imports from the thresholds module by name: %s" % (path, ast.unparse(node)))
            if isinstance(node, (ast.FunctionDef, ast.Lambda)):
                for default in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
                    assert "th.T." not in ast.unparse(default), (path, node.lineno)
            if isinstance(node, ast.Attribute) and ast.unparse(node).startswith("th.T."):
                checked += 1
    assert checked > 80


def test_a_sweep_reaches_a_rule():
    from worker.pages.extract import decide
    from worker.pages.extract import thresholds as th

    article = "word " * 100
    longer = article + "more " * 15  # 1.15x the article: under LONGER_ARTICLE (1.2)
    assert not decide.longer_than(longer, article)
    with th.using(LONGER_ARTICLE=1.1):
        assert decide.longer_than(longer, article)
    assert not decide.longer_than(longer, article)  # the record is back


def test_the_thresholds_record_is_frozen_and_names_its_fields():
    import pytest

    from worker.pages.extract import thresholds as th

    with pytest.raises(AttributeError):
        th.T.REGION_COVER = 0.5
    with pytest.raises(TypeError):
        th.T.replace(NO_SUCH_RULE=1)
    assert th.T.replace(REGION_COVER=0.5).REGION_COVER == 0.5 and th.T.REGION_COVER == 0.8
    assert len(th.Thresholds.names()) == len(set(th.Thresholds.names())) > 80
