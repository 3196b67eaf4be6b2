"""Reading an Apptainer/Singularity definition file the way `apptainer build` reads it.

Header lines (`Bootstrap: docker`, `From: debian:12.8-slim`) come first, then sections
that start with `%name` at the beginning of a line. `{{ NAME }}` is replaced everywhere
by its `%arguments` default or a `--build-arg`, before the sections are read, as
Apptainer >= 1.2 does.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from .._diagnostics import SpgenError

__all__ = ["DebianBase", "Recipe", "apt_packages", "debian_base", "parse_recipe"]

# Sections this builder carries out; others (%setup, %startscript, %app*) are refused
# rather than silently dropped.
_SECTIONS = {"arguments", "labels", "help", "files", "environment", "post", "runscript", "test"}
_CODENAMES = {"10": "buster", "11": "bullseye", "12": "bookworm", "13": "trixie"}


@dataclass
class Recipe:
    path: Path
    text: str                                   # the definition with arguments substituted
    header: dict[str, str]
    sections: dict[str, str] = field(default_factory=dict)
    arguments: dict[str, str] = field(default_factory=dict)

    def lines(self, name: str) -> list[str]:
        """Non-empty, non-comment lines of a section, stripped."""
        return [ln.strip() for ln in self.sections.get(name, "").splitlines()
                if ln.strip() and not ln.strip().startswith("#")]

    def labels(self) -> dict[str, str]:
        out = {}
        for ln in self.lines("labels"):
            key, _, value = ln.partition(" ")
            out[key] = value.strip()
        return out

    def files(self) -> list[tuple[str, str]]:
        """(source in the build context, destination in the image) pairs of %files."""
        out = []
        for ln in self.lines("files"):
            parts = ln.split()
            if len(parts) > 2:
                raise SpgenError(f"{self.path}: %files line {ln!r}: expected `SOURCE [DEST]`")
            out.append((parts[0], parts[-1]))
        return out


def _split(text: str, path: Path) -> tuple[dict[str, str], dict[str, str]]:
    header: dict[str, str] = {}
    sections: dict[str, list[str]] = {}
    current: str | None = None
    for lineno, line in enumerate(text.splitlines(), 1):
        m = re.match(r"^%(\w+)", line)
        if m:
            current = m.group(1).lower()
            if current not in _SECTIONS:
                raise SpgenError(f"{path}:{lineno}:1: section %{current} is not supported by "
                                 "the built-in builder (install Apptainer for it)")
            sections[current] = []
        elif current is not None:
            sections[current].append(line)
        elif line.strip() and not line.lstrip().startswith("#"):
            key, sep, value = line.partition(":")
            if not sep:
                raise SpgenError(f"{path}:{lineno}:1: expected a `Key: value` header line")
            header[key.strip().lower()] = value.strip()
    return header, {k: "\n".join(v).strip("\n") + "\n" for k, v in sections.items()}


def parse_recipe(path: Path, build_args: list[str] | None = None) -> Recipe:
    """The recipe at ``path`` with ``NAME=VALUE`` build arguments applied."""
    raw = path.read_text()
    _, raw_sections = _split(raw, path)
    arguments = {}
    for ln in raw_sections.get("arguments", "").splitlines():
        ln = ln.strip()
        if ln and not ln.startswith("#"):
            key, _, value = ln.partition("=")
            arguments[key.strip()] = value.strip()
    for item in build_args or []:
        key, sep, value = item.partition("=")
        if not sep or not key.isidentifier():
            raise SpgenError(f"--build-arg expects NAME=VALUE, got {item!r}")
        if key not in arguments:
            raise SpgenError(f"--build-arg {key}: the recipe has no such %arguments entry "
                             f"({', '.join(arguments) or 'none'})")
        arguments[key] = value

    def subst(m: re.Match) -> str:
        if m.group(1) not in arguments:
            raise SpgenError(f"{path}: {{{{ {m.group(1)} }}}} has no %arguments value")
        return arguments[m.group(1)]

    text = re.sub(r"\{\{\s*(\w+)\s*\}\}", subst, raw)
    header, sections = _split(text, path)
    return Recipe(path=path, text=text, header=header, sections=sections, arguments=arguments)


@dataclass(frozen=True)
class DebianBase:
    suite: str          # codename, e.g. bookworm
    version: str        # what the recipe names, e.g. 12.8
    variant: str        # debootstrap variant: minbase for the -slim images


def debian_base(recipe: Recipe) -> DebianBase:
    """The Debian release a `docker://debian:TAG` or `debootstrap` recipe starts from."""
    bootstrap = recipe.header.get("bootstrap", "").lower()
    if bootstrap == "debootstrap":
        suite = recipe.header.get("osversion", "")
        if not suite:
            raise SpgenError(f"{recipe.path}: Bootstrap: debootstrap needs OSVersion:")
        return DebianBase(suite=suite, version=suite, variant="minbase")
    source = recipe.header.get("from", "")
    m = re.fullmatch(r"(?:docker\.io/)?(?:library/)?debian:(\d+)(?:\.(\d+))?(-slim)?", source)
    if bootstrap != "docker" or not m or m.group(1) not in _CODENAMES:
        raise SpgenError(f"{recipe.path}: the built-in builder makes Debian images only "
                         f"(Bootstrap: docker, From: debian:<{'|'.join(_CODENAMES)}>[.N][-slim], "
                         f"or Bootstrap: debootstrap); this recipe has "
                         f"Bootstrap: {bootstrap or '?'}, From: {source or '?'}")
    version = m.group(1) + (f".{m.group(2)}" if m.group(2) else "")
    # minbase is what Debian's Docker images are made from (-slim drops docs and locales).
    return DebianBase(suite=_CODENAMES[m.group(1)], version=version, variant="minbase")


def apt_packages(recipe: Recipe) -> list[str]:
    """Packages of the unconditional `apt-get install` in %post (pre-installed in the base).

    Only the first install command counts: later ones are optional variants (OPAE=1) that
    %post installs itself.
    """
    m = re.search(r"apt-get install ([^;&|\n]*)", recipe.sections.get("post", ""))
    if not m:
        return []
    return [w for w in m.group(1).split() if not w.startswith("-")]
