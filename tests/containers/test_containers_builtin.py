"""The built-in image builder's parts that run in seconds: recipe reading, the host's
mirror, /.singularity.d, SIF objects and unpacking, and its error messages.
The whole build is tests/containers/test_containers_image.py."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from spgen._diagnostics import SpgenError
from spgen.cli import main
from spgen.commands import _container_native as N
from spgen.commands._container_recipe import apt_packages, debian_base, parse_recipe

ROOT = Path(__file__).resolve().parents[2]
DEF = ROOT / "containers" / "spgen.def"


def test_recipe_arguments_are_substituted_everywhere():
    r = parse_recipe(DEF)
    assert r.arguments["DEBIAN_TAG"] == "12.8-slim"
    assert r.header == {"bootstrap": "docker", "from": "debian:12.8-slim"}
    assert r.labels()["org.opencontainers.image.base.name"] == "debian:12.8-slim"
    assert r.labels()["spgen.opae"] == "0"
    assert "{{" not in r.text
    assert r.files() == [(".", "/opt/spgen/src")]
    assert r.sections["runscript"].strip() == 'exec /opt/spgen/venv/bin/spgen "$@"'
    assert "selfcheck.py" in r.sections["test"]
    o = parse_recipe(DEF, ["OPAE=1", "DEBIAN_TAG=12.9-slim"])
    assert o.labels()["spgen.opae"] == "1" and o.header["from"] == "debian:12.9-slim"
    assert 'SPGEN_OPAE="${SPGEN_OPAE:-1}"' in o.sections["post"]
    base = debian_base(r)
    assert (base.suite, base.version, base.variant) == ("bookworm", "12.8", "minbase")
    # The base holds what the unconditional apt-get line installs, not the OPAE extras.
    pkgs = apt_packages(r)
    assert "python3-venv" in pkgs and "cmake" in pkgs and "uuid-dev" not in pkgs
    assert not any(p.startswith("-") for p in pkgs)


@pytest.mark.parametrize("text, args, message", [
    ("Bootstrap: docker\nFrom: debian:12\n%setup\n    touch x\n", [],
     ":3:1: section %setup is not supported"),
    ("Bootstrap: docker\nFrom: ubuntu:24.04\n%post\n    true\n", [], "Debian images only"),
    ("Bootstrap: docker\nFrom: debian:{{ TAG }}\n%arguments\n    TAG=12\n", ["NOPE=1"],
     "--build-arg NOPE: the recipe has no such %arguments entry (TAG)"),
    ("Bootstrap: docker\nFrom: debian:{{ TAG }}\n%post\n    true\n", [],
     "{{ TAG }} has no %arguments value"),
    ("Bootstrap docker\n", [], ":1:1: expected a `Key: value` header line"),
])
def test_recipe_errors_name_the_place(tmp_path, text, args, message):
    path = tmp_path / "x.def"
    path.write_text(text)
    with pytest.raises(SpgenError) as e:
        debian_base(parse_recipe(path, args))
    assert message in str(e.value)


def test_debootstrap_recipes_and_other_debian_tags(tmp_path):
    path = tmp_path / "d.def"
    path.write_text("Bootstrap: debootstrap\nOSVersion: trixie\nMirrorURL: http://m/debian\n"
                    "Include: curl\n%post\n    apt-get install -y --no-install-recommends jq\n")
    r = parse_recipe(path)
    assert debian_base(r).suite == "trixie" and apt_packages(r) == ["jq"]
    path.write_text("Bootstrap: docker\nFrom: docker.io/library/debian:11\n")
    assert debian_base(parse_recipe(path)).suite == "bullseye"


def test_host_mirror_from_deb822_and_one_line_sources(tmp_path):
    d = tmp_path / "sources.list.d"
    d.mkdir(parents=True)
    (d / "vendor.sources").write_text(
        "Types: deb\nURIs: https://deb.nodesource.com/node_20.x\nSuites: nodistro\n"
        "Components: main\n")
    (d / "debian.sources").write_text(
        "Types: deb\n# a comment\nURIs: http://mirror.example/debian\nSuites: bookworm "
        "bookworm-updates\nComponents: main\n\nTypes: deb\n"
        "URIs: http://mirror.example/debian-security/\nSuites: bookworm-security\n"
        "Components: main\n")
    assert N.host_mirrors(tmp_path) == ("http://mirror.example/debian",
                                        "http://mirror.example/debian-security")
    (tmp_path / "sources.list").write_text(
        "# old style\ndeb [arch=amd64] http://ftp.example/debian/ bookworm main\n"
        "deb-src http://src.example/debian bookworm main\n")
    assert N.host_mirrors(tmp_path)[0] == "http://ftp.example/debian"
    assert N.host_mirrors(tmp_path / "none") == ("http://deb.debian.org/debian",
                                                 "http://deb.debian.org/debian-security")


def test_metadata_is_where_apptainer_keeps_it(tmp_path):
    recipe = parse_recipe(DEF)
    labels = N.write_metadata(tmp_path, recipe, {"spgen.debian_version": "12.15"})
    sd = tmp_path / ".singularity.d"
    assert (sd / "Singularity").read_text() == recipe.text
    run = (sd / "runscript").read_text()
    assert run.startswith("#!/bin/sh\n") and 'exec /opt/spgen/venv/bin/spgen "$@"' in run
    assert os.access(sd / "runscript", os.X_OK) and os.access(sd / "test", os.X_OK)
    assert "selfcheck.py" in (sd / "test").read_text()
    assert "apptainer test spgen.sif" in (sd / "runscript.help").read_text()
    env = (sd / "env" / "90-environment.sh").read_text()
    assert "export SPGEN_ROOT=/opt/spgen/src" in env
    stored = json.loads((sd / "labels.json").read_text())
    assert stored == labels
    assert stored["org.opencontainers.image.title"] == "spgen"
    assert stored["org.label-schema.usage.singularity.deffile.from"] == "debian:12.8-slim"
    assert stored["spgen.debian_version"] == "12.15"
    for action in ("exec", "run", "test", "shell"):
        text = (sd / "actions" / action).read_text()
        assert ". \"$script\"" in text and os.access(sd / "actions" / action, os.X_OK)
    assert os.readlink(tmp_path / "singularity") == ".singularity.d/runscript"
    assert os.readlink(tmp_path / ".test") == ".singularity.d/actions/test"
    # The action scripts are valid sh.
    for action in ("exec", "run", "test"):
        assert subprocess.run(["sh", "-n", str(sd / "actions" / action)],
                              check=False).returncode == 0


needs_sif_tools = pytest.mark.skipif(
    not all(shutil.which(t) for t in ("siftool", "mksquashfs", "unsquashfs")),
    reason="siftool and squashfs-tools come from scripts/ensure-system-packages.sh")


@needs_sif_tools
def test_sif_objects_and_unpacking(tmp_path, monkeypatch):
    """A small SIF made as the builder makes one; list and unpack it back."""
    monkeypatch.setenv("SPGEN_CACHE", str(tmp_path / "cache"))
    tree = tmp_path / "tree"
    (tree / "etc").mkdir(parents=True)
    (tree / "etc" / "hello").write_text("hello from the image\n")
    squash = tmp_path / "r.squashfs"
    subprocess.run(["mksquashfs", str(tree), str(squash), "-noappend", "-no-progress"],
                   check=True, stdout=subprocess.DEVNULL)
    sif = tmp_path / "x.sif"
    (tmp_path / "def").write_text("Bootstrap: docker\n")
    subprocess.run(["siftool", "new", str(sif)], check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["siftool", "add", str(sif), str(tmp_path / "def"), "--datatype", "1"],
                   check=True)
    subprocess.run(["siftool", "add", str(sif), str(squash), "--datatype", "4", "--parttype",
                    "2", "--partfs", "1", "--partarch", "2"], check=True)
    objs = N.sif_objects(sif)
    assert [o["type"] for o in objs] == ["Def.FILE", "FS (Squashfs/*System/amd64)"]
    assert objs[1]["start"] % 4096 == 0 and objs[1]["end"] > objs[1]["start"]
    root = N.unpack_image(sif)
    assert (root / "etc" / "hello").read_text() == "hello from the image\n"
    assert N.unpack_image(sif) == root  # once per image file
    with pytest.raises(SpgenError, match="not a SIF file"):
        N.sif_objects(tmp_path / "def")


def test_errors_for_a_missing_tool_and_a_normal_user(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(SpgenError) as e:
        N.require_tools("debootstrap", "mksquashfs", "siftool")
    assert "missing tool(s) debootstrap, mksquashfs, siftool" in str(e.value)
    assert "apt-get install debootstrap siftool squashfs-tools" in str(e.value)
    # No apptainer either: `build` takes the built-in builder and says what it lacks.
    assert main(["container", "build", "--repo", str(ROOT), "-o", str(tmp_path / "x.sif")]) == 1
    assert "missing tool(s) debootstrap" in capsys.readouterr().err
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert main(["container", "build", "--builder", "builtin", "--repo", str(ROOT)]) == 1
    err = capsys.readouterr().err
    assert "building the image without Apptainer needs root" in err and "sudo" in err
    assert main(["container", "test", str(tmp_path / "x.sif")]) == 1
    assert "needs root" in capsys.readouterr().err
    assert main(["container", "exec", str(tmp_path / "x.sif")]) == 1
    assert "no command given" in capsys.readouterr().err
    assert main(["container", "build", "--builder", "builtin", "--dry-run"]) == 0
    assert "debootstrap" in capsys.readouterr().out


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting /proc needs root")
def test_half_built_root_is_unmounted_before_it_is_deleted(tmp_path):
    # A debootstrap killed half-way leaves /proc mounted in its target; deleting that
    # target must not reach into the host's /proc.
    proc = tmp_path / "root" / "proc"
    proc.mkdir(parents=True)
    subprocess.run(["mount", "-t", "proc", "proc", str(proc)], check=True)
    try:
        N._unmount_under(tmp_path / "root")
        assert str(proc) not in Path("/proc/self/mounts").read_text()
        assert not (proc / "self").exists()
    finally:
        subprocess.run(["umount", "-l", str(proc)], check=False, capture_output=True)
