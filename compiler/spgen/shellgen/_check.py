"""Checks of a generated project with the tools at hand: Verilator lint, JSON, Tcl run
against stand-ins of the Platform Designer and Quartus commands, file lists."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from .._diagnostics import SpgenError
from .._tools import cache_dir, content_hash, verilator_bin, verilator_env
from ._csr import load_csr_map
from ._project import MASTERS, WINDOWS, Project, afu_top_ports

__all__ = ["check_project", "lint_verilog"]

# Stand-ins for qsys-script and Quartus commands: they record what the scripts declare
# and report references to undeclared instances, interfaces, parameters or files.
_TCL_MOCK = r"""
set errors {}
set comp_ifaces [dict create]
set comp_params [dict create]
set ports {}
set instances [dict create]
set conns {}
proc err {msg} { global errors; lappend errors $msg }
proc package {args} {}
proc set_module_property {args} {}
proc add_fileset {args} {}
proc set_fileset_property {args} {}
proc add_fileset_file {name kind how path args} {
    global hwdir
    if {![file exists [file join $hwdir $path]]} { err "component: missing file $path" }
}
proc add_parameter {name type value} { global comp_params; dict set comp_params $name $value }
proc set_parameter_property {name args} {
    global comp_params
    if {![dict exists $comp_params $name]} { err "component: property of unknown parameter $name" }
}
proc add_interface {name type dir} { global comp_ifaces; dict set comp_ifaces $name $type }
proc set_interface_property {name args} {
    global comp_ifaces
    if {![dict exists $comp_ifaces $name]} { err "component: property of unknown interface $name" }
}
proc add_interface_port {iface port role dir width} {
    global comp_ifaces ports
    if {![dict exists $comp_ifaces $iface]} { err "component: port $port on unknown interface $iface" }
    lappend ports "$port $dir $width"
}
source [file join $hwdir afu_top_hw.tcl]

set sys_ifaces [dict create]
proc create_system {name} {}
proc set_project_property {args} {}
proc save_system {args} {}
proc add_instance {name type args} { global instances; dict set instances $name $type }
proc endpoint {ep} {
    global instances comp_ifaces
    set parts [split $ep .]
    if {[llength $parts] != 2} { err "system: bad endpoint $ep"; return }
    lassign $parts inst iface
    if {![dict exists $instances $inst]} { err "system: unknown instance $inst in $ep"; return }
    if {[dict get $instances $inst] eq "afu_top" && ![dict exists $comp_ifaces $iface]} {
        err "system: afu_top has no interface $iface"
    }
}
proc set_instance_parameter_value {inst name value} {
    global instances comp_params
    if {![dict exists $instances $inst]} { err "system: parameter of unknown instance $inst"; return }
    if {[dict get $instances $inst] eq "afu_top"} {
        if {![dict exists $comp_params $name]} { err "system: afu_top has no parameter $name" } \
        elseif {[dict get $comp_params $name] ne $value} { err "system: $name=$value but the component says [dict get $comp_params $name]" }
    }
}
proc add_connection {a b} { global conns; endpoint $a; endpoint $b; lappend conns "$a/$b" }
proc set_connection_parameter_value {conn name value} {
    global conns
    if {[lsearch -exact $conns $conn] < 0} { err "system: parameter of unknown connection $conn" }
}
proc add_interface {name type dir} { global sys_ifaces; dict set sys_ifaces $name $type }
proc set_interface_property {name prop value} {
    global sys_ifaces
    if {![dict exists $sys_ifaces $name]} { err "system: property of unknown interface $name" }
    if {$prop eq "EXPORT_OF"} { endpoint $value }
}
source [file join $hwdir afu_system.tcl]

proc set_global_assignment {flag kind value} {
    global hwdir
    if {$flag ne "-name"} { err "qsf: expected -name" }
    if {[string match *_FILE $kind] && $kind ne "QSYS_FILE" && ![file exists [file join $hwdir $value]]} {
        err "qsf: missing $value"
    }
}
source [file join $hwdir afu_files.qsf]

foreach p $ports { puts "PORT $p" }
foreach c $conns { puts "CONN $c" }
foreach e $errors { puts "ERR $e" }
"""


def lint_verilog(root: Path, files: list[str], params: dict[str, object], *,
                 relaxed: list[str] = (), top: str = "afu_top") -> None:
    """`verilator --lint-only -Wall` of `files` (relative to `root`); `relaxed` files get no
    lint/style warnings (generated cores are linted by their own back end).

    Verilator's lint runs its whole conversion but the output (a project with a large
    core takes half a minute; -O0 would halve that but reports circular logic that the
    optimised model does not have, as in the RDMA block), so a passing lint is
    remembered by the content of everything it read: the same project built again
    (the other core model, another folder) is not linted twice."""
    cmd = [str(verilator_bin()), "--lint-only", "-Wall", "--top-module", top, "-Irtl/shell"]
    config = ""
    if relaxed:
        vlt = root / "lint.vlt"
        config = "`verilator_config\n" + "".join(f'lint_off -file "*/{Path(f).name}"\n' for f in relaxed)
        vlt.write_text(config)
        cmd.append(str(vlt.resolve()))
    cmd += [f"-G{k}={v}" for k, v in params.items()] + files
    parts: list[str | bytes] = [repr(cmd[:5]), str(verilator_bin()), config, top, repr(sorted(params.items()))]
    for f in files:
        parts += [Path(f).name, (root / f).read_bytes()]
    for f in sorted((root / "rtl" / "shell").glob("*.vh")):
        parts += [f.name, f.read_bytes()]
    stamp = cache_dir("lint") / content_hash(*parts)
    if stamp.is_file():
        return
    proc = subprocess.run(cmd, cwd=root, env=verilator_env(), check=False, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SpgenError("Verilator lint of the AFU failed:\n" + (proc.stdout + proc.stderr)[-4000:])
    stamp.write_text("lint passed\n")


def check_project(p: Project) -> list[str]:
    """Run every check; return what was checked, raise SpgenError on the first failure."""
    done = []
    lint_verilog(p.root, p.rtl, p.params, relaxed=[p.core_file] if p.core_file else [], top=p.top)
    done.append(f"verilator --lint-only -Wall: {len(p.rtl)} files, {p.top} with "
                + " ".join(f"{k}={v}" for k, v in p.params.items()))
    if p.hw_rtl and p.hw_rtl != p.rtl:
        # the Quartus list, with a black box standing in for the vendor's FP DSP primitive
        from .. import oplib

        lint_verilog(p.root, [*p.hw_rtl, str(oplib.dsp_stub_file())], p.params,
                     relaxed=[p.core_file] if p.core_file else [], top=p.top)
        done.append(f"verilator --lint-only -Wall: the Quartus file list ({len(p.hw_rtl)} files, "
                    "FP DSP wrappers over a twentynm_fp_mac black box)")

    csr = load_csr_map()
    try:
        afu = json.loads((p.root / p.files["afu_json"]).read_text())
        uuid = afu["afu-image"]["accelerator-clusters"][0]["accelerator-type-uuid"]
        sp = afu["spgen"]
    except (OSError, ValueError, KeyError, IndexError) as e:
        raise SpgenError(f"afu.json: malformed ({e})") from None
    if uuid != str(csr.afu_id):
        raise SpgenError(f"afu.json: accelerator-type-uuid {uuid} is not the shell's AFU ID")
    if (sp["n-cores"], sp["in-record-words"], sp["out-record-words"], len(sp["regs"])) != (
            p.params["N_CORES"], p.params["RECORD_WORDS"], p.params["OUT_RECORD_WORDS"], p.params["N_REGS"]):
        raise SpgenError("afu.json: spgen section disagrees with the afu_top parameters")
    done.append("afu.json: AFU ID matches the CSR map, parameters match afu_top")

    tclsh = shutil.which("tclsh")
    if tclsh:
        script = f"set hwdir {{{p.root / 'hw'}}}\n" + _TCL_MOCK
        proc = subprocess.run([tclsh], input=script, check=False, capture_output=True, text=True)
        if proc.returncode != 0:
            raise SpgenError(f"Tcl of the project does not run: {proc.stderr.strip()[-2000:]}")
        lines = proc.stdout.splitlines()
        errors = [ln[4:] for ln in lines if ln.startswith("ERR ")]
        if errors:
            raise SpgenError("Platform Designer / Quartus Tcl: " + "; ".join(errors[:10]))
        ports = {ln.split()[1]: (ln.split()[2], int(ln.split()[3])) for ln in lines if ln.startswith("PORT ")}
        want = {n: ("Input" if d == "input" else "Output", w) for d, n, w in afu_top_ports(p.top, p.params)}
        if ports != want:
            missing = sorted(set(want) ^ set(ports)) or sorted(k for k in want if want[k] != ports[k])
            raise SpgenError(f"component Tcl ports disagree with afu_top.v: {missing[:8]}")
        conns = [ln[5:] for ln in lines if ln.startswith("CONN ")]
        for m in MASTERS:
            for inst, _, _ in WINDOWS:
                if f"afu.{m}/{inst}.s0" not in conns:
                    raise SpgenError(f"system Tcl: afu.{m} is not connected to {inst}")
        done.append(f"Tcl (tclsh with Platform Designer/Quartus stand-ins): {len(ports)} afu_top "
                    f"ports, {len(conns)} connections, files present")
    else:
        done.append("Tcl: not checked (no tclsh)")

    for key in ("afu_files", "opae_filelist"):
        base = p.root if key == "afu_files" else p.root / "hw"
        for ln in (p.root / p.files[key]).read_text().splitlines():
            if not ln or ln.startswith("+") or ":" in ln or ln == "afu.json":
                continue
            if not (base / ln).is_file():
                raise SpgenError(f"{p.files[key]}: {ln} does not exist")
    done.append("file lists: every file exists")
    return done
