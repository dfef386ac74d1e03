"""The shape of the splitstep_analysis package: no import cycle between its modules, imports
inside functions included, and no module longer than MAX_LINES lines."""
import ast
import os
import tempfile
import unittest

from support import ROOT

PACKAGE = os.path.join(ROOT, "analysis", "splitstep_analysis")
# A module longer than this does more than one thing: split it along its seams.
MAX_LINES = 450


def modules(root):
    """{dotted name: (path, is a package)} of every .py file under the package folder `root`;
    a package's __init__.py stands for the package."""
    base = os.path.dirname(root)
    found = {}
    for folder, _, files in os.walk(root):
        for name in files:
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            parts = os.path.relpath(path, base)[:-len(".py")].split(os.sep)
            package = parts[-1] == "__init__"
            found[".".join(parts[:-1] if package else parts)] = (path, package)
    return found


def imported(name, path, package, known):
    """The modules of `known` that module `name` imports anywhere in its file: at the top, in a
    function or under a condition. `from .x import y` counts as importing x.y where that is a
    module, else x; a module's parent packages count too, as Python runs them first."""
    with open(path, encoding="utf-8") as source:
        tree = ast.parse(source.read(), path)
    targets = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = name.split(".") if package else name.split(".")[:-1]
                parts = parts[:len(parts) - (node.level - 1)]
                base = ".".join(parts + ([node.module] if node.module else []))
            else:
                base = node.module
            for alias in node.names:
                whole = f"{base}.{alias.name}"
                targets.add(whole if whole in known else base)
    edges = set()
    for target in targets:
        parts = target.split(".")
        edges.update(".".join(parts[:n]) for n in range(1, len(parts) + 1))
    return edges & set(known) - {name}


def import_graph(root):
    known = modules(root)
    return {name: imported(name, path, package, known)
            for name, (path, package) in known.items()}


def find_cycle(graph):
    """A list of modules each importing the next and the last the first, or None."""
    done, path = set(), []

    def visit(node):
        if node in path:
            return path[path.index(node):]
        if node in done:
            return None
        path.append(node)
        for successor in sorted(graph[node]):
            cycle = visit(successor)
            if cycle:
                return cycle
        path.pop()
        done.add(node)
        return None

    for start in sorted(graph):
        cycle = visit(start)
        if cycle:
            return cycle
    return None


class PackageTest(unittest.TestCase):
    def test_no_import_cycle(self):
        cycle = find_cycle(import_graph(PACKAGE))
        self.assertIsNone(cycle, cycle and "import cycle: " + " -> ".join(cycle + cycle[:1]))

    def test_the_graph_holds_the_package(self):
        # Guards the test above against a graph that misses the imports it should check.
        graph = import_graph(PACKAGE)
        self.assertLessEqual({"splitstep_analysis.plots", "splitstep_analysis.plots.step"},
                             graph["splitstep_analysis.plot"])
        self.assertIn("splitstep_analysis.compare_formats", graph["splitstep_analysis.compare"])
        self.assertIn("splitstep_analysis.schema", graph["splitstep_analysis.plots.parity"])

    def test_a_cycle_through_an_import_in_a_function_is_found(self):
        with tempfile.TemporaryDirectory() as folder:
            root = os.path.join(folder, "pkg")
            os.makedirs(os.path.join(root, "sub"))
            files = {"__init__.py": "", "a.py": "def later():\n    from . import b\n",
                     "b.py": "from .sub.c import x\n", "sub/__init__.py": "",
                     "sub/c.py": "from ..a import later\nx = 1\n"}
            for name, text in files.items():
                with open(os.path.join(root, name), "w", encoding="utf-8") as out:
                    out.write(text)
            cycle = find_cycle(import_graph(root))
        self.assertEqual(sorted(cycle), ["pkg.a", "pkg.b", "pkg.sub.c"])

    def test_no_module_over_the_limit(self):
        for name, (path, _) in sorted(modules(PACKAGE).items()):
            with self.subTest(module=name), open(path, encoding="utf-8") as source:
                self.assertLessEqual(sum(1 for _ in source), MAX_LINES)


if __name__ == "__main__":
    unittest.main()
