#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The table of scripts/bench-http-ab: httpab.py DIR 'WORKLOADS'.

Per CONFIG and workload: ns of BPF per request (all its programs' run time
over wrk's requests) and ns per run of each program, median and range
over the rounds, and the median of the floor's ratio. Runs beyond the
workload's own (2 per request of each socket tracepoint: the server's and
the client's socket; 1 of each netfilter program) are other users' traffic
on the same tracepoints: charged at the floor program's ns per run of the
same workload and taken out, as "own" runs (without a floor CONFIG none
are). Then, round by round, the difference of every CONFIG to base with
the same suffix (base -> new, baseC -> newC: a suffix is empty or starts
with a capital or _), or of the pairs PAIRS='old:new ...' names.
"""
import glob
import json
import os
import re
import statistics as st
import sys

d, wl = sys.argv[1], sys.argv[2].split()
EXP = {'tp_data_ready': 2, 'tp_recv_length': 2, 'tp_tcp_copy_datagram': 2, 'nf_ip_start': 1, 'nf_l4_start': 1,
       'floor_empty': 2, 'floor_empty_rl': 2, 'floor_empty_cp': 2, 'nf_pre_empty': 1, 'nf_floor_empty': 1}
FLOORMAP = {'tp_data_ready': 'floor_empty', 'tp_recv_length': 'floor_empty_rl', 'tp_tcp_copy_datagram': 'floor_empty_cp',
            'nf_ip_start': 'nf_pre_empty', 'nf_l4_start': 'nf_floor_empty'}
raw = {}
for ids in sorted(glob.glob(d + '/*.ids')):
    base = os.path.basename(ids)[:-4]
    name, r = base.rsplit('-', 1)
    idset = set(int(x) for x in open(ids).read().split())
    for w in wl:
        try:
            a = {p['id']: p for p in json.load(open(f'{d}/{name}-{r}-{w}-0.progs.json'))}
            b = {p['id']: p for p in json.load(open(f'{d}/{name}-{r}-{w}-1.progs.json'))}
            reqs = int(re.search(r'(\d+) requests in', open(f'{d}/{name}-{r}-{w}.wrk').read()).group(1))
        except Exception:
            continue
        per = {}
        for i in idset:
            if i not in a or i not in b: continue
            dn = b[i].get('run_time_ns', 0) - a[i].get('run_time_ns', 0)
            dc = b[i].get('run_cnt', 0) - a[i].get('run_cnt', 0)
            if dc > 0: per[b[i]['name']] = (dn, dc, reqs)
        raw.setdefault((name, w), []).append((int(r), per))
for w in wl:
    # floor per-run cost per floor program, median over rounds
    fl = {}
    for r, per in raw.get(('floor', w), []):
        for p, (dn, dc, q) in per.items(): fl.setdefault(p, []).append(dn / dc)
    flm = {p: st.median(v) for p, v in fl.items()}
    print(f'== {w}  (adj: runs beyond the workload\'s own charged at the floor program\'s ns/run and removed)')
    res = {}
    for (n, ww), L in raw.items():
        if ww != w: continue
        for r, per in L:
            tot = 0; progs = {}
            for p, (dn, dc, q) in per.items():
                extra = max(0, dc - EXP.get(p, 0) * q)
                f = flm.get(FLOORMAP.get(p, p), 0)
                own = dn - extra * f
                tot += own
                progs[p] = own / (EXP.get(p, 1) * q)
            res.setdefault(n, []).append((tot / q, progs, r))
    base_f = st.median(x[0] for x in res['floor']) if 'floor' in res else None
    for n in sorted(res):
        v = sorted(x[0] for x in res[n])
        rat = f' {st.median(v)/base_f:.2f}x floor' if base_f else ''
        print(f'{n:8s} adj ns/req median {st.median(v):6.0f} [{v[0]:.0f}-{v[-1]:.0f}] n={len(v)}{rat}')
        for p in sorted(res[n][0][1]):
            pv = sorted(x[1][p] for x in res[n] if p in x[1])
            print(f'      {p:22s} {st.median(pv):6.1f} ns per own run [{pv[0]:.0f}-{pv[-1]:.0f}]')
    # paired differences: base<S> against every <name><S>, or the pairs
    # PAIRS='old:new ...' names
    byr = {n: {x[2]: x[0] for x in res[n]} for n in res}
    for pair in os.environ.get('PAIRS', '').split():
        a_, b_ = pair.split(':')
        if a_ in byr and b_ in byr:
            ds = sorted(byr[b_][r] - byr[a_][r] for r in byr[a_] if r in byr[b_])
            print(f'paired {b_} - {a_}: median {st.median(ds):+.0f} ns/req '
                  f'[{ds[0]:+.0f}..{ds[-1]:+.0f}] n={len(ds)}, '
                  f'{sum(d < 0 for d in ds)} of {len(ds)} rounds lower')
    for a_ in sorted(byr) if not os.environ.get('PAIRS') else []:
        if not a_.startswith('base'):
            continue
        suf = a_[4:]
        for b_ in sorted(byr):
            if b_ == a_ or b_ == 'floor' or b_.startswith('base'):
                continue
            m = re.match(r'^[a-z0-9]+(.*)$', b_)
            if not m or m.group(1) != suf:
                continue
            ds = sorted(byr[b_][r] - byr[a_][r] for r in byr[a_] if r in byr[b_])
            if ds:
                print(f'paired {b_} - {a_}: median {st.median(ds):+.0f} ns/req '
                      f'[{ds[0]:+.0f}..{ds[-1]:+.0f}] n={len(ds)}')
