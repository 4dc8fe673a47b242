#!/usr/bin/env python3
"""What scripts/asan-select decides, from its coverage run (issue #46 item 7).

Each test of each suite left its netstacklat's gcov data under
WORK/data/SUITE/TEST/ (the object directories below that) and its RESULT
line, with the time it came, in WORK/SUITE.log. A test reaches a set of
items: (file, line) for each line of src/ run at least once, and
(file, line, n) for each branch taken. The tests kept are chosen greedily
by new items per second, then any kept test whose items the other kept
ones all reach is dropped again (the most expensive first). The rest are
written to --out, one "suite<TAB>test" per line, under a header with the
numbers. Tests that did not pass in the coverage run are never written.
"""
import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

RESULT = re.compile(r'^(\d+\.\d+) RESULT (PASS|FAIL|SKIP) (\S+)')


def results(log):
    """{test: (verdict, seconds)} from a suite's time-stamped log."""
    out = {}
    with open(log) as f:
        lines = f.readlines()
    prev = float(lines[0].split(' ', 1)[0]) if lines else 0.0
    for line in lines:
        m = RESULT.match(line)
        if m:
            t = float(m.group(1))
            out[m.group(3)] = (m.group(2), max(t - prev, 0.1))
            prev = t
    return out


def reached(tree, testdir):
    """The items of src/ that one test's gcov data says were reached."""
    gcdas = [os.path.join(d, f) for d, _, fs in os.walk(testdir)
             for f in fs if f.endswith('.gcda')]
    items = set()
    if not gcdas:
        return items
    tmp = tempfile.mkdtemp()
    try:
        names = []
        for gcda in gcdas:
            # the data's path below the prefix is the object's own path
            rel = os.path.relpath(gcda, testdir)
            obj = '/' + rel[:-len('.gcda')]
            if not obj.startswith(tree + '/') or not os.path.exists(obj + '.gcno'):
                continue
            base = os.path.basename(obj)	# unique: src/ has no two alike
            shutil.copy(gcda, os.path.join(tmp, base + '.gcda'))
            shutil.copy(obj + '.gcno', os.path.join(tmp, base + '.gcno'))
            names.append(os.path.join(tmp, base + '.gcda'))
        out = subprocess.run(['gcov', '-j', '-t', '-b', '-o', tmp] + names,
                             cwd=tree, capture_output=True, text=True,
                             check=True).stdout
    finally:
        shutil.rmtree(tmp)
    for doc in out.splitlines():
        if not doc.startswith('{'):
            continue
        for f in json.loads(doc)['files']:
            if not f['file'].startswith('src/'):
                continue
            for line in f['lines']:
                if line['count'] > 0:
                    items.add((f['file'], line['line_number']))
                for n, b in enumerate(line.get('branches', [])):
                    if b['count'] > 0:
                        items.add((f['file'], line['line_number'], n))
    return items


def choose(tests, secs):
    """Greedy weighted cover, then the redundant ones dropped again."""
    left = set().union(*tests.values()) if tests else set()
    kept = []
    while left:
        best = max(tests, key=lambda t: (len(tests[t] & left) / secs[t], t))
        if not tests[best] & left:
            break
        kept.append(best)
        left -= tests[best]
    for t in sorted(kept, key=lambda t: -secs[t]):
        others = set().union(*(tests[o] for o in kept if o != t))
        if tests[t] <= others:
            kept.remove(t)
    return kept


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--tree', required=True)
    ap.add_argument('--work', required=True)
    ap.add_argument('--commit', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('suites', nargs='+')
    a = ap.parse_args()
    tree = os.path.realpath(a.tree)

    tests, secs, verdicts = {}, {}, {}
    for s in a.suites:
        for t, (v, sec) in results(os.path.join(a.work, s + '.log')).items():
            key = (s, t)
            verdicts[key], secs[key] = v, sec
            tests[key] = reached(tree, os.path.join(a.work, 'data', s, t))
    failed = [f'{s}/{t}' for (s, t), v in verdicts.items() if v == 'FAIL']
    if failed:
        print('asan-select: failed in the coverage run, nothing written:',
              ' '.join(failed), file=sys.stderr)
        return 1
    passed = {k: v for k, v in tests.items() if verdicts[k] == 'PASS'}
    kept = choose(passed, secs)
    out = sorted(k for k in passed if k not in kept)
    every = set().union(*tests.values())
    lines = sum(1 for i in every if len(i) == 2)
    total = sum(secs.values())
    kept_s = total - sum(secs[k] for k in out)

    print(f'{len(tests)} tests reach {lines} lines and {len(every) - lines} '
          f'branches of src/ in {total:.0f} s; {len(tests) - len(out)} '
          f'tests reach all of them in {kept_s:.0f} s')
    for k in sorted(kept, key=lambda k: -secs[k]):
        print(f'  kept {k[0]}/{k[1]}  {secs[k]:.1f} s')
    with open(a.out, 'w') as f:
        f.write(
            '# Tests that test_sanitizers.sh does not rerun under ASan: each\n'
            '# reaches no line and no branch of src/ that the tests it reruns\n'
            '# do not. Written by scripts/asan-select (issue #46 item 7) from\n'
            f'# {a.commit} on {datetime.date.today()}: {len(tests)} tests reached '
            f'{lines} lines and\n# {len(every) - lines} branches in {total:.0f} s '
            f'of a --coverage build; {len(tests) - len(out)} reach them all\n'
            f'# in {kept_s:.0f} s. A test not listed is rerun. Choose again after '
            'adding\n# tests to these suites or moving what they reach.\n')
        for s, t in out:
            f.write(f'{s}\t{t}\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
