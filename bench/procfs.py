"""What /proc says about a process tree: the process and all its descendants (Ray's raylet and
workers included), and their memory summed over the tree or of its largest process."""

from __future__ import annotations

from pathlib import Path


def process_tree(root_pid: int) -> set[int]:
    """``root_pid`` and all its descendants, from the parent ids in /proc/*/stat."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(stat.parent.name))
    tree, stack = set(), [root_pid]
    while stack:
        pid = stack.pop()
        if pid not in tree:
            tree.add(pid)
            stack.extend(children.get(pid, []))
    return tree


def _tree_sum_kb(root_pid: int, file: str, field: str) -> int:
    """Sum over the tree of ``field`` (in kB) of /proc/PID/``file``; a process gone meanwhile counts 0."""
    return sum(_field_kb(pid, file, field) for pid in process_tree(root_pid))


def _field_kb(pid: int, file: str, field: str) -> int:
    """``field`` (in kB) of /proc/``pid``/``file``; 0 for a process gone meanwhile."""
    try:
        text = Path(f"/proc/{pid}/{file}").read_text()
    except OSError:
        return 0
    return next((int(line.split()[1]) for line in text.splitlines() if line.startswith(field)), 0)


def tree_and_largest_pss_kb(root_pid: int) -> tuple[int, int]:
    """(sum of PSS over ``root_pid``'s tree, PSS of its largest process), in kB, from one read of
    each process: under `appliance extract` the largest is the Ray worker that holds the OCR
    engine and the model (the issue's "peak memory per worker")."""
    sizes = [_field_kb(pid, "smaps_rollup", "Pss:") for pid in process_tree(root_pid)]
    return sum(sizes), max(sizes, default=0)


def tree_pss_kb(root_pid: int) -> int:
    """Sum of PSS (kB) over ``root_pid`` and all its descendants."""
    return tree_and_largest_pss_kb(root_pid)[0]


def tree_rss_mb(root_pid: int) -> float:
    """Resident MB of ``root_pid`` and all its descendants."""
    return _tree_sum_kb(root_pid, "status", "VmRSS:") / 1024
