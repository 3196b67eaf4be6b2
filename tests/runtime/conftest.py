"""Shared fixtures: the runtime build and the loop-back card, built once and cached."""
from __future__ import annotations

import os

import pytest
from spgen import runtime
from spgen._afu_build import link_card


@pytest.fixture(scope="session")
def runtime_build():
    return runtime.build_runtime()


@pytest.fixture(scope="session")
def loopback_lib():
    return runtime.loopback_card()


@pytest.fixture(scope="session")
def card_env(loopback_lib):
    env = dict(os.environ)
    env["SPGEN_LOOPBACK_CARD"] = str(loopback_lib)
    env["SPGEN_LINK_CARD"] = str(link_card())  # the RDMA cluster tests of afushell_tests
    return env


@pytest.fixture
def card(loopback_lib):
    with runtime.open("loopback") as c:
        yield c
