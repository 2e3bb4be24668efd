"""Memory of a process tree as the benchmarks read it from /proc (bench/procfs.py)."""

from __future__ import annotations

import os
import subprocess
import sys

from bench.procfs import process_tree, tree_and_largest_pss_kb, tree_pss_kb


def test_the_largest_process_of_a_tree_is_counted_apart_from_the_tree():
    """A child holding 64 MB: the tree's PSS counts it and this process, the largest process's
    PSS is the child's alone (the accuracy bench's "peak memory of the worker")."""
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; x = bytearray(64 << 20); x[::4096] = b'1' * len(x[::4096]); "
            "print(flush=True); time.sleep(30)",
        ],
        stdout=subprocess.PIPE,
    )
    try:
        child.stdout.readline()  # the child has touched its memory
        assert child.pid in process_tree(os.getpid())
        tree, largest = tree_and_largest_pss_kb(os.getpid())
        assert largest >= 64 * 1024
        assert tree_pss_kb(os.getpid()) > largest  # the one-figure reader
        assert tree > largest
        assert tree_and_largest_pss_kb(child.pid)[1] >= 64 * 1024  # a tree of one: the child alone
    finally:
        child.kill()
        child.wait()
