"""The house's layers, read from the code's own imports: views (blueprints) over live and services,
live over services, services over the rules (league) and the wiring, the rules over nothing of ours.
No import circle between the packages, and no blueprint importing another blueprint."""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("league", "wiring", "services", "live", "blueprints")
# What each package may import of ours: the layers, top to bottom.
MAY_IMPORT = {
    "blueprints": {"blueprints", "live", "services", "league", "wiring"},
    "live": {"live", "services", "league", "wiring"},
    "services": {"services", "league", "wiring"},
    "league": {"league"},
    "wiring": {"wiring"},
}
# Modules of blueprints/ that are not a blueprint: helpers any blueprint may use.
BLUEPRINT_HELPERS = {"blueprints", "blueprints.errors", "blueprints.forms", "blueprints.filters", "blueprints.cli",
                     "blueprints.once"}
OUTSIDE_LIBRARIES = ("flask", "flask_sqlalchemy", "flask_login", "flask_wtf", "sqlalchemy", "werkzeug")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> set[str]:
    """Every module `path` imports (absolute names; `from a import b` counts as a.b when b is a module)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names
                      if (ROOT / node.module.replace(".", "/") / f"{alias.name}.py").exists()}
    return found


def code_modules() -> dict[str, set[str]]:
    """Our modules (not the tests, not the migrations) and what each imports."""
    modules = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            modules[module_name(path)] = imports_of(path)
    return modules


def package_of(module: str) -> str | None:
    top = module.split(".")[0]
    return top if top in PACKAGES else None


def test_the_root_holds_only_the_factory_and_the_server_config():
    assert sorted(p.name for p in ROOT.glob("*.py")) == ["app.py", "gunicorn.conf.py"]


@pytest.mark.parametrize("package", PACKAGES)
def test_each_package_imports_only_the_layers_below_it(package):
    wrong = {module: sorted(target for target in targets if package_of(target) not in (None, *MAY_IMPORT[package]))
             for module, targets in code_modules().items() if package_of(module) == package}
    assert {module: targets for module, targets in wrong.items() if targets} == {}


def test_the_rules_import_no_flask_sqlalchemy_nor_models():
    wrong = {module: sorted(t for t in targets if t.split(".")[0] in OUTSIDE_LIBRARIES or package_of(t) not in
                            (None, "league")) for module, targets in code_modules().items() if package_of(module) == "league"}
    assert {module: targets for module, targets in wrong.items() if targets} == {}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every import circle a depth-first search meets, each as the path that closes it (the
    assertion's message names the modules to look at)."""
    state: dict[str, str] = {}

    def cycle_from(node: str, path: list[str]) -> list[str] | None:
        state[node] = "open"
        for nxt in sorted(edges[node]):
            if state.get(nxt) == "open":
                return path + [node, nxt]
            if nxt not in state and (found := cycle_from(nxt, path + [node])):
                return found
        state[node] = "done"
        return None

    return [found for node in sorted(edges) if node not in state and (found := cycle_from(node, []))]


def test_no_import_circle_between_the_packages():
    edges = {package: set() for package in PACKAGES}
    for module, targets in code_modules().items():
        for target in targets:
            if package_of(target) and package_of(target) != package_of(module):
                edges[package_of(module)].add(package_of(target))
    assert cycles(edges) == []


def test_no_import_circle_between_modules():
    modules = code_modules()
    edges = {module: {t for t in targets if t in modules and t != module} for module, targets in modules.items()}
    assert cycles(edges) == []


def blueprint_of(module: str) -> str | None:
    """The blueprint a module of blueprints/ belongs to (play's package counts as one), None for a helper."""
    if module in BLUEPRINT_HELPERS or not module.startswith("blueprints."):
        return None
    return module.split(".")[1]


def test_no_blueprint_imports_another_blueprint():
    wrong = {module: sorted(t for t in targets if blueprint_of(t) not in (None, blueprint_of(module)))
             for module, targets in code_modules().items() if blueprint_of(module)}
    assert {module: targets for module, targets in wrong.items() if targets} == {}
