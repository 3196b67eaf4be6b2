"""The RDMA router's cocotb test (cocotb_rdma_router.py): random traffic over every input and
VC against a model of its links, then one flow at a beat a cycle."""
from __future__ import annotations

import pytest
from shell_tb import SHELL_DIR, run_cocotb


@pytest.mark.xdist_group("shell_modules")
@pytest.mark.parametrize(("p", "lanes", "locals_"), [(2, 4, 2), (2, 1, 1)])
def test_rdma_router_cocotb(tmp_path, monkeypatch, p, lanes, locals_):
    for k, v in {"P": p, "LANES": lanes, "LOCALS": locals_}.items():
        monkeypatch.setenv(k, str(v))
    params = {"P": p, "LANES": lanes, "LOCALS": locals_}
    assert run_cocotb(f"rdma_router{p}_{lanes}_{locals_}", "rdma_router", [SHELL_DIR / "rdma" / "rdma_router.v"],
                      "cocotb_rdma_router", parameters=params, tmp_path=tmp_path) == (1, 0)
