#!/usr/bin/python3
"""make profile's table: two runs of qemu-test/guest/profile.c, compared.

    profile-report.py [--top N] [--title T] [--labels A,B] ON_SERIAL OFF_SERIAL

Each SERIAL is a run's result stream (VPROF-INFO, VPROF fn= hits= ns=,
VPROF-END).  Prints the totals, the time per page swapped, and the N
functions whose own time differs most between the runs.  The runs are
called vswap=on and vswap=off unless --labels names them (make profile
BASELINE=1: the series with vswap=off against the baseline kernel).  Exit
status 1 if a run is incomplete.  Python's standard library only.
"""
import argparse
import sys


def read(path):
    info, fns, ended = None, {}, False
    with open(path, errors='replace') as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            if w[0] == 'VPROF-INFO':
                info = dict(t.split('=', 1) for t in w[1:] if '=' in t)
            elif w[0] == 'VPROF':
                d = dict(t.split('=', 1) for t in w[1:] if '=' in t)
                fns[d['fn']] = (int(d['hits']), float(d['ns']))
            elif w[0] == 'VPROF-END':
                ended = True
    return info, fns, ended


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--top', type=int, default=40)
    ap.add_argument('--title', default='')
    ap.add_argument('--labels', default='vswap=on,vswap=off')
    ap.add_argument('on')
    ap.add_argument('off')
    a = ap.parse_args()
    names = a.labels.split(',')
    if len(names) != 2 or '' in names:
        ap.error("--labels takes two names, 'A,B'")
    label = dict(zip(('on', 'off'), names))
    runs = {}
    for mode, path in (('on', a.on), ('off', a.off)):
        info, fns, ended = read(path)
        if not info or not ended or not fns:
            sys.stderr.write('profile: the %s run is incomplete (%s)\n' % (label[mode], path))
            return 1
        runs[mode] = (info, fns)
    print('kernel profile %s: %s against %s, each function\'s own time '
          '(guest icount ms, every function traced)' % (a.title, label['on'], label['off']))
    tot, width = {}, max(len(s) for s in label.values())
    for mode in ('on', 'off'):
        info, fns = runs[mode]
        tot[mode] = sum(ns for _, ns in fns.values())
        pages = sum(int(info.get(k, 0)) for k in ('pswpout', 'zswpout', 'pswpin', 'zswpin'))
        print('  %-*s workload %7.2f s; kernel functions %9.1f ms in all; '
              'pswpout %s, zswpout %s, pswpin %s, zswpin %s, majfault %s; '
              '%.2f us per page swapped out or in'
              % (width, label[mode], float(info['real_s']), tot[mode] / 1e6, info['pswpout'],
                 info['zswpout'], info['pswpin'], info['zswpin'], info['pgmajfault'],
                 tot[mode] / 1e3 / pages if pages else float('nan')))
    print('  ratio %s / %s of the functions\' time: %.3f'
          % (label['on'], label['off'], tot['on'] / tot['off']))
    on, off = runs['on'][1], runs['off'][1]
    names = set(on) | set(off)
    rows = sorted(names, key=lambda n: -abs(on.get(n, (0, 0))[1] - off.get(n, (0, 0))[1]))
    print()
    if a.labels == ap.get_default('labels'):
        print('%-36s %10s %10s %10s %10s %10s' % ('function (by |difference|)', 'on ms', 'off ms',
                                                   'on-off ms', 'on hits', 'off hits'))
    else:
        print('columns: ms and hits of %s (1), of %s (2)' % (label['on'], label['off']))
        print('%-36s %10s %10s %10s %10s %10s' % ('function (by |difference|)', 'ms 1', 'ms 2',
                                                   '1-2 ms', 'hits 1', 'hits 2'))
    for n in rows[:a.top]:
        h1, t1 = on.get(n, (0, 0))
        h0, t0 = off.get(n, (0, 0))
        print('%-36s %10.1f %10.1f %+10.1f %10d %10d' % (n[:36], t1 / 1e6, t0 / 1e6,
                                                        (t1 - t0) / 1e6, h1, h0))
    vs = sorted((n for n in on if n.startswith('vswap')), key=lambda n: -on[n][1])
    print()
    print('vswap functions, %s: ' % label['on'] + ', '.join(
        '%s %.1f ms (%d)' % (n, on[n][1] / 1e6, on[n][0]) for n in vs[:20]))
    return 0


if __name__ == '__main__':
    sys.exit(main())
