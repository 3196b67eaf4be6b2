"""Loads the system's libstdc++ into the process, globally, before any wheel's own copy.

numpy and llvmlite wheels link a static libstdc++ of their own. Its template statics (the
`locale::id` of every facet) are GNU "unique" symbols, which the dynamic linker shares across
the whole process even between libraries loaded RTLD_LOCAL: the first copy loaded wins. When
such a wheel is imported before the runtime's C++ libraries (libafushell, the simulated card),
their libstdc++ takes the facet ids of the wheel's copy, whose facet numbering differs where
the two were built by different GCC versions, and the first `stream << double` jumps into the
wrong facet (seen as a segmentation fault in `fpgaOpen` with numpy 2.5 and llvmlite 0.50 on
Ubuntu 24.04). Loading the system libstdc++ first makes its symbols the ones every copy binds to.
Importing numpy before spgen can still defeat this; import spgen first on such machines.
"""
from __future__ import annotations

import ctypes


def load_system_libstdcxx() -> None:
    try:
        ctypes.CDLL("libstdc++.so.6", mode=ctypes.RTLD_GLOBAL)
    except OSError:  # no shared libstdc++ (a static build): nothing to share symbols with
        pass
