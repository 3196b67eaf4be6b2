"""Building and running a Singularity image with Debian's tools, where Apptainer is absent.

build: debootstrap the Debian release the recipe pins (cached by content hash), copy
`%files`, run `%post` in the root file system with chroot, store the metadata in
/.singularity.d as Apptainer does, squash it (mksquashfs) and write a SIF (siftool).
exec/test: unpack the image's squashfs once (unsquashfs, cached per image file) and
chroot into it with /proc, /sys, /dev, /tmp, $HOME and the working folder bound, in a
private mount namespace (unshare) so that nothing stays mounted when the command ends.
Everything here needs root, as chroot and mount do.
"""
from __future__ import annotations

import datetime
import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

from .._diagnostics import SpgenError
from .._tools import cache_dir, content_hash, locked
from ._container_recipe import Recipe, apt_packages, debian_base

__all__ = ["build_image", "build_prerequisites", "exec_in_image", "host_mirrors", "require_tools",
           "sif_objects", "unpack_image", "write_metadata"]

# Debian package of each tool (scripts/ensure-system-packages.sh installs them).
TOOLS = {"debootstrap": "debootstrap", "mksquashfs": "squashfs-tools",
         "unsquashfs": "squashfs-tools", "siftool": "siftool", "chroot": "coreutils",
         "unshare": "util-linux", "mount": "mount"}
_SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# Host settings a build needs to reach the package archives and PyPI (proxies, a site
# mirror); they are used while %post runs and are not stored in the image.
_NETWORK_ENV = ("http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY",
                "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_TRUSTED_HOST", "PIP_DEFAULT_TIMEOUT")
_HOST_CA = Path("/etc/ssl/certs/ca-certificates.crt")
_BUILD_CA = "/.build-host-ca.crt"   # where the host's CA bundle is bound during %post
_BUILD_APT_CONF = "etc/apt/apt.conf.d/99build-host"
# Host variables not passed into the image: its own PATH and libraries come from
# /.singularity.d/env, and a host virtual environment means nothing inside.
_DROP_ENV = re.compile(r"^(PATH|LD_\w+|PYTHON\w*|VIRTUAL_ENV\w*|PIP_\w+|CONDA_\w+|PS1)$")
ARCH = {"x86_64": ("amd64", 2), "aarch64": ("arm64", 4)}


# ---- tools and privileges ---------------------------------------------------------------
def require_tools(*names: str) -> dict[str, str]:
    """Paths of the named tools; one error listing every missing one and its package."""
    found = {n: shutil.which(n) for n in names}
    missing = [n for n, p in found.items() if not p]
    if missing:
        pkgs = sorted({TOOLS[n] for n in missing})
        raise SpgenError(f"missing tool(s) {', '.join(missing)}: install the Debian package(s) "
                         f"{' '.join(pkgs)} (`apt-get install {' '.join(pkgs)}`, or "
                         "`sh scripts/ensure-system-packages.sh` in the repository), "
                         "or install Apptainer")
    return {n: str(p) for n, p in found.items()}


def require_root(what: str) -> None:
    if os.geteuid() != 0:
        raise SpgenError(f"{what} without Apptainer needs root (chroot and mount): run it with "
                         "sudo, or install Apptainer, which builds with --fakeroot")


def _step(n: int, total: int, text: str) -> float:
    print(f"[{n}/{total}] {text}", flush=True)
    return time.monotonic()


def _done(t0: float) -> None:
    print(f"      done in {time.monotonic() - t0:.0f} s", flush=True)


def _run(cmd: list[str], what: str, **kw) -> None:
    """Run a build step, its output going to the terminal; a failure names the step."""
    r = subprocess.run(cmd, check=False, **kw)
    if r.returncode != 0:
        raise SpgenError(f"{what} failed (exit status {r.returncode}): {shlex.join(cmd[:6])}"
                         f"{' ...' if len(cmd) > 6 else ''}")


def build_prerequisites() -> dict[str, str]:
    """Paths of the build's tools, after checking that this is root; clear errors if not."""
    require_root("building the image")
    return require_tools("debootstrap", "mksquashfs", "siftool", "chroot", "unshare", "mount")


# ---- the host's Debian mirror -----------------------------------------------------------
def host_mirrors(etc_apt: Path = Path("/etc/apt")) -> tuple[str, str]:
    """(main archive, security archive) URIs that this machine's apt uses.

    Read from deb822 `*.sources` and one-line `sources.list` files; Debian's own
    addresses when none is configured.
    """
    main = security = None
    files = [etc_apt / "sources.list"] + sorted((etc_apt / "sources.list.d").glob("*.list")) + \
        sorted((etc_apt / "sources.list.d").glob("*.sources"))
    for f in files:
        if not f.is_file():
            continue
        for uris, suites in _sources_entries(f):
            for uri in uris:
                if not re.search(r"/debian(-security)?/?$", uri):
                    continue  # another vendor's repository
                if any(s.endswith("-security") or "/updates" in s for s in suites):
                    security = security or uri.rstrip("/")
                else:
                    main = main or uri.rstrip("/")
    return (main or "http://deb.debian.org/debian",
            security or "http://deb.debian.org/debian-security")


def _sources_entries(path: Path) -> Iterator[tuple[list[str], list[str]]]:
    text = path.read_text(errors="replace")
    if path.suffix == ".sources":
        for stanza in re.split(r"\n\s*\n", text):
            fields: dict[str, str] = {}
            for line in stanza.splitlines():
                if line.startswith("#") or ":" not in line or line[:1].isspace():
                    continue
                key, _, value = line.partition(":")
                fields[key.strip().lower()] = value.strip()
            if "deb" in fields.get("types", "").split() and \
                    fields.get("enabled", "yes").lower() != "no":
                yield fields.get("uris", "").split(), fields.get("suites", "").split()
        return
    for line in text.splitlines():
        words = re.sub(r"\[[^]]*\]", "", line.split("#", 1)[0]).split()
        if len(words) >= 3 and words[0] == "deb":
            yield [words[1]], [words[2]]


# ---- the debootstrap base ----------------------------------------------------------------
def _base_rootfs(recipe: Recipe, mirror: str, security: str, debootstrap: str) -> Path:
    """A cached Debian root file system with the recipe's system packages installed."""
    base = debian_base(recipe)
    packages = sorted(set(apt_packages(recipe) + recipe.header.get("include", "").split()))
    key = content_hash(base.suite, base.variant, mirror, security, " ".join(packages))
    folder = cache_dir("container") / f"debian-{base.suite}-{key}"
    root = folder / "root"
    folder.mkdir(parents=True, exist_ok=True)
    with locked(folder / "lock"):
        if (folder / "done").is_file():
            print(f"      cached: {root}", flush=True)
            return root
        _unmount_under(root)    # a debootstrap killed by an earlier run may have left /proc there
        shutil.rmtree(root, ignore_errors=True)
        # debootstrap mounts /proc and /sys in the target; in a private mount namespace those
        # mounts go with it, even when it is killed half-way.
        cmd = ["unshare", "--mount", "--propagation", "private", "--", debootstrap,
               f"--variant={base.variant}"]
        if packages:
            cmd.append("--include=" + ",".join(packages))
        _run(cmd + [base.suite, str(root), mirror], "debootstrap")
        # The archives a debian image's apt knows, on this machine's mirror; no .debs kept.
        (root / "etc/apt/sources.list").unlink(missing_ok=True)
        (root / "etc/apt/sources.list.d/debian.sources").write_text(
            f"Types: deb\nURIs: {mirror}\nSuites: {base.suite} {base.suite}-updates\n"
            "Components: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n\n"
            f"Types: deb\nURIs: {security}\nSuites: {base.suite}-security\n"
            "Components: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n")
        for deb in (root / "var/cache/apt/archives").glob("*.deb"):
            deb.unlink()
        info = {"suite": base.suite, "recipe_version": base.version, "mirror": mirror,
                "packages": packages,
                "debian_version": (root / "etc/debian_version").read_text().strip()}
        (folder / "base.json").write_text(json.dumps(info, indent=1) + "\n")
        (folder / "done").write_text("")
    return root


def _unmount_under(root: Path) -> None:
    """Unmount whatever is mounted inside ``root`` (deepest first), so that deleting a
    half-built root file system never reaches into the host's /proc, /sys or /dev."""
    prefix = str(root.resolve()) + "/"
    try:
        lines = Path("/proc/self/mounts").read_text().splitlines()
    except OSError:
        return
    points = [ln.split()[1].replace("\\040", " ") for ln in lines if len(ln.split()) > 1]
    for point in sorted((m for m in points if m.startswith(prefix)), key=len, reverse=True):
        subprocess.run(["umount", "-l", point], check=False, capture_output=True)


# ---- chroot with bind mounts --------------------------------------------------------------
def _chroot_cmd(root: Path, argv: list[str], env: Mapping[str, str],
                binds: list[tuple[str, str]], cwd: str = "/") -> list[str]:
    """A command that runs ``argv`` in ``root`` with ``binds`` (host, image path) mounted.

    The mounts are made in a private mount namespace (unshare), so they vanish when the
    command ends, however it ends.
    """
    lines = ['set -e', 'R="$1"; shift']
    for src, dst in binds:
        target = f'"$R"{shlex.quote(dst)}'
        make = f"mkdir -p {target}" if Path(src).is_dir() else \
            f"mkdir -p \"$(dirname {target})\"; [ -e {target} ] || : > {target}"
        lines.append(f"{make}; mount --rbind {shlex.quote(src)} {target}")
    env_args = " ".join(shlex.quote(f"{k}={v}") for k, v in env.items())
    lines.append(f'exec chroot "$R" /usr/bin/env -i {env_args} /bin/sh -c '
                 f'\'cd "$0" && exec "$@"\' {shlex.quote(cwd)} "$@"')
    return ["unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c",
            "\n".join(lines), "sh", str(root), *argv]


def _host_apt_settings() -> str:
    """The host's apt network settings (proxies, archive date checks) for a build's apt."""
    try:
        dump = subprocess.run(["apt-config", "dump"], capture_output=True, text=True,
                              check=False).stdout
    except OSError:
        return ""
    keep = re.compile(r"^Acquire::(\w+::Proxy|Check-Valid-Until|Check-Date|https?::Proxy::\S+) ")
    return "".join(line + "\n" for line in dump.splitlines() if keep.match(line))


# ---- /.singularity.d ------------------------------------------------------------------------
_ACTION = """#!/bin/sh

for script in /.singularity.d/env/*.sh; do
    if [ -f "$script" ]; then
        . "$script"
    fi
done

{tail}
"""
_ACTION_TAILS = {
    "exec": 'exec "$@"',
    "run": 'if test -x /.singularity.d/runscript; then\n    exec /.singularity.d/runscript "$@"\n'
           'fi\necho "No runscript found in the container, executing /bin/sh"\nexec /bin/sh "$@"',
    "test": 'if test -x /.singularity.d/test; then\n    exec /.singularity.d/test "$@"\nfi\n'
            'echo "No test found in the container, exiting"\nexit 0',
    "shell": 'exec /bin/sh "$@"',
    "start": 'if test -x /.singularity.d/startscript; then\n'
             '    exec /.singularity.d/startscript "$@"\nfi',
}
_ENV_BASE = {
    "01-base.sh": "#!/bin/sh\n# \n",
    "90-environment.sh": "#!/bin/sh\n# Custom environment shell code should follow\n\n{env}",
    "99-base.sh": '#!/bin/sh\n# \nif [ -z "$LD_LIBRARY_PATH" ]; then\n'
                  '    LD_LIBRARY_PATH="/.singularity.d/libs"\nelse\n'
                  '    LD_LIBRARY_PATH="$LD_LIBRARY_PATH:/.singularity.d/libs"\nfi\n'
                  'PS1="Apptainer> "\nexport LD_LIBRARY_PATH PS1\n',
}


def write_metadata(root: Path, recipe: Recipe, labels_extra: Mapping[str, str]) -> dict:
    """Write /.singularity.d (definition, labels, runscript, test, help, environment,
    action scripts) and the top-level links, as Apptainer lays them out; return the labels."""
    sd = root / ".singularity.d"
    for sub in ("env", "actions", "libs"):
        (sd / sub).mkdir(parents=True, exist_ok=True)
    (sd / "Singularity").write_text(recipe.text)

    def script(name: str, body: str | None, mode: int = 0o755) -> None:
        if body is None:
            return
        (sd / name).write_text("#!/bin/sh\n\n" + body)
        (sd / name).chmod(mode)

    script("runscript", recipe.sections.get("runscript",
                                            'echo "There is no runscript defined."\n'))
    script("test", recipe.sections.get("test"))
    if "help" in recipe.sections:
        (sd / "runscript.help").write_text(recipe.sections["help"])
    for name, text in _ENV_BASE.items():
        path = sd / "env" / name
        path.write_text(text.format(env=recipe.sections.get("environment", "")))
        path.chmod(0o755)
    for name, tail in _ACTION_TAILS.items():
        path = sd / "actions" / name
        path.write_text(_ACTION.format(tail=tail))
        path.chmod(0o755)
    labels = {
        "org.label-schema.build-arch": ARCH.get(platform.machine(), (platform.machine(), 0))[0],
        "org.label-schema.build-date": datetime.datetime.now(datetime.UTC)
        .strftime("%A_%-d_%B_%Y_%-H:%-M:%-S_UTC"),
        "org.label-schema.schema-version": "1.0",
        "org.label-schema.usage.singularity.deffile.bootstrap": recipe.header.get("bootstrap", ""),
        "org.label-schema.usage.singularity.deffile.from": recipe.header.get("from", ""),
        **({"org.label-schema.usage": "/.singularity.d/runscript.help",
            "org.label-schema.usage.singularity.runscript.help": "/.singularity.d/runscript.help"}
           if "help" in recipe.sections else {}),
        **labels_extra,
        **recipe.labels(),
    }
    (sd / "labels.json").write_text(json.dumps(labels, indent=1) + "\n")
    links = {"singularity": ".singularity.d/runscript",
             "environment": ".singularity.d/env/90-environment.sh",
             ".exec": ".singularity.d/actions/exec", ".run": ".singularity.d/actions/run",
             ".shell": ".singularity.d/actions/shell", ".test": ".singularity.d/actions/test"}
    for name, target in links.items():
        link = root / name
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(target)
    return labels


# ---- build -------------------------------------------------------------------------------
def _copy_files(recipe: Recipe, context: Path, root: Path) -> int:
    """%files: each SOURCE of the build context to DEST in the image (cp -a semantics)."""
    n = 0
    for src, dst in recipe.files():
        source = (context / src).resolve()
        if not source.exists():
            raise SpgenError(f"{recipe.path}: %files source {src} not found in {context}")
        target = root / dst.lstrip("/")
        if source.is_dir():
            shutil.copytree(source, target, symlinks=True, dirs_exist_ok=True)
            n += sum(1 for _ in target.rglob("*"))
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
            n += 1
    return n


def build_image(recipe: Recipe, context: Path, output: Path, *, mirror: str | None = None,
                workdir: Path | None = None, jobs: int | None = None) -> dict:
    """Build ``output`` (a SIF file) from ``recipe``; ``context`` holds the %files sources.
    Returns what was built (timings, sizes, labels) for the caller to report."""
    tools = build_prerequisites()
    arch, sif_arch = ARCH.get(platform.machine(), (None, 0))
    if not arch:
        raise SpgenError(f"the built-in builder supports x86_64 and aarch64, not {platform.machine()}")
    host_main, host_security = host_mirrors()
    mirror = (mirror or host_main).rstrip("/")
    base = debian_base(recipe)
    times: dict[str, float] = {}
    total = 6
    t_all = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="spgen-sif-", dir=workdir) as tmp:
        root = Path(tmp) / "root"
        t0 = _step(1, total, f"Debian {base.version} ({base.suite}, {base.variant}) from "
                             f"{mirror} with debootstrap")
        base_root = _base_rootfs(recipe, mirror, host_security, tools["debootstrap"])
        _run(["cp", "-a", str(base_root), str(root)], "copying the base root file system")
        debian_version = (root / "etc/debian_version").read_text().strip()
        if base.version != base.suite and debian_version != base.version and \
                not debian_version.startswith(base.version + "."):
            print(f"      note: the recipe pins Debian {base.version}; the mirror serves "
                  f"{debian_version}, which is what the image gets", flush=True)
        times["base_s"] = time.monotonic() - t0
        _done(t0)

        t0 = _step(2, total, "%files")
        n = _copy_files(recipe, context, root)
        print(f"      {n} files and folders copied", flush=True)
        times["files_s"] = time.monotonic() - t0

        t0 = _step(3, total, "%post in the image (chroot)")
        _run_post(recipe, root, jobs)
        times["post_s"] = time.monotonic() - t0
        _done(t0)

        t0 = _step(4, total, "labels, runscript, test, help, environment -> /.singularity.d")
        labels = write_metadata(root, recipe, {"spgen.builder": "spgen container build "
                                               "(debootstrap, chroot, mksquashfs, siftool)",
                                               "spgen.debian_version": debian_version})

        t0 = _step(5, total, "squashfs (mksquashfs)")
        squash = Path(tmp) / "rootfs.squashfs"
        cmd = [tools["mksquashfs"], str(root), str(squash), "-noappend", "-comp", "gzip"]
        if jobs:
            cmd += ["-processors", str(jobs)]
        if not sys.stdout.isatty():
            cmd.append("-no-progress")
        _run(cmd, "mksquashfs", stdout=None if sys.stdout.isatty() else subprocess.DEVNULL)
        times["squashfs_s"] = time.monotonic() - t0
        _done(t0)

        t0 = _step(6, total, f"SIF file {output} (siftool)")
        deffile = Path(tmp) / "Singularity"
        deffile.write_text(recipe.text)
        labels_file = Path(tmp) / "labels.json"
        labels_file.write_text(json.dumps(labels, indent=1) + "\n")
        part = Path(tmp) / "image.sif"
        sif = tools["siftool"]
        _run([sif, "new", str(part)], "siftool new", stdout=subprocess.DEVNULL)
        # Object names without the temporary folder; not Apptainer's inspect-metadata
        # name, so `apptainer inspect` reads /.singularity.d as for older images.
        for path, args in ((deffile, ["--datatype", "1"]), (labels_file, ["--datatype", "6"]),
                           (squash, ["--datatype", "4", "--parttype", "2", "--partfs", "1",
                                     "--partarch", str(sif_arch)])):
            _run([sif, "add", str(part), str(path), *args, "--groupid", "1",
                  "--filename", path.name], f"siftool add ({path.name})")
        output.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(part), output)
        times["sif_s"] = time.monotonic() - t0
    times["total_s"] = time.monotonic() - t_all
    size = output.stat().st_size
    print(f"built {output}: {size / 2**20:.0f} MiB in {times['total_s']:.0f} s "
          f"(Debian {debian_version})", flush=True)
    return {"image": str(output), "size_bytes": size, "debian_version": debian_version,
            "mirror": mirror, **{k: round(v, 1) for k, v in times.items()}}


def _run_post(recipe: Recipe, root: Path, jobs: int | None) -> None:
    script = recipe.sections.get("post", "")
    (root / ".post.sh").write_text(script)
    apt_conf = root / _BUILD_APT_CONF
    apt_conf.write_text(_host_apt_settings())
    # Apptainer binds the host's name resolution into the build as well.
    binds = [("/proc", "/proc"), ("/sys", "/sys"), ("/dev", "/dev"),
             ("/etc/resolv.conf", "/etc/resolv.conf"), ("/etc/hosts", "/etc/hosts")]
    env = {"PATH": _SYSTEM_PATH, "HOME": "/root", "LANG": "C", "TERM": "dumb",
           "APPTAINER_ROOTFS": "/", "SINGULARITY_ROOTFS": "/",
           "APPTAINER_ENVIRONMENT": "/.singularity.d/env/91-environment.sh",
           "SINGULARITY_ENVIRONMENT": "/.singularity.d/env/91-environment.sh"}
    if jobs:
        env["SPGEN_JOBS"] = str(jobs)
    env.update({k: os.environ[k] for k in _NETWORK_ENV if k in os.environ})
    if _HOST_CA.is_file():  # a site's own CA (an intercepting proxy) for pip and Python
        binds.append((str(_HOST_CA), _BUILD_CA))
        env.update(PIP_CERT=_BUILD_CA, SSL_CERT_FILE=_BUILD_CA, REQUESTS_CA_BUNDLE=_BUILD_CA)
    try:
        _run(_chroot_cmd(root, ["/bin/sh", "-e", "-x", "/.post.sh"], env, binds), "%post")
    finally:
        for leftover in (root / ".post.sh", apt_conf, root / _BUILD_CA.lstrip("/")):
            leftover.unlink(missing_ok=True)


# ---- run an image -------------------------------------------------------------------------
def sif_objects(image: Path) -> list[dict]:
    """The data objects of a SIF file as `siftool list` shows them."""
    sif = require_tools("siftool")["siftool"]
    r = subprocess.run([sif, "list", str(image)], capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise SpgenError(f"{image}: not a SIF file ({(r.stderr or r.stdout).strip()})")
    out = []
    for line in r.stdout.splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) == 5 and cells[0].isdigit():
            start, _, end = cells[3].partition("-")
            out.append({"id": int(cells[0]), "group": cells[1], "link": cells[2],
                        "start": int(start), "end": int(end), "type": cells[4]})
    return out


def unpack_image(image: Path) -> Path:
    """The image's root file system, unpacked once per image file (size and time)."""
    tools = require_tools("siftool", "unsquashfs")
    image = image.resolve()
    if not image.is_file():
        raise SpgenError(f"image {image} not found (build it with `spgen container build`)")
    st = image.stat()
    stamp = f"{st.st_size} {st.st_mtime_ns}"
    folder = cache_dir("container") / f"unpacked-{content_hash(str(image))}"
    root = folder / "root"
    with locked(folder.with_suffix(".lock")):
        if (folder / "stamp").is_file() and (folder / "stamp").read_text() == stamp:
            return root
        parts = [o for o in sif_objects(image) if o["type"].startswith("FS (Squashfs/")]
        primary = [o for o in parts if "*System" in o["type"]] or parts
        if not primary:
            raise SpgenError(f"{image}: no squashfs root file system in the SIF file")
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        print(f"unpacking {image} to {root} (once per image file)", file=sys.stderr, flush=True)
        _run([tools["unsquashfs"], "-no-progress", "-quiet", "-o", str(primary[0]["start"]),
              "-d", str(root), str(image)], "unsquashfs", stdout=subprocess.DEVNULL)
        (folder / "stamp").write_text(stamp)
    return root


def exec_in_image(image: Path, argv: list[str], action: str = "exec") -> int:
    """Run ``argv`` through the image's /.singularity.d/actions/ACTION, as `apptainer
    exec/run/test` do, with the host's environment (less PATH and library paths)."""
    require_root(f"`spgen container {action}`")
    require_tools("chroot", "unshare", "mount")
    root = unpack_image(image)
    cwd = os.getcwd()
    binds = [("/proc", "/proc"), ("/sys", "/sys"), ("/dev", "/dev"), ("/tmp", "/tmp"),
             ("/etc/resolv.conf", "/etc/resolv.conf"), ("/etc/hosts", "/etc/hosts")]
    home = os.environ.get("HOME", "")
    for folder in (home, cwd):
        if folder and Path(folder).is_dir() and folder != "/" and \
                not any(folder == d or folder.startswith(d.rstrip("/") + "/") for _, d in binds):
            binds.append((folder, folder))
    env = {k: v for k, v in os.environ.items() if not _DROP_ENV.match(k)}
    env.update(PATH=_SYSTEM_PATH, APPTAINER_CONTAINER=str(image.resolve()),
               SINGULARITY_CONTAINER=str(image.resolve()), APPTAINER_NAME=image.name,
               SINGULARITY_NAME=image.name)
    cmd = _chroot_cmd(root, [f"/.singularity.d/actions/{action}", *argv], env, binds, cwd)
    return subprocess.run(cmd, check=False).returncode
