"""The Singularity recipe parses (spython) and its %post and %test commands really run.

%post and %test run as one shell script each, as the container build would run them,
with three differences: the prefix is a temporary folder instead of /opt/spgen
(SPGEN_PREFIX), the repository copy is made by `spgen container build`'s own staging
function, and the apt-get lines are switched off (SPGEN_SYSTEM_PACKAGES=0: no root,
no Debian root here) -- the test checks instead that what they install is present.
The Python package is installed with pip into a fresh virtual environment from
PyPI, exactly as in the image; %test runs with the recipe's %environment (paths
moved to the prefix), as `apptainer test` runs it.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sysconfig
from pathlib import Path

import pytest
from spgen.commands._container import stage_tree
from spython.main.parse.parsers import SingularityParser

ROOT = Path(__file__).resolve().parents[2]
DEF = ROOT / "containers" / "spgen.def"
pytestmark = pytest.mark.xdist_group("container-recipe")


def _sections(text: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        m = re.match(r"^%(\w+)", line)
        if m:
            current = m.group(1)
            out[current] = []
        elif current:
            out[current].append(line.strip())
    return {k: [x for x in v if x and not x.startswith("#")] for k, v in out.items()}


def _arguments() -> dict[str, str]:
    return dict(line.split("=", 1) for line in _sections(DEF.read_text())["arguments"])


def _substitute(line: str, args: dict[str, str]) -> str:
    return re.sub(r"\{\{\s*(\w+)\s*\}\}", lambda m: args[m.group(1)], line)


def _recipe():
    parser = SingularityParser(str(DEF))
    (recipe,) = parser.recipe.values()
    return recipe


def _commands() -> tuple[list[str], list[str]]:
    """(%post lines, %test lines) as spython parsed them (it writes %test to /tests.sh)."""
    post, test = [], []
    for line in _recipe().install:
        m = re.fullmatch(r'echo "(.*)" >> /tests\.sh', line)
        if m:
            test.append(m.group(1))
        elif line != "chmod u+x /tests.sh":
            post.append(line)
    return post, test


def test_recipe_parses_with_every_section():
    recipe = _recipe()
    raw = DEF.read_text()
    assert raw.startswith("Bootstrap: docker\nFrom: debian:{{ DEBIAN_TAG }}\n")
    args = _arguments()
    # Pinned: a Debian point release, never a moving tag.
    assert re.fullmatch(r"\d+\.\d+-slim", args["DEBIAN_TAG"]), args["DEBIAN_TAG"]
    assert args["OPAE"] == "0" and re.fullmatch(r"[\d.]+-\d+", args["OPAE_VERSION"])
    assert recipe.fromHeader.lower() == "debian:{{ debian_tag }}"
    assert recipe.cmd == 'exec /opt/spgen/venv/bin/spgen "$@"'
    labels = dict(x.split(" ", 1) for x in recipe.labels)
    assert labels["org.opencontainers.image.title"] == "spgen"
    assert "spgen.opae" in labels
    assert any("apptainer test spgen.sif" in c for c in recipe.comments)  # %help
    assert recipe.files == [". /opt/spgen/src"]
    assert any(e.startswith("PATH=/opt/spgen/venv/bin:") for e in recipe.environ)
    post, test = _commands()
    # spython and a plain section split agree on the commands the test runs.
    sections = _sections(raw)
    assert [x for x in post if not x.startswith("#")] == sections["post"]
    assert test == sections["test"]
    assert any("selfcheck.py" in t for t in test)
    # The OPAE variant: OPAE=1 builds the SDK; the runtime then finds libopae-c.
    assert any('"$SPGEN_OPAE" = 1' in p and "opae-sdk" in p for p in post)


_APT_PRESENT = {
    "python3": lambda: shutil.which("python3"),
    "python3-venv": lambda: subprocess.run(["python3", "-m", "venv", "--help"],
                                           capture_output=True, check=False).returncode == 0,
    "python3-dev": lambda: Path(sysconfig.get_paths()["include"], "Python.h").exists(),
    "g++": lambda: shutil.which("g++"),
    "make": lambda: shutil.which("make"),
    "cmake": lambda: shutil.which("cmake"),
    "git": lambda: shutil.which("git"),
    "ca-certificates": lambda: Path("/etc/ssl/certs").is_dir(),
    "liblz4-dev": lambda: Path("/usr/include/lz4.h").exists(),
    "nlohmann-json3-dev": lambda: Path("/usr/include/nlohmann/json.hpp").exists(),
}


def test_system_packages_of_post_are_present_here():
    post, _ = _commands()
    line = next(p for p in post if "apt-get install" in p and "python3-venv" in p)
    pkgs = line.split("--no-install-recommends", 1)[1].split(";")[0].split()
    assert set(pkgs) == set(_APT_PRESENT), "keep _APT_PRESENT in step with the recipe"
    missing = [p for p in pkgs if not _APT_PRESENT[p]()]
    assert not missing, f"the test machine lacks what %post installs: {missing}"


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """Run %post then %test in a temporary prefix; returns (prefix, post, test results)."""
    prefix = tmp_path_factory.mktemp("container") / "opt-spgen"
    (prefix / "src").mkdir(parents=True)
    assert stage_tree(ROOT, prefix / "src") > 50
    post, test = _commands()
    args = _arguments()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHON"))}
    # The interpreter the image has (Debian's python3), not this test's virtualenv.
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep)
                                  if not p.startswith(str(ROOT / ".venv")))
    env.update(SPGEN_PREFIX=str(prefix), SPGEN_SYSTEM_PACKAGES="0", SPGEN_JOBS="2",
               SPGEN_CACHE=str(prefix.parent / "cache"), HOME=str(prefix.parent))
    # %test runs with %environment sourced, as `apptainer test` does (not %post).
    environment = "".join(f"export {e.replace('/opt/spgen', str(prefix))}\n"
                          for e in _recipe().environ)
    results = {}
    for name, lines in (("post", post), ("test", test)):
        script = "\n".join(_substitute(x, args) for x in lines) + "\n"
        if name == "test":
            script = environment + script
        results[name] = subprocess.run(["/bin/sh", "-c", script], env=env, cwd=prefix.parent,
                                       capture_output=True, text=True, timeout=1200, check=False)
    return prefix, results


def test_post_installs_spgen_in_a_fresh_venv(installed):
    prefix, res = installed
    post = res["post"]
    assert post.returncode == 0, post.stdout[-3000:] + post.stderr[-3000:]
    assert "spgen 0.1.0" in post.stdout
    exe = prefix / "venv" / "bin" / "spgen"
    assert exe.exists()
    # The image's runscript: `spgen ARGS` from the venv, not this checkout.
    r = subprocess.run([str(exe), "container", "compare", "--help"], capture_output=True,
                       text=True, check=False)
    assert r.returncode == 0 and "B.json" in r.stdout
    site = subprocess.run([str(prefix / "venv" / "bin" / "python"), "-c",
                           "import spgen; print(spgen.__file__)"], capture_output=True, text=True, check=False)
    assert str(prefix / "venv") in site.stdout and str(ROOT) not in site.stdout


def test_self_check_compiles_and_emulates(installed):
    _, res = installed
    out = res["test"].stdout
    assert "[ ok ] compile a core: jacobi5" in out, out + res["test"].stderr[-2000:]
    assert "[ ok ] emulate: 4096 elements, bit-exact" in out, out


def test_whole_self_check_passes(installed):
    _, res = installed
    assert res["test"].returncode == 0, res["test"].stdout + res["test"].stderr[-2000:]
    assert "self-check passed" in res["test"].stdout
