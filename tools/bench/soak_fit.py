#!/usr/bin/env python3
"""The soak's verdict and plot (tools/bench/soak.sh; issue 52). Standard library only.

Reads the soak's samples.csv (one row per instance and sample) and events.csv (outages and
rebalances, seconds since the soak's start), and judges instance A, which is never restarted:
for each of its RSS, open fds (but its connections to the receiver, which the pool opens and
closes with the load) and threads, and for the backlog (records produced - nginx 200s),
the least-squares slope over the steady samples (after the warm-up, which lasts at least through
the first outage and its settle time; not during an outage or a rebalance nor within --settle or
--rebalance-settle seconds after one), projected over --duration seconds. It fails
when that projected rise is over the tolerance, or when fewer than --min-samples samples are
left to fit; and when an instance ever held more connections to the receiver than
--max-connections (a socket not closed would). Instance B's lifetimes are fitted one by one and
printed, not judged. Writes the plot as a self-contained SVG. Prints one line per check; exits 1
when any failed.

  soak_fit.py --samples S.csv --events E.csv --svg OUT.svg --duration 3600 --warmup 600 \\
              --settle 140 --rate 800 --max-connections 32 [--rss-pct 10 --rss-mib 16 --fds 2 \\
              --threads 2 --backlog-seconds 10]
"""
import argparse
import csv
import statistics
import sys


def fit(points):
    """Least squares y = a + b t over (t, y) points: (b per second, a)."""
    n = len(points)
    mt = sum(t for t, _ in points) / n
    my = sum(y for _, y in points) / n
    stt = sum((t - mt) ** 2 for t, _ in points)
    if stt == 0:
        return 0.0, my
    b = sum((t - mt) * (y - my) for t, y in points) / stt
    return b, my - b * mt


def windows(events, settle):
    """The disturbed windows (kind, from, to): outages and rebalances, each with its settle time
    (settle[kind]) after it."""
    out, open_at = [], {}
    for t, kind in events:
        if kind in ("outage_start", "rebalance_stop"):
            open_at[kind.split("_")[0]] = t
        elif kind in ("outage_end", "rebalance_ready", "rebalance_not_ready"):
            what = kind.split("_")[0]
            if what in open_at:
                out.append((what, open_at.pop(what), t + settle[what]))
    for what, t in open_at.items():  # still open at the end
        out.append((what, t, float("inf")))
    return out


def num(v):
    return float(v) if v not in ("", None) else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", required=True)
    ap.add_argument("--events", required=True)
    ap.add_argument("--svg", required=True)
    ap.add_argument("--duration", type=float, required=True)
    ap.add_argument("--warmup", type=float, required=True)
    ap.add_argument("--settle", type=float, required=True, help="seconds after an outage")
    ap.add_argument("--rebalance-settle", type=float, default=30, help="seconds after a rebalance")
    ap.add_argument("--rate", type=float, required=True)
    ap.add_argument("--rss-pct", type=float, default=10)
    ap.add_argument("--rss-mib", type=float, default=16)
    ap.add_argument("--fds", type=float, default=2)
    ap.add_argument("--max-connections", type=int, required=True)
    ap.add_argument("--threads", type=float, default=2)
    ap.add_argument("--backlog-seconds", type=float, default=10)
    ap.add_argument("--min-samples", type=int, default=6)
    args = ap.parse_args()

    with open(args.samples, newline="") as f:
        rows = list(csv.DictReader(f))
    events = []
    with open(args.events, newline="") as f:
        for r in csv.DictReader(f):
            events.append((float(r["t"]), r["kind"]))
    disturbed = windows(events, {"outage": args.settle, "rebalance": args.rebalance_settle})
    # The warm-up lasts at least through the first outage and its settle time: that outage's
    # backlog sets the allocator's plateau (a step up in RSS, once), not a trend.
    outages = [b for what, _, b in disturbed if what == "outage"]
    args.warmup = max([args.warmup] + outages[:1])

    def steady(t):
        return t >= args.warmup and not any(a <= t < b for _, a, b in disturbed)

    series = {}  # (instance, life) -> list of rows with numbers
    for r in rows:
        if r["rss_kib"] == "":
            continue
        key = (r["instance"], int(r["life"]))
        series.setdefault(key, []).append(
            {"t": float(r["t"]), "rss": float(r["rss_kib"]) / 1024, "all_fds": float(r["fds"]),
             "fds": float(r["fds"]) - float(r["receiver_conns"]), "conns": float(r["receiver_conns"]),
             "threads": float(r["threads"]), "backlog": num(r["backlog"])})

    metrics = [("rss", "RSS", "MiB"), ("fds", "open fds besides receiver connections", ""),
               ("threads", "threads", "")]
    lines, failed, fits = [], False, {}
    lines.append("soak: judged: instance A from t=%.0f s (the warm-up, through the first outage and its settle), "
                 "outside outages (+%g s) and rebalances (+%g s)" % (args.warmup, args.settle, args.rebalance_settle))
    a_rows = series.get(("A", 1), [])
    judged = [p for p in a_rows if steady(p["t"])]
    for key, label, unit in metrics + [("backlog", "backlog (produced - nginx 200s)", "records")]:
        pts = [(p["t"], p[key]) for p in judged if p[key] is not None]
        source = "A" if key != "backlog" else "stand"
        if len(pts) < args.min_samples:
            lines.append("soak: %s %s: %d steady samples of %d, fewer than %d to fit: FAIL"
                         % (source, label, len(pts), len(a_rows), args.min_samples))
            failed = True
            continue
        b, a = fit(pts)
        fits[key] = (a, b, pts[0][0], pts[-1][0])
        med = statistics.median(y for _, y in pts)
        rise = b * args.duration
        if key == "rss":
            tol = max(args.rss_pct / 100 * med, args.rss_mib)
            why = "max(%g%% of the median, %g MiB)" % (args.rss_pct, args.rss_mib)
        elif key == "fds":
            tol, why = args.fds, ""
        elif key == "threads":
            tol, why = args.threads, ""
        else:
            tol = args.backlog_seconds * args.rate
            why = "%g s of %g records/s" % (args.backlog_seconds, args.rate)
        ok = rise <= tol
        failed |= not ok
        u = (" " + unit) if unit else ""
        lines.append(
            "soak: %s %s: %d steady samples of %d (t %.0f-%.0f s), median %.1f%s, min %.1f, max %.1f; "
            "slope %+.3g%s/h, rise over %.0f s %+.2f%s (tolerance %.1f%s%s): %s"
            % (source, label, len(pts), len(a_rows), pts[0][0], pts[-1][0], med, u,
               min(y for _, y in pts), max(y for _, y in pts), b * 3600, u, args.duration, rise, u,
               tol, u, (" = " + why) if why else "", "ok" if ok else "FAIL"))
    for inst in sorted({i for i, _ in series}):
        pts = [p for (i, _), ps in series.items() if i == inst for p in ps]
        top = max(p["conns"] for p in pts)
        ok = top <= args.max_connections
        failed |= not ok
        lines.append("soak: %s connections to the receiver: %d-%d over %d samples (at most http.max_connections %d): %s"
                     % (inst, min(p["conns"] for p in pts), top, len(pts), args.max_connections, "ok" if ok else "FAIL"))
    for (inst, life), pts in sorted(series.items()):
        if inst == "A":
            continue
        use = [p for p in pts if steady(p["t"])]
        if len(use) < 3:
            lines.append("soak: %s lifetime %d: %d samples, %d steady (not judged)" % (inst, life, len(pts), len(use)))
            continue
        parts = []
        for key, label, unit in metrics:
            b, _ = fit([(p["t"], p[key]) for p in use])
            parts.append("%s %.1f-%.1f%s slope %+.3g/h" % (label, min(p[key] for p in use), max(p[key] for p in use),
                                                         (" " + unit) if unit else "", b * 3600))
        lines.append("soak: %s lifetime %d (t %.0f-%.0f s, %d steady samples; not judged): %s"
                     % (inst, life, pts[0]["t"], pts[-1]["t"], len(use), "; ".join(parts)))
    print("\n".join(lines))
    draw(args, series, events, disturbed, fits, failed)
    return 1 if failed else 0


def draw(args, series, events, disturbed, fits, failed):
    width, left, right, panel_h, gap, top = 960, 70, 30, 150, 38, 50
    panels = [("rss", "RSS (MiB)"), ("fds", "open file descriptors besides connections to the receiver"),
              ("conns", "connections to the receiver"), ("threads", "threads"),
              ("backlog", "backlog: produced - nginx 200s (records)")]
    height = top + len(panels) * (panel_h + gap) + 30
    t_max = max([args.duration] + [p["t"] for pts in series.values() for p in pts])
    x = lambda t: left + (width - left - right) * t / t_max
    colors = {"A": "#1f5fbf", "B": "#e07b00"}
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
           'font-family="sans-serif" font-size="11">' % (width, height, width, height),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="18" font-size="14" font-weight="bold">courier soak: %.0f s, %g records/s: %s</text>'
           % (left, args.duration, args.rate, "FAIL" if failed else "pass"),
           '<text x="%d" y="34" fill="#444">A (blue, judged: the fit dashed, over its steady samples); '
           'B (orange, one line per lifetime); red: partner outage; purple: rebalance; grey: warm-up; '
           'shade includes the settle time</text>' % left]
    for i, (key, title) in enumerate(panels):
        y0 = top + i * (panel_h + gap) + 14
        vals = [p[key] for pts in series.values() for p in pts if p[key] is not None]
        if not vals:
            continue
        lo, hi = min(vals), max(vals)
        if key == "backlog":
            lo = min(lo, 0)
        pad = (hi - lo) * 0.08 or max(abs(hi) * 0.05, 1)
        lo, hi = lo - pad, hi + pad
        y = lambda v, lo=lo, hi=hi, y0=y0: y0 + panel_h - panel_h * (v - lo) / (hi - lo)
        out.append('<text x="%d" y="%d" font-weight="bold">%s</text>' % (left, y0 - 4, title))
        out.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="#e6e6e6"/>'
                   % (x(0), y0, x(args.warmup) - x(0), panel_h))
        for what, a, b in disturbed:
            b = min(b, t_max)
            out.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s" fill-opacity="0.18"/>'
                       % (x(a), y0, max(x(b) - x(a), 1), panel_h, "#d62728" if what == "outage" else "#9467bd"))
        for t, kind in events:
            if kind in ("outage_start", "rebalance_stop"):
                out.append('<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="%s" stroke-width="1"/>'
                           % (x(t), x(t), y0, y0 + panel_h, "#d62728" if kind == "outage_start" else "#9467bd"))
        out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#888"/>'
                   % (left, y0, width - left - right, panel_h))
        for k in range(5):
            v = lo + (hi - lo) * k / 4
            out.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>'
                       % (left - 4, y(v) + 4, ("%.0f" % v) if abs(hi - lo) > 20 else ("%.1f" % v)))
        for (inst, life), pts in sorted(series.items()):
            if key == "backlog" and inst != "A":
                continue  # the stand's figure, the same on both rows
            pl = " ".join("%.1f,%.1f" % (x(p["t"]), y(p[key])) for p in pts if p[key] is not None)
            if pl:
                out.append('<polyline points="%s" fill="none" stroke="%s" stroke-width="1.2"/>'
                           % (pl, colors.get(inst, "#333")))
        if key in fits:
            a, b, t1, t2 = fits[key]
            out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black" stroke-width="1.5" '
                       'stroke-dasharray="6,3"/>' % (x(t1), y(a + b * t1), x(t2), y(a + b * t2)))
            out.append('<text x="%d" y="%d" text-anchor="end">fit: %+.3g/h</text>'
                       % (width - right - 4, y0 - 4, b * 3600))
    y_axis = top + len(panels) * (panel_h + gap) - gap + 14 + 16
    step = 600 if t_max > 1800 else 60
    t = 0
    while t <= t_max:
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%d</text>' % (x(t), y_axis, t))
        t += step
    out.append('<text x="%d" y="%d" text-anchor="end">seconds since the soak started</text>'
               % (width - right, y_axis + 14))
    out.append("</svg>")
    with open(args.svg, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    sys.exit(main())
