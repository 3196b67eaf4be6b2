#!/bin/sh
# Installs the Debian packages the build needs when they are missing (CI starts from a
# clean machine): CMake and g++ for the runtime and Verilated models, GoogleTest for the
# C++ tests, a JRE for the ANTLR tool that regenerates the parser, LZ4 for FST traces,
# debootstrap, squashfs-tools and siftool for Singularity images, a RISC-V cross compiler
# for the firmware of benchmarks/sort_plan_cpu.py.
set -eu
missing=""
command -v cmake >/dev/null 2>&1 || missing="$missing cmake"
command -v g++ >/dev/null 2>&1 || missing="$missing g++"
command -v make >/dev/null 2>&1 || missing="$missing make"
command -v java >/dev/null 2>&1 || missing="$missing default-jre-headless"
[ -f /usr/include/gtest/gtest.h ] || missing="$missing libgtest-dev"
# Verilator FST traces (spgen sim --trace) compress with LZ4.
[ -f /usr/include/lz4.h ] || missing="$missing liblz4-dev"
# Cluster files are read in C++ (runtime/rdma/cluster_file.cpp) with nlohmann/json.
[ -f /usr/include/nlohmann/json.hpp ] || missing="$missing nlohmann-json3-dev"
# The multi-process RDMA simulation runs over MPI.
command -v mpicxx >/dev/null 2>&1 || missing="$missing libopenmpi-dev openmpi-bin"
# Singularity images without Apptainer (spgen container build/exec/test): a Debian root
# file system, squashfs and the SIF file.
command -v debootstrap >/dev/null 2>&1 || missing="$missing debootstrap"
command -v mksquashfs >/dev/null 2>&1 || missing="$missing squashfs-tools"
command -v siftool >/dev/null 2>&1 || missing="$missing siftool"
# Native Yosys with ABC maps the RTL onto Arria 10 ALMs (spgen compile --resources, docs/fit.md).
command -v yosys >/dev/null 2>&1 || missing="$missing yosys"
# The VS Code extension's script is syntax-checked with Node.js (tests/lsp).
command -v node >/dev/null 2>&1 || missing="$missing nodejs"
# The sort's plan runs on a RISC-V processor beside the host in benchmarks/sort_plan_cpu.py.
command -v riscv64-unknown-elf-g++ >/dev/null 2>&1 || missing="$missing gcc-riscv64-unknown-elf"
[ -z "$missing" ] && exit 0
echo "installing Debian packages:$missing"
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
if ! command -v apt-get >/dev/null 2>&1; then
    echo "error: apt-get not found; install these packages by hand:$missing" >&2
    exit 1
fi
$SUDO apt-get update -q
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q $missing
