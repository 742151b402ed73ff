#!/usr/bin/env python3
"""CTest driver of bench/plot.py (label "plots"; registered by bench/CMakeLists.txt).

    plot_test.py bench     --bin DIR --work DIR   run the benchmarks that feed the plots
                                                  (--quick --json), plot their output
    plot_test.py recorded  --work DIR             plot bench/results/*.jsonl (RESULTS.md's figures)
    plot_test.py malformed --work DIR             bad input: exit status 2 and one clear line

Each mode checks that the expected PNGs exist and are PNGs of some size, or
that bad input is refused; it prints what failed and exits 1 if anything did.
"""

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PLOT = os.path.join(HERE, "plot.py")
RESULTS = os.path.join(HERE, "results")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

failures = []


def check(ok, what):
    print(("ok:   " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)


def plot(files, out):
    """Runs plot.py with this interpreter; returns (status, stdout, stderr)."""
    p = subprocess.run([sys.executable, PLOT, "--out", out, *files], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def check_pngs(out, names):
    for name in names:
        path = os.path.join(out, name)
        ok = os.path.isfile(path) and os.path.getsize(path) > 1000
        if ok:
            with open(path, "rb") as f:
                ok = f.read(8) == PNG_MAGIC
        check(ok, f"{name} written, a PNG of {os.path.getsize(path) if os.path.isfile(path) else 0} bytes")


def fresh(work):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)


def mode_bench(args):
    fresh(args.work)
    levels_csv = os.path.join(args.work, "levels.csv")
    runs = {  # what feeds each plot; --quick instances, a few seconds each
        "garble": ["bench_garble", "--quick", "--json"],
        "cgp": ["bench_cgp", "--quick", "--json", "--csv", levels_csv],  # levels, offline, tau, online
        "ipp": ["bench_ipp", "--quick", "--json", "--case", "compute"],
        "scale": ["bench_scale", "--quick", "--json"],
        "malicious": ["bench_malicious", "--quick", "--json", "--case", "aes"],
        "two_party": ["bench_two_party", "--quick", "--json", "--case", "aes"],
    }
    outputs = []
    for name, cmd in runs.items():
        exe = os.path.join(args.bin, cmd[0])
        out = os.path.join(args.work, name + ".jsonl")
        t0 = time.monotonic()
        with open(out, "w") as f:
            p = subprocess.run([exe, *cmd[1:]], stdout=f, stderr=subprocess.PIPE, text=True, timeout=300)
        lines = [l for l in open(out) if l.strip()]
        check(p.returncode == 0 and lines, f"{' '.join(cmd)}: status {p.returncode}, {len(lines)} lines "
              f"({time.monotonic() - t0:.1f} s){': ' + p.stderr.strip() if p.returncode else ''}")
        for n, l in enumerate(lines, 1):
            try:
                r = json.loads(l)
                good = isinstance(r.get("cpu"), str) and isinstance(r.get("nproc"), int) and r.get("bench") == name
            except json.JSONDecodeError:
                good = False
            if not good:
                check(False, f"{out}:{n}: a JSON object with bench {name!r}, cpu and nproc")
                break
        outputs.append(out)
    png = os.path.join(args.work, "png")
    status, stdout, stderr = plot(outputs, png)
    check(status == 0, f"plot.py over the benchmarks' output: status {status} {stderr.strip()}")
    check_pngs(png, ["garble.png", "cgp_offline.png", "cgp_online.png", "fgp_tau.png", "level_widths.png",
                     "ipp.png", "scale.png", "malicious.png"])
    check(stderr.strip() == "", f"no plot skipped: {stderr.strip()!r}")
    csv_png = os.path.join(args.work, "png_csv")
    status, _, stderr = plot([levels_csv], csv_png)
    check(status == 0, f"plot.py over bench_cgp's level-width CSV: status {status}")
    check_pngs(csv_png, ["level_widths.png"])


def mode_recorded(args):
    fresh(args.work)
    files = sorted(glob.glob(os.path.join(RESULTS, "*.jsonl")))
    check(bool(files), f"recorded figures in {RESULTS}")
    with open(os.path.join(HERE, "RESULTS.md"), encoding="utf-8") as f:
        headings = {l.lstrip("#").strip() for l in f if l.startswith("#")}
    for path in files:
        for n, line in enumerate(open(path, encoding="utf-8"), 1):
            r = json.loads(line)
            src = r.get("source", "")
            title = src[len("bench/RESULTS.md, "):] if src.startswith("bench/RESULTS.md, ") else None
            # A section title may be followed by the command in backquotes.
            if title is None or not any(h == title or h.startswith(title + " (") for h in headings) \
                    or not r.get("machine"):
                check(False, f"{path}:{n}: source names a section of bench/RESULTS.md and a machine ({src!r})")
                break
    out = os.path.join(args.work, "png")
    status, stdout, stderr = plot(files, out)
    check(status == 0, f"plot.py over bench/results: status {status}")
    check_pngs(out, ["garble.png", "cgp_offline.png", "cgp_online.png", "fgp_tau.png", "level_widths.png", "ipp.png",
                     "scale.png", "malicious.png"])
    skipped = [l for l in stderr.splitlines() if l.strip()]
    check(skipped == [], f"every recorded figure plotted, none skipped: {skipped}")


def mode_malformed(args):
    fresh(args.work)
    good = os.path.join(args.work, "good.jsonl")
    with open(good, "w") as f:
        f.write('{"bench": "cgp", "case": "tau", "ands_per_thread": 4, "threads": 2, "speedup": 0.5}\n')
    cases = {
        "not JSON": ("not json at all\n", "bad1.jsonl:1: not JSON"),
        "JSON without bench": ('{"case": "tau"}\n', "bad2.jsonl:1: not a benchmark's line"),
        "JSON array": ("[1, 2]\n", "bad3.jsonl:1: not a benchmark's line"),
        "CSV of another header": ("a,b,c\n1,2,3\n", "bad4.csv: a CSV file must have the header"),
        "binary": (b"\x89PNG\r\n\x1a\n\xff\xfe", "bad5.jsonl: not a text file"),
    }
    for k, (what, (content, expected)) in enumerate(cases.items(), 1):
        path = os.path.join(args.work, f"bad{k}.{'csv' if 'CSV' in what else 'jsonl'}")
        with open(path, "wb") as f:
            f.write(content if isinstance(content, bytes) else content.encode())
        out = os.path.join(args.work, f"png{k}")
        status, _, stderr = plot([good, path], out)
        lines = stderr.strip().splitlines()
        check(status == 2 and len(lines) == 1 and expected in lines[0],
              f"{what}: status {status} (want 2), stderr {stderr.strip()!r} (want one line with {expected!r})")
        check(not glob.glob(os.path.join(out, "*.png")), f"{what}: no PNG written")
    status, _, stderr = plot([good, os.path.join(args.work, "missing.jsonl")], os.path.join(args.work, "png0"))
    check(status == 2 and stderr.count("\n") == 1 and "missing.jsonl: cannot read" in stderr,
          f"a missing file: status {status}, {stderr.strip()!r}")
    p = subprocess.run([sys.executable, PLOT, "--help"], capture_output=True, text=True)
    check(p.returncode == 0 and "--out" in p.stdout, "--help: status 0, names --out")
    status, _, _ = plot([good], os.path.join(args.work, "png_good"))
    check(status == 0 and os.path.isfile(os.path.join(args.work, "png_good", "fgp_tau.png")),
          "the good file alone plots (the failures above are the bad files')")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["bench", "recorded", "malformed"])
    parser.add_argument("--bin", help="folder of the benchmark executables (mode bench)")
    parser.add_argument("--work", required=True, help="scratch folder (emptied first)")
    args = parser.parse_args()
    if args.mode == "bench" and not args.bin:
        parser.error("mode bench needs --bin")
    t0 = time.monotonic()
    {"bench": mode_bench, "recorded": mode_recorded, "malformed": mode_malformed}[args.mode](args)
    print(f"{args.mode}: {len(failures)} failure(s), {time.monotonic() - t0:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
