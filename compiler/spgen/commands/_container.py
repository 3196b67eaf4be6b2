"""`spgen container build|check|run|compare`: the Singularity/Apptainer image and result comparison."""
from __future__ import annotations

import argparse
import glob
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from .._diagnostics import SpgenError
from .._paths import checkout_root
from ._container_native import build_image, build_prerequisites, exec_in_image, require_tools
from ._container_recipe import parse_recipe

__all__ = [
    "add_arguments",
    "bind_args",
    "compare_results",
    "find_runtime",
    "fpga_devices",
    "load_results",
    "run",
    "stage_tree",
]

_DEF = Path("containers") / "spgen.def"
# %arguments and --build-arg need Apptainer >= 1.2 or SingularityCE >= 4.0.
_MIN_VERSION = {"apptainer": (1, 2), "singularity": (4, 0)}
_INSTALL_HINT = ("install Apptainer >= 1.2 (Debian/Ubuntu: the `apptainer` package from "
                 "https://github.com/apptainer/apptainer/releases; docs: "
                 "https://apptainer.org/docs/admin/main/installation.html) or "
                 "SingularityCE >= 4.0, then run `spgen container build` again")
_DEVICE_GLOBS = ("/dev/intel-fpga-*", "/dev/dfl-*", "/dev/uio*")
_SKIP_DIRS = {".git", ".venv", "build", ".cache", "__pycache__", ".pytest_cache", ".helpers",
              "node_modules"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    b = sub.add_parser("build", help="build the image from this repository",
                       description="Build the image with apptainer or singularity from a clean "
                                   "copy of the repository (tracked and unignored files).")
    b.add_argument("-o", "--output", default="spgen.sif", help="image file (default spgen.sif)")
    b.add_argument("--opae", action="store_true",
                   help="variant with the OPAE SDK, to drive a real Intel PAC card")
    b.add_argument("--build-arg", dest="build_args", action="append", default=[],
                   metavar="NAME=VALUE", help="any %%arguments value, e.g. DEBIAN_TAG=12.8-slim")
    b.add_argument("--repo", default=None, help="repository root (default: the one of this spgen)")
    b.add_argument("--dry-run", action="store_true",
                   help="print the build command instead of running it")
    b.add_argument("--builder", choices=("auto", "apptainer", "builtin"), default="auto",
                   help="auto (default): apptainer/singularity when installed, else the "
                        "built-in one (debootstrap, chroot, mksquashfs, siftool; needs root)")
    b.add_argument("--mirror", default=None,
                   help="Debian mirror for the built-in builder (default: the one this "
                        "machine's apt uses)")
    b.add_argument("--jobs", type=int, default=None,
                   help="parallel jobs of the built-in builder's %%post and mksquashfs")
    b.add_argument("--json", default=None, metavar="FILE",
                   help="write the built-in builder's figures (size, step times) to FILE")
    c = sub.add_parser("check", help="say what building and running the image needs here",
                       description="Report the container runtime, the image and FPGA device "
                                   "nodes, and print the run command that binds them.")
    c.add_argument("--image", default="spgen.sif", help="image to look for (default spgen.sif)")
    r = sub.add_parser("run", help="run spgen in the image, binding this machine's FPGA devices",
                       description="Run `spgen ARGS` in the image with apptainer/singularity, "
                                   "binding every FPGA device node found here "
                                   "(/dev/intel-fpga-*, /dev/dfl-*).")
    r.add_argument("--image", default="spgen.sif", help="image (default spgen.sif)")
    r.add_argument("--dry-run", action="store_true", help="print the command instead")
    r.add_argument("spgen_args", nargs=argparse.REMAINDER, metavar="-- ARGS",
                   help="arguments for spgen inside the image")
    e = sub.add_parser("exec", help="run a command in the image",
                       description="Run CMD in the image: `apptainer exec IMAGE CMD`, or "
                                   "without Apptainer in a chroot of the unpacked image with "
                                   "/proc, /sys, /dev, /tmp, $HOME and the working folder "
                                   "bound (root only).")
    e.add_argument("image", metavar="IMAGE")
    e.add_argument("command", nargs=argparse.REMAINDER, metavar="-- CMD",
                   help="the command and its arguments")
    t = sub.add_parser("test", help="run the image's %%test",
                       description="Run the image's %%test section (`apptainer test IMAGE`, "
                                   "or the built-in chroot runner without Apptainer).")
    t.add_argument("image", metavar="IMAGE")
    m = sub.add_parser("compare", help="print per-record differences of two JSON result files",
                       description="Compare two benchmark result files (docs/containers.md "
                                   "'Result files'), e.g. bare metal A against container B: "
                                   "difference = (B - A) / A in percent.")
    m.add_argument("a", metavar="A.json")
    m.add_argument("b", metavar="B.json")
    m.add_argument("--key", default=None,
                   help="comma-separated key fields (default: the files' \"key\" list)")
    m.add_argument("--fields", default=None,
                   help="comma-separated numeric fields to compare (default: all)")
    m.add_argument("--tolerance", type=float, default=None, metavar="PCT",
                   help="exit 1 when any |difference| exceeds PCT percent")


def run(args: argparse.Namespace) -> int:
    try:
        return {"build": _build, "check": _check, "run": _run_image, "exec": _exec,
                "test": _test, "compare": _compare}[args.action](args)
    except BrokenPipeError:  # `spgen container compare ... | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


# ---- runtime discovery ------------------------------------------------------------------
def find_runtime() -> tuple[str | None, str]:
    """(path of apptainer or singularity, or None; what was found or is missing)."""
    problems = []
    for name in ("apptainer", "singularity"):
        path = shutil.which(name)
        if not path:
            continue
        try:
            text = subprocess.run([path, "--version"], capture_output=True, text=True,
                                  timeout=30, check=False).stdout
        except (OSError, subprocess.TimeoutExpired) as e:
            problems.append(f"{path} --version failed: {e}")
            continue
        m = re.search(r"(\d+)\.(\d+)", text)
        if not m:
            problems.append(f"{path}: cannot read a version from {text.strip()!r}")
            continue
        version = (int(m.group(1)), int(m.group(2)))
        if version < _MIN_VERSION[name]:
            want = ".".join(map(str, _MIN_VERSION[name]))
            problems.append(f"{path} is version {m.group(0)}; build arguments need {name} >= {want}")
            continue
        return path, f"{path} ({text.strip()})"
    if not problems:
        problems.append("neither `apptainer` nor `singularity` is on PATH")
    return None, "; ".join(problems)


def fpga_devices() -> list[str]:
    """FPGA device nodes of this machine (Intel FPGA/DFL drivers), sorted."""
    found: set[str] = set()
    for pattern in _DEVICE_GLOBS:
        found.update(p for p in glob.glob(pattern) if not p.startswith("/dev/uio") or
                     Path(f"/sys/class/uio/{Path(p).name}/name").exists())
    return sorted(found)


def bind_args(devices: list[str]) -> list[str]:
    out: list[str] = []
    for d in devices:
        out += ["--bind", d]
    return out


# ---- build ------------------------------------------------------------------------------
def _repo_root(given: str | None) -> Path:
    root = Path(given) if given else checkout_root()
    if root is None or not (root / _DEF).is_file():
        raise SpgenError(f"{root or 'this installed spgen'} has no {_DEF}: pass --repo with the "
                         "spgen repository root (an installed spgen carries no recipe)")
    return root


def stage_tree(root: Path, dest: Path) -> int:
    """Copy the repository's tracked and unignored files to ``dest``; return the file count.

    Without git (a source tarball), everything but caches, builds and virtual
    environments is copied.
    """
    files: list[str] | None = None
    if (root / ".git").exists() and shutil.which("git"):
        r = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "-co", "--exclude-standard"],
                           capture_output=True, check=False)
        if r.returncode == 0:
            files = [f for f in r.stdout.decode().split("\0") if f]
    if files is None:
        files = []
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if d not in _SKIP_DIRS]
            rel = Path(dirpath).relative_to(root)
            files += [str(rel / f) for f in filenames]
    count = 0
    for f in files:
        if Path(f).parts and Path(f).parts[0] in _SKIP_DIRS:
            continue
        src = root / f
        if not src.is_file():
            continue  # deleted in the working tree
        (dest / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest / f)
        count += 1
    return count


def _build(args: argparse.Namespace) -> int:
    root = _repo_root(args.repo)
    build_args = list(args.build_args)
    for item in build_args:
        if "=" not in item or not item.split("=", 1)[0].isidentifier():
            raise SpgenError(f"--build-arg expects NAME=VALUE, got {item!r}")
    if args.opae:
        build_args.append("OPAE=1")
    output = Path(args.output).resolve()
    tool, what = find_runtime()
    # An Apptainer too old for the recipe is reported, not bypassed: --builder builtin is.
    if args.builder == "builtin" or (args.builder == "auto" and not any(
            shutil.which(n) for n in _MIN_VERSION)):
        return _build_builtin(args, root, build_args, output)
    cmd = [tool or "apptainer", "build"]
    if os.geteuid() != 0:
        cmd.append("--fakeroot")  # unprivileged builds need the fakeroot user namespace
    for item in build_args:
        cmd += ["--build-arg", item]
    cmd += [str(output), str(_DEF)]
    if args.dry_run:
        print("(in a clean copy of the repository) " + " ".join(cmd))
        return 0
    if tool is None:
        print(f"spgen container build: cannot build: {what}.", file=sys.stderr)
        print(f"To fix: {_INSTALL_HINT}.", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="spgen-container-") as tmp:
        n = stage_tree(root, Path(tmp))
        print(f"staged {n} files of {root}; building {output} with {what}", flush=True)
        return subprocess.run(cmd, cwd=tmp, check=False).returncode


def _build_builtin(args: argparse.Namespace, root: Path, build_args: list[str],
                   output: Path) -> int:
    if args.dry_run:
        print(f"(in a clean copy of the repository, built-in builder) debootstrap the Debian "
              f"release of {_DEF}, %files, %post in chroot, /.singularity.d, mksquashfs, "
              f"siftool -> {output}")
        return 0
    build_prerequisites()
    with tempfile.TemporaryDirectory(prefix="spgen-container-") as tmp:
        n = stage_tree(root, Path(tmp))
        print(f"staged {n} files of {root}; building {output} with the built-in builder "
              "(no apptainer/singularity used)", flush=True)
        recipe = parse_recipe(Path(tmp) / _DEF, build_args)
        figures = build_image(recipe, Path(tmp), output, mirror=args.mirror, jobs=args.jobs)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1) + "\n")
    return 0


def _exec(args: argparse.Namespace) -> int:
    command = list(args.command)
    if command[:1] == ["--"]:
        command = command[1:]
    if not command:
        raise SpgenError("spgen container exec IMAGE -- CMD: no command given")
    tool, _ = find_runtime()
    if tool:
        return subprocess.run([tool, "exec", args.image, *command], check=False).returncode
    return exec_in_image(Path(args.image), command)


def _test(args: argparse.Namespace) -> int:
    tool, _ = find_runtime()
    if tool:
        return subprocess.run([tool, "test", args.image], check=False).returncode
    return exec_in_image(Path(args.image), [], action="test")


def _check(args: argparse.Namespace) -> int:
    tool, what = find_runtime()
    print(f"container runtime: {what if tool else 'MISSING: ' + what}")
    if not tool:
        print(f"  to have it: {_INSTALL_HINT} (the built-in builder below does without)")
    image = Path(args.image)
    print(f"image: {image} {'found' if image.is_file() else 'not built yet (spgen container build)'}")
    devices = fpga_devices()
    print(f"FPGA device nodes: {', '.join(devices) if devices else 'none (simulated card only)'}")
    if tool:
        run_cmd = [Path(tool).name, "run", *bind_args(devices), str(image)]
        print("run: " + " ".join(run_cmd) + " ARGS...")
        return 0
    try:
        build_prerequisites()
        require_tools("unsquashfs")
    except SpgenError as e:
        print(f"built-in builder (debootstrap, chroot, mksquashfs, siftool): unavailable: {e}")
        return 1
    print("built-in builder and runner: ready (spgen container build/exec/test/run)")
    print(f"run: spgen container run --image {image} -- ARGS...")
    return 0


def _run_image(args: argparse.Namespace) -> int:
    rest = list(args.spgen_args)
    if rest[:1] == ["--"]:
        rest = rest[1:]
    tool, _ = find_runtime()
    cmd = [tool or "apptainer", "run", *bind_args(fpga_devices()), args.image, *rest]
    if args.dry_run:
        print(" ".join(cmd))
        return 0
    if tool is None:  # the built-in runner: the host /dev is bound, so are the card's nodes
        return exec_in_image(Path(args.image), rest, action="run")
    if not Path(args.image).is_file():
        raise SpgenError(f"image {args.image} not found (build it with `spgen container build`)")
    return subprocess.run(cmd, check=False).returncode


# ---- compare ----------------------------------------------------------------------------
def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def load_results(path: str | Path) -> tuple[list[str] | None, list[dict]]:
    """(key fields or None, records) of a result file; see docs/containers.md."""
    try:
        data = json.loads(Path(path).read_text())
    except OSError as e:
        raise SpgenError(f"{path}: cannot read: {e.strerror or e}") from None
    except json.JSONDecodeError as e:
        raise SpgenError(f"{path}:{e.lineno}:{e.colno}: not JSON: {e.msg}") from None
    key = None
    if isinstance(data, dict):
        key = data.get("key")
        if key is not None and (not isinstance(key, list) or
                                not all(isinstance(k, str) for k in key)):
            raise SpgenError(f"{path}: \"key\" must be a list of field names")
        data = data.get("records")
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise SpgenError(f"{path}: expected a list of records (objects), or an object with "
                         "\"records\": [...] (docs/containers.md, 'Result files')")
    return key, data


def _default_key(records: list[dict]) -> list[str]:
    fields: list[str] = []
    for r in records:
        for k, v in r.items():
            if not _is_number(v) and k not in fields:
                fields.append(k)
    if "size" in {k for r in records for k in r} and "size" not in fields:
        fields.append("size")
    return fields


def compare_results(a: list[dict], b: list[dict], key: list[str]) -> dict:
    """Per-key, per-field differences (B - A) / A in percent, and what is only on one side."""
    def index(records: list[dict], side: str) -> dict[tuple, dict]:
        out: dict[tuple, dict] = {}
        for r in records:
            missing = [k for k in key if k not in r]
            if missing:
                raise SpgenError(f"record {r} in {side} lacks key field(s) {', '.join(missing)}")
            k = tuple(r[f] for f in key)
            if k in out:
                raise SpgenError(f"{side} has two records with key "
                                 + ", ".join(f"{f}={v}" for f, v in zip(key, k)))
            out[k] = r
        return out

    ia, ib = index(a, "A"), index(b, "B")
    rows = []
    for k in [k for k in ia if k in ib]:
        ra, rb = ia[k], ib[k]
        for field in ra:
            if field in key or not _is_number(ra[field]) or not _is_number(rb.get(field)):
                continue
            va, vb = float(ra[field]), float(rb[field])
            if va == vb:
                pct = 0.0
            elif va == 0 or not math.isfinite(va) or not math.isfinite(vb):
                pct = math.nan
            else:
                pct = (vb - va) / abs(va) * 100.0
            rows.append({"key": dict(zip(key, k)), "field": field, "a": va, "b": vb, "pct": pct})
    return {"rows": rows, "only_a": [dict(zip(key, k)) for k in ia if k not in ib],
            "only_b": [dict(zip(key, k)) for k in ib if k not in ia]}


def _fmt(v: float) -> str:
    return f"{v:.6g}"


def _compare(args: argparse.Namespace) -> int:
    key_a, a = load_results(args.a)
    key_b, b = load_results(args.b)
    if args.key:
        key = [k.strip() for k in args.key.split(",") if k.strip()]
    elif key_a or key_b:
        if key_a and key_b and key_a != key_b:
            raise SpgenError(f"the files name different keys: {key_a} and {key_b}; pass --key")
        key = key_a or key_b
    else:
        key = _default_key(a + b)
    if not key:
        raise SpgenError("no key fields: name them with \"key\" in the files or --key")
    res = compare_results(a, b, key)
    rows = res["rows"]
    if args.fields:
        wanted = [f.strip() for f in args.fields.split(",") if f.strip()]
        unknown = sorted(set(wanted) - {r["field"] for r in rows})
        if unknown:
            raise SpgenError(f"--fields: no numeric field {', '.join(unknown)} in both files")
        rows = [r for r in rows if r["field"] in wanted]
    header = ["key", "field", "A", "B", "diff %"]
    table = [[", ".join(f"{f}={v}" for f, v in r["key"].items()), r["field"], _fmt(r["a"]),
              _fmt(r["b"]), "n/a" if math.isnan(r["pct"]) else f"{r['pct']:+.2f}"] for r in rows]
    widths = [max(len(x) for x in col) for col in zip(header, *table)]
    print(f"A = {args.a}\nB = {args.b}\ndifference = (B - A) / |A|")
    for line in [header, ["-" * w for w in widths], *table]:
        print("  ".join(x.ljust(w) if i < 2 else x.rjust(w) for i, (x, w) in
                        enumerate(zip(line, widths))))
    for side, items in (("A", res["only_a"]), ("B", res["only_b"])):
        for k in items:
            print(f"only in {side}: " + ", ".join(f"{f}={v}" for f, v in k.items()))
    worst: dict[str, float] = {}
    for r in rows:
        if not math.isnan(r["pct"]):
            worst[r["field"]] = max(worst.get(r["field"], 0.0), abs(r["pct"]))
    for field, pct in worst.items():
        print(f"largest |difference| of {field}: {pct:.2f} %")
    if not rows:
        print("no common records with numeric fields to compare")
    if args.tolerance is not None:
        bad = [r for r in rows if math.isnan(r["pct"]) or abs(r["pct"]) > args.tolerance]
        if bad or res["only_a"] or res["only_b"]:
            print(f"{len(bad)} difference(s) above {args.tolerance} % "
                  f"or records on one side only", file=sys.stderr)
            return 1
    return 0
