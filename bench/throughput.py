"""Throughput benchmark: N concurrent clients upload a mixed set of real documents (text-layer
PDFs, scans, e-invoices from ../shared/datasets) through the HTTP API and poll until each is
ready, against appliances this script starts with the default (real) models, one per layout.

    scripts/bench-throughput [--clients 16] [--docs 24] [--runs one-in-flight,single-2,staged,lone]
                             [--datasets ../shared/datasets] [--out bench/results/throughput.md]

Runs (each a fresh ``appliance serve`` in a temporary data dir; ``--runs`` picks and orders them):

- ``one-in-flight``: the spec's defaults, one worker, one document in flight (pool.mode single,
  pool.workers 1, ocr.concurrency 1): the baseline of every ratio;
- ``one-1t``: one whole-document worker with half the cores' threads (one on 2 cores): the
  baseline of the pool's scaling, ``single-2`` / ``one-1t``;
- ``single-2``: two whole-document workers (half the cores' threads each for OCR and the model);
- ``staged``: CPU workers plus one OCR stage batching pages across jobs and one LLM stage
  (pool.mode staged). On a host where nvidia-smi answers, with the stages on the GPU
  (llm.gpu_layers -1, ocr.device cuda when onnxruntime has its CUDA provider);
- ``lone``: the staged layout with one client uploading one document at a time (scans only), to
  show what the batching window costs a document that has no one to batch with.

Clients poll every second (the lone client every 50 ms, to resolve the window's cost): polling
16 clients ten times a second cost a third of a core of this 2-core host in a first version.
Reported per run: invoices per second (documents / time from the first upload to the last
ready), upload-to-ready p50/p95, mean seconds per pipeline stage and OCR batch sizes (from the
appliance's /metrics), CPU utilisation (/proc/stat), GPU utilisation and memory (nvidia-smi,
when present), peak resident memory of the appliance's process tree, how many documents got
the same data as in the first run, and each run's accuracy against the ground truth
(../shared/bench/score.py, on the documents that run read). Writes markdown to ``--out`` naming the hardware.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import aiohttp

from bench import datasets as shared
from bench.procfs import tree_rss_mb
from bench.server import ServerProcess
from bench.stats import percentile
from bench.tenants import create_tenant

ROOT = Path(__file__).resolve().parents[1]

RUNS = ("one-in-flight", "one-1t", "single-2", "staged", "lone")


def gpu_present() -> bool:
    nvidia_smi = shutil.which("nvidia-smi")
    return bool(nvidia_smi) and subprocess.run([nvidia_smi, "-L"], capture_output=True).returncode == 0


def cuda_ocr_available() -> bool:
    import onnxruntime

    return "CUDAExecutionProvider" in onnxruntime.get_available_providers()


def layouts(clients: int, gpu: bool) -> dict[str, dict]:
    """config.toml sections per run. CPU: sized for this 2-core class of host; GPU: the stages there."""
    cores = os.cpu_count() or 2
    one = {"pool": {"mode": "single", "workers": 1}, "ocr": {"concurrency": 1}}
    half = max(1, cores // 2)
    one_small = {
        "pool": {"mode": "single", "workers": 1},
        "ocr": {"concurrency": 1, "threads": half},
        "llm": {"n_threads": half},
    }
    two = {
        "pool": {"mode": "single", "workers": 2},
        "ocr": {"concurrency": 2, "threads": max(1, cores // 2)},
        "llm": {"n_threads": max(1, cores // 2)},
    }
    if gpu:
        ocr_cuda = cuda_ocr_available()
        staged = {
            "pool": {"mode": "staged", "workers": max(clients, 16)},
            "ocr": {
                "concurrency": 2,
                "batch_max_pages": 16,
                "num_gpus": 0.5,
                # OCR left on the CPU (no CUDA provider): its two batches in flight share the cores
                "threads": 4 if ocr_cuda else max(4, cores // 2),
                "device": "cuda" if ocr_cuda else "cpu",
            },
            "llm": {"gpu_layers": -1, "parallel": 8, "num_gpus": 0.5, "n_threads": 2},
        }
    else:
        staged = {
            "pool": {"mode": "staged", "workers": 4},
            "ocr": {"concurrency": 1, "batch_max_pages": 16, "threads": half},
            "llm": {"parallel": 2, "n_threads": half},
        }
    return {"one-in-flight": one, "one-1t": one_small, "single-2": two, "staged": staged, "lone": staged}


def mixed_set(datasets: Path, count: int) -> list[Path]:
    """``count`` documents in turn from three kinds: text-layer PDFs (invoice2data), scans (sroie),
    e-invoices (zugferd-corpus); each kind in file-name order, repeated when it runs out."""
    kinds = []
    for source, suffix in (("invoice2data", ".pdf"), ("sroie", ".jpg"), ("zugferd-corpus", ".pdf")):
        manifest = json.loads((datasets / source / "manifest.json").read_text())
        files = sorted(datasets / source / entry["file"] for entry in manifest if entry["file"].endswith(suffix))
        if files:
            kinds.append(files)
    if not kinds:
        raise SystemExit(f"no documents under {datasets}")
    return [kinds[n % len(kinds)][(n // len(kinds)) % len(kinds[n % len(kinds)])] for n in range(count)]


class Sampler(threading.Thread):
    """CPU busy share (/proc/stat), GPU utilisation and memory (nvidia-smi), and the RSS of a
    process tree, every ``every`` seconds until ``stop()``."""

    def __init__(self, pid: int, every: float = 1.0) -> None:
        super().__init__(daemon=True)
        self.pid, self.every = pid, every
        self.cpu: list[float] = []
        self.gpu: list[float] = []
        self.gpu_mb: list[float] = []
        self.rss_mb: list[float] = []
        self._halt = threading.Event()
        self._smi = shutil.which("nvidia-smi") if gpu_present() else None

    @staticmethod
    def _cpu_times() -> tuple[int, int]:
        fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        idle = fields[3] + fields[4]
        return sum(fields) - idle, sum(fields)

    def run(self) -> None:
        busy0, total0 = self._cpu_times()
        while not self._halt.wait(self.every):
            busy1, total1 = self._cpu_times()
            if total1 > total0:
                self.cpu.append(100.0 * (busy1 - busy0) / (total1 - total0))
            busy0, total0 = busy1, total1
            self.rss_mb.append(tree_rss_mb(self.pid))
            if self._smi:
                out = subprocess.run(
                    [self._smi, "--query-gpu=utilization.gpu,memory.used", "--format=csv,noheader,nounits"],
                    capture_output=True,
                    text=True,
                ).stdout.split("\n")[0]
                try:
                    util, mem = (float(v) for v in out.split(","))
                    self.gpu.append(util)
                    self.gpu_mb.append(mem)
                except ValueError:
                    pass

    def stop(self) -> None:
        self._halt.set()
        self.join(5)


async def client(session, base: str, queue: asyncio.Queue, results: dict, poll: float) -> None:
    while True:
        try:
            index, path = queue.get_nowait()
        except asyncio.QueueEmpty:
            return
        started = time.monotonic()
        while True:  # 503 (queue full or not ready): back off and retry, as a client honouring Retry-After
            form = aiohttp.FormData()
            form.add_field("file", path.read_bytes(), filename=path.name, content_type="application/octet-stream")
            async with session.post(f"{base}/api/v1/invoices/upload", data=form) as response:
                body = await response.json()
                if response.status == 202:
                    invoice_id = body["invoice"]["id"]
                    break
                if response.status != 503:
                    raise RuntimeError(f"upload of {path.name}: {response.status} {body}")
            await asyncio.sleep(1.0)
        while True:
            async with session.get(f"{base}/api/v1/invoices/{invoice_id}") as response:
                body = await response.json()
            if body.get("ready"):
                break
            await asyncio.sleep(poll)
        results[index] = {
            "file": path.name,
            "path": path,
            "body": body,
            "seconds": time.monotonic() - started,
            "ended": time.monotonic(),
            "started": started,
            "status": body["processingStatus"],
            "data": body.get("data"),
        }


def scrape(metrics_url: str) -> dict[tuple[str, tuple], float]:
    import urllib.request

    from prometheus_client.parser import text_string_to_metric_families

    text = urllib.request.urlopen(metrics_url, timeout=30).read().decode()
    samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def accuracy(results: dict[int, dict], datasets: Path, folder: Path) -> dict | None:
    """Score one run's answers with ../shared/bench/score.py against the ground truth of the
    documents it read (a truth folder holding only those): header and key-field accuracy, line
    F1, and the share and precision of ``completed``. None when the scorer is not there."""
    scorer = shared.scorer(datasets)
    if not scorer.is_file():
        return None
    truth, pred = folder / "truth", folder / "pred"
    by_source: dict[str, list[Path]] = {}
    for result in results.values():
        path = Path(result["path"])
        by_source.setdefault(path.parent.name, []).append(path)
        (pred / path.parent.name).mkdir(parents=True, exist_ok=True)
        (pred / path.parent.name / f"{path.stem}.json").write_text(json.dumps(result["body"]))
    for source, paths in by_source.items():
        names = {p.name for p in paths}
        manifest = json.loads((datasets / source / "manifest.json").read_text())
        (truth / source).mkdir(parents=True, exist_ok=True)
        (truth / source / "manifest.json").write_text(json.dumps([e for e in manifest if e["file"] in names]))
        for path in paths:
            (truth / source / f"{path.stem}.json").write_text((path.parent / f"{path.stem}.json").read_text())
    scored, _ = shared.score(scorer, truth, pred, folder / "score.json")
    return {
        "header": scored["header_accuracy"],
        "key": scored["key_accuracy"],
        "line_f1": scored["lines"]["f1"] if scored["lines"]["truth"] else None,  # sroie labels no lines
        "completed": scored["status"]["completed_share"],
        "precision": scored["status"]["completed_precision"],
    }


def stage_figures(samples: dict) -> dict:
    """Mean seconds per stage, OCR batch sizes and page waits from one /metrics scrape."""
    stages = {}
    for (name, labels), value in samples.items():
        if name == "appliance_stage_duration_seconds_sum":
            stage = dict(labels)["stage"]
            count = samples.get(("appliance_stage_duration_seconds_count", labels), 0)
            if count:
                stages[stage] = (value / count, int(count))
    batches = {
        int(dict(labels)["pages"]): int(value)
        for (name, labels), value in samples.items()
        if name == "appliance_ocr_batches_total"
    }
    pages = sum(size * count for size, count in batches.items())
    return {
        "stages": stages,
        "batches": dict(sorted(batches.items())),
        "page_wait": samples.get(("appliance_ocr_page_wait_seconds_total", ()), 0.0) / pages if pages else None,
        "engine_seconds": samples.get(("appliance_ocr_engine_seconds_total", ()), None),
        "llm_seconds": samples.get(("appliance_llm_stage_seconds_total", ()), None),
    }


def run_one(
    name: str, sections: dict, docs: list[Path], clients: int, workdir: Path, datasets: Path, poll: float = 1.0
) -> dict:
    """One appliance, ``clients`` clients each polling every ``poll`` seconds: the run's figures."""
    from bench.server import merged, write_config

    folder = workdir / name
    config = write_config(folder, merged({"log": {"level": "WARNING"}, "queue": {"max_depth": 1000}}, sections))
    key = create_tenant(config, "bench", len(docs) + 10)
    loading = time.monotonic()
    server = ServerProcess(config).start(timeout=600)
    load_seconds = time.monotonic() - loading
    sampler = Sampler(server.proc.pid)
    results: dict[int, dict] = {}
    try:
        sampler.start()

        async def drive() -> float:
            queue: asyncio.Queue = asyncio.Queue()
            for item in enumerate(docs):
                queue.put_nowait(item)
            headers = {"Authorization": f"Bearer {key}"}
            timeout = aiohttp.ClientTimeout(total=120)
            async with aiohttp.ClientSession(headers=headers, timeout=timeout) as session:
                started = time.monotonic()
                await asyncio.gather(*(client(session, server.url, queue, results, poll) for _ in range(clients)))
                return started

        first = asyncio.run(drive())
        samples = scrape(f"http://127.0.0.1:{server.metrics_port}/metrics")
    finally:
        try:
            sampler.stop()
        finally:
            server.stop()  # whatever failed, no appliance is left running
    wall = max(r["ended"] for r in results.values()) - first
    latencies = [r["seconds"] for r in results.values()]
    return {
        "name": name,
        "sections": sections,
        "clients": clients,
        "docs": len(docs),
        "load_seconds": load_seconds,
        "wall": wall,
        "per_second": len(docs) / wall,
        "p50": percentile(latencies, 0.5),
        "p95": percentile(latencies, 0.95),
        "statuses": {
            s: sum(r["status"] == s for r in results.values()) for s in {r["status"] for r in results.values()}
        },
        "results": results,
        "cpu": sum(sampler.cpu) / len(sampler.cpu) if sampler.cpu else float("nan"),
        "gpu": (sum(sampler.gpu) / len(sampler.gpu), max(sampler.gpu_mb)) if sampler.gpu else None,
        "peak_rss_mb": max(sampler.rss_mb) if sampler.rss_mb else float("nan"),
        "accuracy": accuracy(results, datasets, folder),
        **stage_figures(samples),
    }


def hardware() -> str:
    model = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if "model name" in line
        ),
        platform.processor() or "unknown CPU",
    )
    meminfo = Path("/proc/meminfo").read_text().splitlines()
    memory = next(int(line.split()[1]) for line in meminfo if line.startswith("MemTotal:")) / 2**20
    text = f"{model}, {os.cpu_count()} cores, {memory:.0f} GiB RAM"
    if gpu_present():
        gpu = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,memory.total,driver_version", "--format=csv,noheader"],
            capture_output=True,
            text=True,
        ).stdout.strip()
        text += f"; GPU: {gpu}"
    else:
        text += "; no GPU"
    return text


def report(runs: list[dict], args, docs: list[Path], commit: str) -> str:
    base = runs[0]
    lines = [
        "# Throughput benchmark",
        "",
        f"`scripts/bench-throughput --clients {args.clients} --docs {args.docs} --runs {args.runs}` on commit "
        f"{commit}, {time.strftime('%Y-%m-%d')}.",
        "",
        f"Hardware: {hardware()}.",
        "",
        f"Mixed set: {len(docs)} documents in turn from invoice2data (text-layer PDFs), sroie (scans, JPEG) "
        "and zugferd-corpus (e-invoices), default models (rapidocr, Gemma 3 270M with the bundled adapter). "
        "Latency is upload start to the poll that saw `ready`; invoices/s is documents over the time from "
        "the first upload to the last ready. Each run is a fresh appliance; model loading is not counted.",
        "",
        "| run | layout | clients | docs | invoices/s | x first | p50 s | p95 s | CPU % | GPU % / MB | peak RSS MB "
        "| same data as first |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    first_data = {r["file"]: r["data"] for r in base["results"].values()}
    for run in runs:
        compared = [r for r in run["results"].values() if r["file"] in first_data]
        same = sum(r["data"] == first_data[r["file"]] for r in compared)
        layout = "; ".join(
            f"{s}: " + ", ".join(f"{k}={v}" for k, v in values.items()) for s, values in run["sections"].items()
        )
        gpu = f"{run['gpu'][0]:.0f} / {run['gpu'][1]:.0f}" if run["gpu"] else "-"
        lines.append(
            f"| {run['name']} | {layout} | {run['clients']} | {run['docs']} | {run['per_second']:.3f} "
            f"| {run['per_second'] / base['per_second']:.2f} | {run['p50']:.1f} | {run['p95']:.1f} | {run['cpu']:.0f} "
            f"| {gpu} | {run['peak_rss_mb']:.0f} | {same}/{len(compared)} |"
        )
    by_name = {run["name"]: run for run in runs}
    if "one-1t" in by_name and "single-2" in by_name:
        ratio = by_name["single-2"]["per_second"] / by_name["one-1t"]["per_second"]
        lines += ["", f"Two workers against one, same threads per worker (single-2 / one-1t): **{ratio:.2f}x**."]
    if "lone" in by_name and by_name["lone"]["page_wait"] is not None:
        lone = by_name["lone"]
        lines.append(
            f"A lone document's pages waited {lone['page_wait']:.3f} s on average for their batch "
            f"(ocr.batch_window_ms = {lone['sections']['ocr'].get('batch_window_ms', 50)}): "
            "what the window adds to its latency."
        )
    lines += [
        "",
        "## Accuracy of each run (../shared/bench/score.py on the documents it read)",
        "",
        "| run | header | key fields | line F1 | completed | completed precision |",
        "|---|---|---|---|---|---|",
    ]
    for run in runs:
        acc = run["accuracy"]
        if acc:
            share = f"{acc['completed']:.1%}" if acc["completed"] is not None else "-"
            precision = f"{acc['precision']:.3f}" if acc["precision"] is not None else "-"
            lines.append(
                f"| {run['name']} | {acc['header']:.3f} | {acc['key']:.3f} "
                f"| {'-' if acc['line_f1'] is None else format(acc['line_f1'], '.3f')} "
                f"| {share} | {precision} |"
            )
    lines += ["", "## Per stage (mean seconds per document, from /metrics) and OCR batches", ""]
    for run in runs:
        stages = ", ".join(f"{s} {mean:.2f} s (n={n})" for s, (mean, n) in sorted(run["stages"].items()))
        lines.append(
            f"- **{run['name']}**: {stages}; statuses {run['statuses']}; models loaded in {run['load_seconds']:.0f} s"
        )
        if run["batches"]:
            wait = f"{run['page_wait']:.3f} s" if run["page_wait"] is not None else "-"
            lines.append(
                f"  - OCR stage batches (pages: batches) {run['batches']}; mean wait of a page for its batch {wait}; "
                f"engine busy {run['engine_seconds']:.1f} s; LLM stage decoding {run['llm_seconds'] or 0:.1f} s"
            )
    return "\n".join(lines) + "\n"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="bench-throughput", description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--docs", type=int, default=24, help="documents per run (the lone run takes a quarter, scans)")
    parser.add_argument(
        "--runs", default=",".join(RUNS), help=f"comma-separated, from {RUNS}; the first is the baseline"
    )
    parser.add_argument("--datasets", type=Path, default=shared.DATASETS)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "throughput.md")
    parser.add_argument("--keep", type=Path, help="keep the runs' data dirs and raw results here")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    names = [n for n in args.runs.split(",") if n]
    unknown = set(names) - set(RUNS)
    if unknown:
        raise SystemExit(f"unknown runs {sorted(unknown)}; choose from {RUNS}")
    if not args.datasets.is_dir():
        raise SystemExit(f"{args.datasets} not found: the benchmark needs the shared datasets")
    docs = mixed_set(args.datasets, args.docs)
    gpu = gpu_present()
    config = layouts(args.clients, gpu)
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    workdir = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-throughput-"))
    runs = []
    try:
        for name in names:
            if name == "lone":
                scans = [d for d in mixed_set(args.datasets, 3 * max(1, args.docs // 4)) if d.suffix == ".jpg"]
                run = run_one(
                    name, config[name], scans, 1, workdir, args.datasets, poll=0.05
                )  # a lone client: fine-grained
            else:
                run = run_one(name, config[name], docs, args.clients, workdir, args.datasets)
            print(
                f"{name}: {run['per_second']:.3f} invoices/s, p50 {run['p50']:.1f} s, p95 {run['p95']:.1f} s, "
                f"batches {run['batches']}",
                flush=True,
            )
            runs.append(run)
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    text = report(runs, args, docs, commit)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    if args.keep:
        kept = [
            {**run, "results": {i: {k: v for k, v in r.items() if k != "body"} for i, r in run["results"].items()}}
            for run in runs
        ]
        (workdir / "runs.json").write_text(json.dumps(kept, indent=1, default=str))
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
