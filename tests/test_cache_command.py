"""`spgen cache`: sizes per kind, pruning by age and by size, least recently used first,
never an entry in use, and its errors."""
from __future__ import annotations

import os
import time

import pytest
from spgen.cli import main
from spgen.commands import _cache


def _entry(root, kind, name, nbytes, age_days, lock_age_days=None):
    d = root / kind / name
    d.mkdir(parents=True)
    (d / "lib.so").write_bytes(b"x" * nbytes)
    t = time.time() - age_days * 86400
    os.utime(d, (t, t))
    if lock_age_days is not None:
        lock = root / kind / f"{name}.lock"
        lock.write_text("")
        tl = time.time() - lock_age_days * 86400
        os.utime(lock, (tl, tl))
    return d


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SPGEN_CACHE", str(tmp_path))
    _entry(tmp_path, "card", "old", 4000, 30)
    _entry(tmp_path, "card", "reused", 4000, 30, lock_age_days=0.5)   # built long ago, used today
    _entry(tmp_path, "rdma", "mid", 2000, 5)
    _entry(tmp_path, "rdma", "building", 9000, 0.001)                   # used minutes ago
    return tmp_path


def test_info_lists_kinds_and_sizes(cache, capsys):
    assert main(["cache"]) == 0
    out = capsys.readouterr().out
    assert str(cache) in out
    card = next(ln for ln in out.splitlines() if ln.startswith("card"))
    assert card.split()[1] == "2" and "7.8 KiB" in card
    assert "total" in out and "4" in out.splitlines()[-2].split()


def test_prune_by_age_keeps_what_was_used_lately(cache, capsys):
    assert main(["cache", "prune", "--older-than", "10", "--dry-run"]) == 0
    assert (cache / "card" / "old").exists()                 # a dry run removes nothing
    assert main(["cache", "prune", "--older-than", "10"]) == 0
    assert "removed 1 entries" in capsys.readouterr().out
    assert not (cache / "card" / "old").exists()
    assert (cache / "card" / "reused").exists() and (cache / "rdma" / "mid").exists()


def test_prune_to_a_size_removes_least_recently_used_first_but_never_a_live_entry(cache):
    gone = _cache.prune(max_bytes=1000, root=cache)
    # oldest use first: old (30 d), mid (5 d), reused (0.5 d); "building" is in use
    assert [e["path"].name for e in gone] == ["old", "mid", "reused"]
    assert (cache / "rdma" / "building").exists()
    assert not (cache / "card" / "reused.lock").exists()


@pytest.mark.parametrize("argv, message", [
    (["cache", "prune"], "needs --older-than"),
    (["cache", "prune", "--max-size", "12Q"], "expected a size"),
    (["cache", "prune", "--older-than", "-1"], "days >= 0"),
    (["cache", "--max-size", "1G"], "go with 'prune'"),
])
def test_bad_arguments_say_what_is_wrong_and_remove_nothing(cache, capsys, argv, message):
    assert main(argv) == 1
    assert message in capsys.readouterr().err
    assert len(_cache.entries(cache)) == 4


def test_sizes_with_units():
    assert _cache.parse_size("20G") == 20 << 30 and _cache.parse_size("1.5k") == 1536
    assert _cache.parse_size("500MiB") == 500 << 20 and _cache.parse_size("4096") == 4096
