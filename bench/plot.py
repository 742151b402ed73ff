#!/usr/bin/env python3
"""Plots of tandem's benchmarks from their --json lines.

    python3 bench/plot.py --out DIR FILE...

Each FILE holds the lines a benchmark prints with --json (one JSON object per
line, any mix of benchmarks; blank lines are skipped), or the level-width CSV
of `bench_cgp --case levels --csv FILE` (header app,level,and_width). Lines are
told apart by their "bench" and "case" fields; a later line with the same key
(benchmark, case, mode, threads, ...) replaces an earlier one. The PNGs written
into DIR, each only when its data is present (otherwise one line on stderr):

  garble.png         bench_garble: M AND/s garbling and evaluating per circuit
                     shape and hash, with the fixed-key AES bound as a line
  cgp_offline.png    bench_cgp --case offline: CGP and FGP speed-up against
                     threads per application (paper 001 Fig. 6)
  cgp_online.png     bench_cgp --case online: two-party speed-up against workers
                     per party (paper 001 Fig. 8)
  fgp_tau.png        bench_cgp --case tau: FGP speed-up on two threads against
                     the ANDs per thread of a level
  level_widths.png   bench_cgp --case levels: histogram of AND gates per level
                     (paper 001 Fig. 7)
  ipp.png            bench_ipp: raw Yao against IPP per link and application
  scale.png          bench_scale: peak RSS and time against circuit size
  malicious.png      bench_malicious (aes, sha256, cot) beside bench_two_party's
                     aes: ms per AES-128 (one execution; prepared: offline +
                     online), bytes per AND, M COT/s per extension

Lines from benchmarks without a plot of their own (bench_lib, ...) are
ignored; bench_two_party's aes line is drawn in malicious.png. A
file that cannot be read, or a line that is not a benchmark's JSON object,
ends the script with one line on stderr and exit status 2 (no matplotlib: 1).

Only python3's standard library and matplotlib (Debian: python3-matplotlib,
`bash scripts/setup-deps.sh --plots`).
"""

import argparse
import csv
import json
import math
import os
import sys


class InputError(Exception):
    """Bad input: reported as one line, exit status 2."""


# ---- reading -------------------------------------------------------------------

LEVEL_CSV_HEADER = ["app", "level", "and_width"]


def read_level_csv(path, f):
    """The level-width CSV of bench_cgp as one record per app."""
    rows = csv.reader(f)
    header = next(rows, None)
    if header != LEVEL_CSV_HEADER:
        raise InputError(f"{path}: a CSV file must have the header {','.join(LEVEL_CSV_HEADER)} "
                         f"(bench_cgp --case levels --csv)")
    widths = {}
    for n, row in enumerate(rows, start=2):
        if not row:
            continue
        try:
            app, level, width = row[0], int(row[1]), int(row[2])
        except (ValueError, IndexError):
            raise InputError(f"{path}:{n}: not an app,level,and_width row: {','.join(row)!r}") from None
        widths.setdefault(app, []).append((level, width))
    return [{"bench": "cgp", "case": "level_widths_" + app, "app": app,
             "and_width": [w for _, w in sorted(ws)], "file": path} for app, ws in widths.items()]


def read_file(path):
    try:
        with open(path, newline="", encoding="utf-8") as f:
            first = f.readline()
            f.seek(0)
            if first.strip() == ",".join(LEVEL_CSV_HEADER) or path.endswith(".csv"):
                return read_level_csv(path, f)
            records = []
            for n, line in enumerate(f, start=1):
                if not line.strip():
                    continue
                try:
                    r = json.loads(line)
                except json.JSONDecodeError as e:
                    raise InputError(f"{path}:{n}: not JSON ({e.msg}); expected one object per line "
                                     f"as a benchmark prints with --json") from None
                if not isinstance(r, dict) or not isinstance(r.get("bench"), str) \
                        or not isinstance(r.get("case"), str):
                    raise InputError(f"{path}:{n}: not a benchmark's line (a JSON object with "
                                     f"\"bench\" and \"case\" strings)")
                records.append(r)
            return records
    except UnicodeDecodeError:
        raise InputError(f"{path}: not a text file") from None
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror}") from None


def latest(records, key):
    """The records in order, a later one with the same key replacing the earlier."""
    out = {}
    for r in records:
        k = repr(key(r))
        out.pop(k, None)
        out[k] = r
    return list(out.values())


def number(r, field):
    v = r.get(field)
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) else None


# ---- figures -------------------------------------------------------------------

def caption(fig, records):
    """The machine(s) and source(s) of the records, at the foot of the figure."""
    machines, sources = [], []
    for r in records:
        parts = []
        if r.get("machine"):
            parts.append(f'"{r["machine"]}"')
        if r.get("cpu"):
            parts.append(str(r["cpu"]))
        if r.get("nproc") is not None:
            parts.append(f'nproc {r["nproc"]}')
        m = ", ".join(parts)
        if m and m not in machines:
            machines.append(m)
        if r.get("source") and r["source"] not in sources:
            sources.append(r["source"])
    lines = []
    if machines:
        lines.append("Machine: " + "; ".join(machines))
    if sources:
        lines.append("Data: " + "; ".join(sources))
    if lines:
        fig.text(0.01, 0.01, "\n".join(lines), fontsize=7, ha="left", va="bottom", color="#444444", wrap=True)
    return len(lines)


def save(plt, fig, records, out_dir, name, title):
    fig.suptitle(title, fontsize=11)
    n = caption(fig, records)
    fig.tight_layout(rect=(0, 0.035 * n + 0.01, 1, 0.95))
    path = os.path.join(out_dir, name)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


APP_LABEL = {"biomatch": "BioMatch", "mexp": "MExp", "mvmul": "MVMul"}


def app_of(r, prefix):
    return r["case"][len(prefix):]


def label(app):
    return APP_LABEL.get(app, app)


def plot_garble(plt, records, out):
    rows = [r for r in records if r["bench"] == "garble" and r.get("phase") in ("garble", "evaluate")
            and r.get("scheme", "half_gates") == "half_gates"
            and number(r, "and_per_s") is not None]
    if not rows:
        return None, "no bench_garble garbling lines"
    rows = latest(rows, lambda r: (r["case"], r.get("hash"), r["phase"]))
    bounds = [r for r in records if r["bench"] == "garble" and r["case"] == "aes_fixed_key"]
    shapes = list(dict.fromkeys(r["case"] for r in rows))
    hashes = list(dict.fromkeys(r.get("hash", "?") for r in rows))
    fig, axes = plt.subplots(1, 2, figsize=(9, 4.4), sharey=False)
    used = list(rows)
    for ax, phase, field in ((axes[0], "garble", "garble_bound_and_per_s"),
                             (axes[1], "evaluate", "evaluate_bound_and_per_s")):
        width = 0.8 / max(1, len(hashes))
        for k, h in enumerate(hashes):
            xs, ys = [], []
            for i, s in enumerate(shapes):
                for r in rows:
                    if r["case"] == s and r.get("hash", "?") == h and r["phase"] == phase:
                        xs.append(i - 0.4 + width * (k + 0.5))
                        ys.append(number(r, "and_per_s") / 1e6)
            bars = ax.bar(xs, ys, width, label=f"{h} hash")
            ax.bar_label(bars, fmt="%.0f", fontsize=7, padding=1)
        bound = None
        if bounds and number(bounds[-1], field) is not None:
            bound = number(bounds[-1], field)
            used.append(bounds[-1])
        else:
            per_row = [number(r, "bound_and_per_s") for r in rows if r["phase"] == phase]
            per_row = [b for b in per_row if b is not None]
            bound = per_row[-1] if per_row else None
        if bound:
            ax.axhline(bound / 1e6, color="black", linestyle="--", linewidth=1)
            ax.text(-0.45, bound / 1e6, f"bound: fixed-key AES, {4 if phase == 'garble' else 2} per AND "
                    f"({bound / 1e6:,.0f})", ha="left", va="bottom", fontsize=7)
            ax.set_ylim(0, bound / 1e6 * 1.12)
        alone = [r for r in records if r["bench"] == "garble" and r["case"] == "mitccr_hash_alone"
                 and number(r, "and_per_s") is not None]
        if phase == "garble" and alone:
            rate = number(alone[-1], "and_per_s") / 1e6
            used.append(alone[-1])
            ax.axhline(rate, color="tab:blue", linestyle=":", linewidth=1)
            ax.text(-0.45, rate, f"re-keyed hash alone ({rate:,.0f})", ha="left", va="bottom", fontsize=7,
                    color="tab:blue")
        ax.set_xticks(range(len(shapes)))
        ax.set_xticklabels(shapes, rotation=20, fontsize=8)
        ax.set_xlabel("circuit shape")
        ax.set_ylabel("M AND gates / s (one thread)")
        ax.set_title("garbling" if phase == "garble" else "evaluating", fontsize=10)
        ax.legend(fontsize=7, loc="center right")
        ax.grid(axis="y", alpha=0.3)
    return save(plt, fig, used, out, "garble.png",
                "Half-gates garbling and evaluation speed per circuit shape (bench_garble)"), None


def speedup_panel(ax, series, threads_max, ylabel):
    ax.plot([1, threads_max], [1, threads_max], color="grey", linestyle=":", linewidth=1, label="ideal")
    for name, pts, style in series:
        pts = sorted(pts)
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], style, label=name, markersize=5)
    ax.set_xticks(range(1, threads_max + 1))
    ax.set_xlim(0.8, threads_max + 0.2)
    ax.set_ylim(0, threads_max * 1.1 + 0.1)
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)


def plot_cgp_offline(plt, records, out):
    rows = [r for r in records if r["bench"] == "cgp" and r["case"].startswith("offline_")
            and number(r, "speedup") is not None and number(r, "threads") is not None]
    if not rows:
        return None, "no bench_cgp --case offline lines"
    rows = latest(rows, lambda r: (r["case"], r.get("mode"), int(r["threads"])))
    apps = list(dict.fromkeys(app_of(r, "offline_") for r in rows))
    tmax = max(2, max(int(r["threads"]) for r in rows))
    fig, axes = plt.subplots(1, len(apps), figsize=(3.2 * len(apps) + 0.6, 3.9), squeeze=False)
    for ax, app in zip(axes[0], apps):
        mine = [r for r in rows if app_of(r, "offline_") == app]
        series = [(f"{m.upper()}", [(int(r["threads"]), number(r, "speedup")) for r in mine if r.get("mode") == m],
                   st) for m, st in (("cgp", "o-"), ("fgp", "s--"))]
        ceiling = {int(r["threads"]): number(r, "machine_ceiling") for r in mine
                   if number(r, "machine_ceiling") is not None}
        series.append(("machine ceiling", list(ceiling.items()), "^:"))
        speedup_panel(ax, series, tmax, "speed-up over 1 thread (×)")
        ax.set_xlabel("threads")
        ax.set_title(label(app), fontsize=10)
    axes[0][0].legend(fontsize=7, loc="upper left")
    return save(plt, fig, rows, out, "cgp_offline.png",
                "Offline garbling: CGP and FGP speed-up against threads (bench_cgp, cf. paper 001 Fig. 6)"), None


def plot_cgp_online(plt, records, out):
    rows = [r for r in records if r["bench"] == "cgp" and r["case"].startswith("online_")
            and number(r, "speedup") is not None and number(r, "threads") is not None]
    if not rows:
        return None, "no bench_cgp --case online lines"
    rows = latest(rows, lambda r: (r["case"], r.get("hash"), int(r["threads"])))
    tmax = max(2, max(int(r["threads"]) for r in rows))
    fig, ax = plt.subplots(figsize=(5.6, 4.4))
    series = []
    for (case, h) in dict.fromkeys((r["case"], r.get("hash")) for r in rows):
        pts = [(int(r["threads"]), number(r, "speedup")) for r in rows if r["case"] == case and r.get("hash") == h]
        name = label(case[len("online_"):]) + (f" ({h} hash)" if h else "")
        series.append((name, pts, "o-"))
    speedup_panel(ax, series, tmax, "speed-up over 1 worker per party (×)")
    ax.set_xlabel("workers (threads and TCP links) per party")
    ax.legend(fontsize=7, loc="upper left")
    return save(plt, fig, rows, out, "cgp_online.png",
                "Two-party run with CGP: speed-up against workers\n(bench_cgp --case online, cf. paper 001 Fig. 8)"), None


def plot_tau(plt, records, out):
    rows = [r for r in records if r["bench"] == "cgp" and r["case"] == "tau"
            and number(r, "speedup") is not None and number(r, "ands_per_thread") is not None]
    if not rows:
        return None, "no bench_cgp --case tau lines"
    rows = latest(rows, lambda r: (int(r["ands_per_thread"]), r.get("threads")))
    pts = sorted((number(r, "ands_per_thread"), number(r, "speedup")) for r in rows)
    fig, ax = plt.subplots(figsize=(6, 4.2))
    ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", label="two threads, every level split")
    ax.axhline(1, color="grey", linestyle=":", linewidth=1, label="no gain")
    ax.axhline(2, color="grey", linestyle="--", linewidth=1, label="ideal")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("level width per thread (AND gates)")
    ax.set_ylabel("speed-up over 1 thread (×)")
    ax.set_ylim(0, 2.2)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper left")
    return save(plt, fig, rows, out, "fgp_tau.png",
                "FGP threshold: speed-up of a split level against its width\n(bench_cgp --case tau)"), None


def plot_level_widths(plt, records, out):
    rows = [r for r in records if r["bench"] == "cgp" and r["case"].startswith("level_widths_")
            and isinstance(r.get("and_width"), list)
            and all(isinstance(w, int) and not isinstance(w, bool) and w >= 0 for w in r["and_width"])]
    if not rows:
        return None, "no bench_cgp --case levels widths (JSON lines or CSV)"
    rows = latest(rows, lambda r: r["case"])
    fig, axes = plt.subplots(1, len(rows), figsize=(3.3 * len(rows) + 0.6, 3.9), squeeze=False)
    for ax, r in zip(axes[0], rows):
        widths = [int(w) for w in r["and_width"]]
        nonzero = sorted(w for w in widths if w > 0)
        top = max(nonzero, default=1).bit_length()
        counts = [0] * top  # bucket b: widths in [2^b, 2^(b+1))
        for w in nonzero:
            counts[w.bit_length() - 1] += 1
        ax.bar(range(top), counts, width=0.85, color="tab:blue")
        ax.set_yscale("log")
        ax.set_xticks(range(0, top, 2 if top > 10 else 1))
        ax.set_xticklabels([f"$2^{{{b}}}$" for b in range(0, top, 2 if top > 10 else 1)], fontsize=7)
        ax.set_xlabel("AND gates per level (log₂ bucket)")
        ax.set_ylabel("levels")
        median = nonzero[len(nonzero) // 2] if nonzero else 0
        ax.set_title(f"{label(r.get('app', r['case'][len('level_widths_'):]))}: {len(widths):,} levels, "
                     f"median width {median:,}", fontsize=9)
        if len(widths) > len(nonzero):
            ax.text(0.98, 0.97, f"without ANDs: {len(widths) - len(nonzero):,}", transform=ax.transAxes,
                    ha="right", va="top", fontsize=7)
        ax.grid(axis="y", alpha=0.3)
    return save(plt, fig, rows, out, "level_widths.png",
                "Level widths: AND gates per level, execution order (bench_cgp --case levels, cf. paper 001 Fig. 7)"), None


def plot_ipp(plt, records, out):
    rows = [r for r in records if r["bench"] == "ipp" and (r["case"].startswith("compute_")
            or r["case"].startswith("link_")) and isinstance(r.get("ipp"), bool) and number(r, "seconds") is not None]
    if not rows:
        return None, "no bench_ipp compute or link lines"
    rows = latest(rows, lambda r: (r["case"], r.get("link"), r.get("hash"), r.get("threads"), r["ipp"]))

    def app(r):
        return r["case"].split("_", 1)[1]

    def setting(r):
        kind = "one core per party" if r["case"].startswith("compute_") else "shaped link"
        return f'{r.get("link", "?")} ({kind}), {r.get("hash", "?")} hash'

    settings = list(dict.fromkeys(setting(r) for r in rows))
    cols = min(2, len(settings))
    grid = (len(settings) + cols - 1) // cols
    fig, axes = plt.subplots(grid, cols, figsize=(4.4 * cols + 0.4, 3.3 * grid + 0.9), squeeze=False)
    for ax in axes.flat[len(settings):]:
        ax.set_visible(False)
    for ax, s in zip(axes.flat, settings):
        mine = [r for r in rows if setting(r) == s]
        apps = list(dict.fromkeys(app(r) for r in mine))
        for k, (ipp, name) in enumerate(((False, "raw Yao"), (True, "IPP"))):
            xs, ys = [], []
            for i, a in enumerate(apps):
                for r in mine:
                    if app(r) == a and r["ipp"] == ipp:
                        xs.append(i - 0.2 + 0.4 * k)
                        ys.append(number(r, "seconds"))
            ax.bar(xs, ys, 0.4, label=name, color="tab:gray" if not ipp else "tab:green")
        for i, a in enumerate(apps):
            t = {r["ipp"]: number(r, "seconds") for r in mine if app(r) == a}
            if True in t and False in t and t[True] > 0:
                given = [number(r, "speedup") for r in mine if app(r) == a and r["ipp"]]
                speedup = given[0] if given and given[0] is not None else t[False] / t[True]
                ax.text(i, max(t.values()), f"×{speedup:.2f}", ha="center", va="bottom", fontsize=8)
        ax.set_xticks(range(len(apps)))
        ax.set_xticklabels([label(a) for a in apps], fontsize=8)
        ax.set_ylabel("seconds per run (slower party)", fontsize=8)
        top = max(number(r, "seconds") for r in mine)
        ax.set_ylim(0, top * 1.2)
        ax.set_title(s, fontsize=9)
        ax.grid(axis="y", alpha=0.3)
    axes[0][0].legend(fontsize=7, loc="upper right")
    return save(plt, fig, rows, out, "ipp.png",
                "Raw Yao against inter-party parallelization (IPP) per link; ×: IPP's speed-up (bench_ipp)"), None


def plot_scale(plt, records, out):
    rows = [r for r in records if r["bench"] == "scale" and number(r, "and_gates") is not None]
    if not rows:
        return None, "no bench_scale lines"
    rows = latest(rows, lambda r: (r["case"], r.get("size"), r.get("mode")))
    fig, axes = plt.subplots(1, 2, figsize=(9, 4.2))
    names = {"minimum": "minimum of n", "edit": "edit distance L×L", "mul64": "Σ 64-bit products"}
    for key in dict.fromkeys((r["case"], r.get("mode", "")) for r in rows):
        mine = sorted((r for r in rows if (r["case"], r.get("mode", "")) == key), key=lambda r: number(r, "and_gates"))
        name = f"{names.get(key[0], key[0])}, {key[1]}" if key[1] else names.get(key[0], key[0])
        style = "o-" if key[1] != "compiled" else "s--"
        x = [number(r, "and_gates") for r in mine]
        rss = [(number(r, "peak_rss_bytes") or 0) / 2**20 for r in mine]
        secs = [number(r, "seconds") for r in mine]
        lo, hi = min(rss), max(rss)
        span = f"{lo:,.1f} MiB" if hi - lo < 0.05 else f"{lo:,.1f}–{hi:,.1f} MiB"
        axes[0].plot(x, rss, style, label=f"{name} ({span})", markersize=5)
        axes[1].plot(x, secs, style, label=name, markersize=5)
    axes[0].set_ylabel("peak RSS, larger party (MiB)")
    axes[1].legend(fontsize=7, loc="upper left")
    axes[1].set_ylabel("wall time, slower party (s)")
    for ax in axes:
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("circuit size (AND gates)")
        ax.grid(alpha=0.3, which="both")
    axes[0].legend(fontsize=7, loc="upper left")
    return save(plt, fig, rows, out, "scale.png",
                "Two-party jobs as they grow: memory and time (bench_scale)"), None


AES_ANDS = 6400  # the Bristol AES-128 circuit both benchmarks run


def bar_axis(ax, labels, ylabel, title):
    """Category labels, y label, title and grid of one bar panel."""
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, fontsize=8)
    ax.set_ylabel(ylabel, fontsize=8)
    ax.set_title(title, fontsize=9)
    ax.grid(axis="y", alpha=0.3)


def both_ways(r):
    """Bytes sent by both parties."""
    return number(r, "bytes_alice") + number(r, "bytes_bob")


def ot_label(r):
    """A malicious record's COT extension under its bar: silent OT named, SoftSpoken (the default) not."""
    return "\n(silent OT)" if r.get("extension") == "ferret" else ""


def plot_malicious(plt, records, out):
    mal = [r for r in records if r["bench"] == "malicious"]
    # One bar per case and COT extension (records before issue 55 name none: SoftSpoken).
    by_extension = lambda r: (r["case"], r.get("extension", "softspoken-k4"))
    single = latest([r for r in mal if r["case"] == "aes_single" and number(r, "seconds") is not None], by_extension)
    amortised = latest([r for r in mal if r["case"] == "aes_amortised"
                        and number(r, "offline_seconds_per_aes") is not None], by_extension)
    chain = latest([r for r in mal if r["case"] == "sha256_chain" and number(r, "and_gates")], by_extension)
    streamed = latest([r for r in mal if r["case"] == "sha256_stream" and number(r, "and_gates")
                       and number(r, "seconds")], by_extension)
    cots = latest([r for r in mal if r["case"] == "cot" and number(r, "cot_per_s") is not None],
                  lambda r: (r.get("extension"), r.get("security")))
    semi = latest([r for r in records if r["bench"] == "two_party" and r["case"] == "aes"
                   and number(r, "seconds") is not None and number(r, "runs")], lambda r: (r["case"], r.get("hash")))
    if not (single or amortised or cots):
        return None, "no bench_malicious aes or cot lines"
    rows = single + amortised + chain + streamed + cots + semi
    # The communication panel has a bar per case and extension: give it the room.
    fig, axes = plt.subplots(1, 3, figsize=(18, 5.4), gridspec_kw={"width_ratios": [1.1, 2, 1]})

    # AES-128: milliseconds per execution, semi-honest beside malicious.
    ax = axes[0]
    bars = []  # (label, [(value, part, colour)])
    for r in semi[-1:]:
        bars.append(("semi-honest\n(Yao, online)", [(number(r, "seconds") / number(r, "runs") * 1e3, "", "tab:gray")]))
    for r in single:
        bars.append((f"malicious,\none execution{ot_label(r)}", [(number(r, "seconds") * 1e3, "", "tab:red")]))
    for r in amortised:
        n = int(number(r, "executions") or 0)
        bars.append((f"malicious,\n{n} prepared{ot_label(r)}", [(number(r, "offline_seconds_per_aes") * 1e3, "offline", "tab:orange"),
                                                  (number(r, "online_seconds_per_aes") * 1e3, "online", "tab:green")]))
    seen = set()
    for i, (_, parts) in enumerate(bars):
        bottom = 0.0
        for value, part, colour in parts:
            ax.bar(i, value, 0.6, bottom=bottom, color=colour, label=part if part and part not in seen else None)
            seen.add(part)
            bottom += value
        ax.text(i, bottom, f"{bottom:.2f}", ha="center", va="bottom", fontsize=8)
    bar_axis(ax, [b[0] for b in bars], "ms per AES-128, slower party", "AES-128 (6,400 ANDs)")
    if seen - {""}:
        ax.legend(fontsize=7, loc="upper left")

    # Bytes on the wire per AND, both directions together.
    ax = axes[1]
    wire = []
    for r in semi[-1:]:
        wire.append(("semi-honest\nAES", both_ways(r) / number(r, "and_gates"), "tab:gray"))
    for r in single:
        wire.append((f"malicious\nAES, one{ot_label(r)}", both_ways(r) / AES_ANDS, "tab:red"))
    for r in amortised:
        total = sum(number(r, k) or 0 for k in ("offline_bytes_alice_per_aes", "offline_bytes_bob_per_aes",
                                                "online_bytes_alice_per_aes", "online_bytes_bob_per_aes"))
        wire.append((f"malicious\nAES,\nprepared{ot_label(r)}", total / AES_ANDS, "tab:orange"))
    for r in chain:
        wire.append((f"SHA-256\nchain,\nin memory{ot_label(r)}", both_ways(r) / number(r, "and_gates"), "tab:purple"))
    for r in streamed:
        ands = number(r, "and_gates")
        rss = max(number(r, "peak_rss_alice") or 0, number(r, "peak_rss_bob") or 0) / 2**20
        wire.append((f"{ands / 1e6:.0f} M-AND\nchain,\nstreamed:\n{ands / number(r, 'seconds') / 1e6:.2f} M AND/s,\n"
                     f"{rss:.0f} MiB{ot_label(r)}", both_ways(r) / ands, "tab:brown"))
    for i, (_, v, colour) in enumerate(wire):
        ax.bar(i, v, 0.6, color=colour)
        ax.text(i, v, f"{v:.0f}", ha="center", va="bottom", fontsize=8)
    bar_axis(ax, [w[0] for w in wire], "bytes per AND, both directions", "Communication")

    # Correlated OTs per second of each extension, semi-honest and malicious.
    ax = axes[2]
    names = list(dict.fromkeys(r.get("extension", "?") for r in cots))
    for k, (sec, colour) in enumerate((("semi-honest", "tab:gray"), ("malicious", "tab:red"))):
        xs, ys = [], []
        for i, e in enumerate(names):
            for r in cots:
                if r.get("extension") == e and r.get("security") == sec:
                    xs.append(i - 0.2 + 0.4 * k)
                    ys.append(number(r, "cot_per_s") / 1e6)
        if xs:
            ax.bar(xs, ys, 0.4, color=colour, label=sec)
    bar_axis(ax, names, "M COT/s, slower party", "COT extensions")
    if names:
        ax.legend(fontsize=7, loc="upper right")
    return save(plt, fig, rows, out, "malicious.png",
                "Malicious security beside semi-honest (bench_malicious, bench_two_party)"), None


PLOTS = [("garble.png", plot_garble), ("cgp_offline.png", plot_cgp_offline), ("cgp_online.png", plot_cgp_online),
         ("fgp_tau.png", plot_tau), ("level_widths.png", plot_level_widths), ("ipp.png", plot_ipp),
         ("scale.png", plot_scale), ("malicious.png", plot_malicious)]


def main(argv):
    parser = argparse.ArgumentParser(
        prog="plot.py",
        description="Plots of tandem's benchmarks (PNG) from the lines they print with --json "
                    "(or bench_cgp's level-width CSV). Plots whose data is absent are skipped.",
        epilog="Writes " + ", ".join(n for n, _ in PLOTS) + ". Exit status 2 on bad input.")
    parser.add_argument("--out", default=".", metavar="DIR", help="folder for the PNGs (created; default: .)")
    parser.add_argument("files", nargs="+", metavar="FILE", help="--json output of tandem's benchmarks")
    args = parser.parse_args(argv)

    records = []
    try:
        for path in args.files:
            records.extend(read_file(path))
    except InputError as e:
        print(f"plot.py: {e}", file=sys.stderr)
        return 2
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot.py: matplotlib is missing (Debian: apt-get install python3-matplotlib, "
              "or bash scripts/setup-deps.sh --plots)", file=sys.stderr)
        return 1
    os.makedirs(args.out, exist_ok=True)
    for name, plot in PLOTS:
        try:
            path, why = plot(plt, records, args.out)
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            print(f"plot.py: cannot draw {name} from the input: {type(e).__name__}: {e}", file=sys.stderr)
            return 2
        if path:
            print(path)
        else:
            print(f"plot.py: skipped {name}: {why}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
