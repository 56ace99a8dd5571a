"""The package's modules import one way (issue 67): no module imports one that imports it back, directly or
through others. Read from the sources (every import statement, module level or inside a function, since
a late import that goes back up is still a circle). The package's __init__ is in the graph like any
module: a name taken from the package itself (``from . import Scene``) is an import of __init__, which
imports _core (the floor) and the modules by responsibility; those take what they need from _core and
from each other, so no circle runs through the namespace either."""
import ast
import os
import unittest

PKG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sensim")


def import_graph():
    mods = {f[:-3] for f in os.listdir(PKG) if f.endswith(".py")}
    generated = {f[:-6] for f in os.listdir(PKG) if f.endswith(".py.in")}  # written at install (_installed)
    graph = {g: [] for g in generated}
    mods |= generated
    for m in sorted(mods - generated):
        with open(os.path.join(PKG, m + ".py")) as f:
            tree = ast.parse(f.read())
        out = set()
        for n in ast.walk(tree):
            if not isinstance(n, ast.ImportFrom):
                continue
            if n.level == 1 and n.module:
                out.add(n.module.split(".")[0])
            elif n.level == 1:
                out.update(a.name for a in n.names if a.name in mods)
                if any(a.name not in mods for a in n.names):  # a name of the package itself: its __init__
                    out.add("__init__")
            elif n.level == 0 and n.module and n.module.startswith("sensim."):
                out.add(n.module.split(".")[1])
        graph[m] = sorted((out & mods) - {m})
    return graph


def cycle(graph):
    """One cycle of @p graph as a list of modules, or None."""
    state, stack = {}, []

    def visit(m):
        state[m] = 1
        stack.append(m)
        for n in graph.get(m, ()):
            if state.get(n) == 1:
                return stack[stack.index(n):] + [n]
            if n not in state:
                found = visit(n)
                if found:
                    return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state:
            found = visit(m)
            if found:
                return found
    return None


class ImportGraph(unittest.TestCase):
    def test_the_checker_finds_a_circle(self):
        self.assertEqual(cycle({"a": ["b"], "b": ["c"], "c": ["a"]}), ["a", "b", "c", "a"])
        self.assertIsNone(cycle({"a": ["b"], "b": ["c"], "c": []}))

    def test_no_module_imports_back(self):
        graph = import_graph()
        self.assertIn("_carla_types", graph["carla"])  # the graph is read (the facade's floor is there)
        self.assertIn("_core", graph["__init__"])
        self.assertIn("__init__", graph["carla"])  # names taken from the package are edges to __init__
        self.assertEqual(cycle(graph), None, "an import circle: %s" % graph)

    def test_the_carla_modules_stand_below_the_facade(self):
        graph = import_graph()
        for m in ("_carla_types", "_carla_data", "_carla_platform", "_carla_blueprints", "_carla_delivery"):
            self.assertNotIn("carla", graph[m], "%s imports sensim.carla back" % m)


if __name__ == "__main__":
    unittest.main()
