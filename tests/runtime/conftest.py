"""Shared fixtures: the runtime build and the loop-back card, built once and cached."""
from __future__ import annotations

import os

import pytest
from spgen import runtime


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
    return env


@pytest.fixture
def card(loopback_lib):
    with runtime.open("loopback") as c:
        yield c
