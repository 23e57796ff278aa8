#!/usr/bin/python3
"""make bench's report: read the boots checks/bench.sh ran, print the table.

    bench-report.py RAW_DIR OUT_DIR

RAW_DIR holds plan.txt (what was planned: workloads, kernels, rounds, one
"run" line per boot) and, per boot, TAG/ (the qemu-test/run.sh --out
directory: serial.txt is the guest's result stream, results.txt the
runner's records) and TAG.out (qemu-test/run.sh's output).
Writes OUT_DIR/table.txt (also printed), bench.csv (one row per kernel,
round and workload), bench.json (the same plus the summary), bench.png
(gnuplot) and report.err (why the report is incomplete, if it is).

Exit status 0 if the report is complete: a cell for every kernel and
workload (a number, or the reason there is none), the CSV, JSON and PNG
written and readable, and every booted kernel gave results.  A workload
that was OOM-killed or timed out is a result (shown as such), not an
incomplete report.  No time is judged.  Python's standard library only.
"""
import csv
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys

NUM = re.compile(r'^-?\d+(\.\d+)?$')


def kv(line):
    out = {}
    for tok in line.split()[1:]:
        if '=' in tok:
            k, v = tok.split('=', 1)
            out[k] = float(v) if NUM.match(v) else v
    return out


def read_plan(raw):
    plan = {'workloads': [], 'variants': [], 'runs': [], 'images': {}}
    with open(os.path.join(raw, 'plan.txt')) as f:
        for line in f:
            w = line.rstrip('\n').split(' ')
            if w[0] == 'workload':
                name, *opts = w[1].split('/')
                plan['workloads'].append(
                    {'name': name, **dict(o.split('=', 1) for o in opts)})
            elif w[0] == 'variant':
                na = ' '.join(w[5:]).strip()
                plan['variants'].append({
                    'label': w[1], 'kernel': w[2], 'cmdline': w[3],
                    'swap': w[4],
                    'na': na[len('n/a:'):].strip() if na.startswith('n/a') else ''})
            elif w[0] == 'run':
                plan['runs'].append({'round': int(w[1]), 'label': w[2], 'tag': w[3]})
            elif w[0] == 'image':
                plan['images'][w[1]] = w[2]
            elif w[0] == 'guest':
                plan['guest'] = ' '.join(w[1:]).strip()
            else:
                plan[w[0]] = ' '.join(w[1:])
    return plan


def why_missing(raw, tag):
    """Why a boot gave no (or not every) result: run.sh's own words."""
    try:
        with open(os.path.join(raw, tag, 'results.txt')) as f:
            m = re.search(r'no result: ([^\n]*)', f.read())
        if m:
            return m.group(1)
    except OSError:
        pass
    try:
        with open(os.path.join(raw, tag + '.out')) as f:
            text = f.read()
    except OSError:
        return 'no run.sh output'
    m = re.search(r'no result: ([^\n]*)', text)
    if m:
        return m.group(1)
    m = re.search(r'^error: ([^\n]*)', text, re.M)
    if m:
        return m.group(1)
    return 'no result (see %s.out)' % tag


def collect(raw, plan):
    rows, infos, boots = [], [], []
    for run in plan['runs']:
        path = os.path.join(raw, run['tag'], 'serial.txt')
        lines = open(path, errors='replace').read().splitlines() if os.path.exists(path) else []
        got, metas = {}, {}
        info = None
        for line in lines:
            if line.startswith('VBENCH-INFO '):
                info = kv(line)
            elif line.startswith('VBENCH-META '):
                m = kv(line)
                metas[m.get('wl')] = m
            elif line.startswith('VBENCH '):
                r = kv(line)
                got[r.get('wl')] = r
        # vswap's metadata (debugfs vswap/metadata total): before, at the peak, after free
        for name, m in metas.items():
            if name in got:
                for k in ('before_kb', 'peak_kb', 'after_kb'):
                    got[name]['meta_' + k] = m.get(k)
        ended = any(line.startswith('VBENCH-END') for line in lines)
        boots.append({**run, 'results': len(got), 'ended': ended,
                      'why': '' if ended else why_missing(raw, run['tag'])})
        if info:
            infos.append({'label': run['label'], **info})
        for wl in plan['workloads']:
            r = got.get(wl['name'])
            if r is None:
                r = {'wl': wl['name'], 'status': 'no-result',
                     'why': boots[-1]['why'] or 'no result line'}
            r = {'kernel': run['label'], 'round': run['round'], **r}
            r['round'] = run['round']
            rows.append(r)
    return rows, infos, boots


def ms(values, fmt):
    if not values:
        return None
    m = statistics.mean(values)
    s = statistics.stdev(values) if len(values) > 1 else 0.0
    return {'mean': m, 'stdev': s, 'n': len(values), 'text': (fmt + ' ± ' + fmt) % (m, s)}


def tput_mib(r):
    if r.get('real_s', 0) > 0 and 'bytes' in r:
        return r['bytes'] / 2**20 / r['real_s']
    return None


METRICS = [
    # key, row title, format, value from a row, workloads it applies to
    ('real', 'real (s)', '%.2f', lambda r: r.get('real_s'), None),
    ('sys', 'sys (s)', '%.2f', lambda r: r.get('sys_s'), None),
    ('user', 'user (s)', '%.2f', lambda r: r.get('user_s'), None),
    ('tput', 'tput (MiB/s)', '%.1f', tput_mib, None),
    ('free', 'free (ms)', '%.1f', lambda r: r.get('free_ms'), 'usemem'),
    ('swapoff', 'swapoff (ms)', '%.1f',
     lambda r: r['swapoff_ms'] if r.get('swapoff_ms', -1) >= 0 else None, 'swapoff'),
]


def summarize(plan, rows):
    """summary[workload][kernel] = {status, metrics{key: ms()}}"""
    summary = {}
    for wl in plan['workloads']:
        summary[wl['name']] = {}
        for v in plan['variants']:
            cell = {'status': 'ok', 'metrics': {}}
            if v['na']:
                cell = {'status': 'n/a', 'why': v['na'], 'metrics': {}}
                summary[wl['name']][v['label']] = cell
                continue
            mine = [r for r in rows if r['kernel'] == v['label'] and r['wl'] == wl['name']]
            ok = [r for r in mine if r.get('status') == 'ok']
            bad = [r for r in mine if r.get('status') != 'ok']
            if not mine:
                cell = {'status': 'no-result', 'why': 'not run', 'metrics': {}}
            elif all(str(r.get('status')).startswith('n/a') for r in mine):
                # the workload does not apply (swapoff with no swap area)
                cell = {'status': 'n/a', 'why': str(mine[0]['status'])[4:], 'metrics': {}}
                summary[wl['name']][v['label']] = cell
                continue
            elif bad:
                kinds = sorted(set(str(r.get('status')).split(':')[0] for r in bad))
                why = sorted(set(r.get('why', '') for r in bad if r.get('why')))
                cell['status'] = 'failed' if not ok else 'partial'
                cell['why'] = '%s in %d of %d rounds%s' % (
                    '/'.join(kinds), len(bad), len(mine), (': ' + why[0]) if why else '')
            for key, _, fmt, get, only in METRICS:
                if only and wl.get('kind') != only:
                    continue
                vals = [x for x in (get(r) for r in ok) if x is not None]
                s = ms(vals, fmt)
                if s:
                    cell['metrics'][key] = s
            summary[wl['name']][v['label']] = cell
    return summary


def cost(plan, rows, infos):
    """Per kernel: swap metadata per GiB swapped, disk, zswap pool."""
    out = {}
    for v in plan['variants']:
        lab = v['label']
        if v['na']:
            out[lab] = {'na': v['na']}
            continue
        mine = [r for r in rows if r['kernel'] == lab and 'at_peak_swapped_kb' in r]
        sw = [r for r in mine if r['at_peak_swapped_kb'] >= 1024]	# >= 1 MiB out
        c = {}
        for key, col in (('slab', 'slab_kb'), ('sunreclaim', 'sunreclaim_kb'),
                         ('vmalloc', 'vmalloc_kb')):
            per = [r[col] / (r['at_peak_swapped_kb'] / 2**20) for r in sw]
            c[key + '_kib_per_gib'] = ms(per, '%.0f')
        c['swapped_peak_mib'] = max((r['at_peak_swapped_kb'] / 1024 for r in mine), default=None)
        c['swaps_used_peak_mib'] = max((r['swaps_used_peak_kb'] / 1024 for r in mine
                                        if r.get('swaps_used_peak_kb', -1) >= 0), default=None)
        c['pool_peak_mib'] = max((r['pool_peak_kb'] / 1024 for r in mine
                                  if r.get('pool_peak_kb', -1) >= 0), default=None)
        ratios = [r['zswapped_peak_kb'] / r['pool_peak_kb'] for r in mine
                  if r.get('pool_peak_kb', 0) > 0 and r.get('zswapped_peak_kb', 0) > 0]
        c['zswap_ratio'] = ms(ratios, '%.2f')
        c['vswap_used_peak'] = max((r['vswap_used_peak'] for r in mine
                                    if r.get('vswap_used_peak', -1) >= 0), default=None)
        # metadata per GiB of vswap slots at the peak, and what stays after free
        vm = [r for r in mine if isinstance(r.get('meta_peak_kb'), (int, float)) and
              r.get('vswap_used_peak', 0) > 0]
        c['meta_peak_kib_per_gib'] = ms([r['meta_peak_kb'] / (r['vswap_used_peak'] * 4096 / 2**30)
                                         for r in vm], '%.0f')
        c['meta_after_kib'] = ms([r['meta_after_kb'] for r in vm if r['meta_after_kb'] >= 0], '%.0f')
        c['slabinfo'] = sorted(set(r.get('slabinfo', '?') for r in mine)) or ['?']
        inf = [i for i in infos if i['label'] == lab]
        if inf:
            i = inf[0]
            c['swap_device_mib'] = i.get('swap_kb', 0) / 1024
            c['swapon_slab_kib'] = i.get('swapon_slab_kb')
            c['swapon_vmalloc_kib'] = i.get('swapon_vmalloc_kb')
            c['kernel_release'] = i.get('kernel')
            c['zswap'] = '%s %s max_pool_percent=%s' % (
                i.get('zswap'), i.get('compressor'), i.get('max_pool_percent'))
        out[lab] = c
    return out


def cell_text(cell, key):
    if cell['status'] == 'n/a':
        return 'n/a'
    m = cell['metrics'].get(key)
    if m is None:
        return 'FAIL' if cell['status'] in ('failed', 'no-result') else '-'
    return m['text'] + ('*' if cell['status'] == 'partial' else '')


def ratio(a, b):
    """Ratio of two means, with its spread: the two relative standard
    deviations added in quadrature (the rounds of two kernels are
    independent boots).  None if either is missing or b is 0."""
    if a is None or b is None or b['mean'] == 0 or a['mean'] == 0:
        return None
    r = a['mean'] / b['mean']
    sd = r * math.sqrt((a['stdev'] / a['mean']) ** 2 + (b['stdev'] / b['mean']) ** 2)
    return {'ratio': r, 'stdev': sd}


def delta_text(cell, base, key):
    if cell['status'] == 'n/a':
        return 'n/a'
    a = cell['metrics'].get(key)
    b = base['metrics'].get(key) if base else None
    if a is None and cell['status'] in ('failed', 'no-result'):
        return 'FAIL'
    q = ratio(a, b)
    if q is None:
        return '-'
    return '%.3f ± %.3f' % (q['ratio'], q['stdev'])


def reference(plan, v):
    """What a kernel is compared with: the first baseline kernel with the
    same swap set-up (zram, MGLRU, ...) that was booted, else the first
    kernel.  None for the reference itself."""
    first = plan['variants'][0]['label']
    for w in plan['variants']:
        if w['kernel'] == 'baseline' and w['swap'] == v['swap'] and not w['na']:
            return None if w['label'] == v['label'] else w['label']
    return None if v['label'] == first else first


def ratios(plan, summary):
    """ratios[workload][kernel][metric] = ratio() to its reference()."""
    out = {}
    for wl in plan['workloads']:
        row = summary[wl['name']]
        out[wl['name']] = {}
        for v in plan['variants']:
            ref = reference(plan, v)
            if ref is None:
                continue
            out[wl['name']][v['label']] = {
                key: ratio(row[v['label']]['metrics'].get(key), row[ref]['metrics'].get(key))
                for key, *_ in METRICS}
            out[wl['name']][v['label']]['ref'] = ref
    return out


def verdict(q):
    """How a ratio reads against its own spread (a reading, not a test)."""
    if q is None:
        return ''
    if abs(q['ratio'] - 1) <= q['stdev']:
        return ' ='
    return ' <' if q['ratio'] < 1 else ' >'


def render(plan, summary, costs, boots):
    labels = [v['label'] for v in plan['variants']]
    base = plan['variants'][0]['label']
    w0 = 14
    cw = max(17, max(len(x) for x in labels) + 2)
    out = []
    line = lambda title, cells: out.append(title.ljust(w0) + ''.join(c.rjust(cw) for c in cells))
    rounds = plan.get('rounds', '?')
    out.append('vswap bench: %s round(s), memory.max %s, data %s (%% incompressible / %% zero pages)%s'
               % (rounds, plan.get('limit'), plan.get('data'),
                  ', TINY (harness check, not a measurement)' if plan.get('tiny') == '1' else ''))
    out.append('guest: %s; kernels: baseline %s, tip %s%s' % (
        plan.get('guest', '?'), plan['images'].get('baseline'), plan['images'].get('tip'),
        '' if plan.get('config_diff', '0') == '0' else
        '; WARNING: .config differs in %s lines besides CONFIG_VSWAP*' % plan['config_diff']))
    out.append('columns: ' + '; '.join(
        '%s = %s%s, %s' % (v['label'], v['kernel'],
                           '' if v['cmdline'] == '-' else ' ' + v['cmdline'],
                           {'swapfile': 'swap area on /dev/vda', 'none': 'no swap device',
                            'zram': 'zram0 as the swap area, zswap off'}.get(
                                v['swap'].split(',')[0], v['swap']) +
                           (', MGLRU on' if v['swap'].endswith(',mglru') else ''))
        for v in plan['variants']))
    out.append('guest clock: %s; %s boot(s) at once' % ({
        'icount': 'icount (guest time follows instructions executed, not cache misses or '
                  'the host\'s load)',
        'host': 'host (wall clock: the host\'s load shows in every time)'}.get(
            plan.get('clock', 'host'), plan.get('clock', '?')), plan.get('jobs', '1')))
    refs = ['%s: %s' % (v['label'], reference(plan, v)) for v in plan['variants']
            if reference(plan, v) and not v['na']]
    out.append('all values mean ± stdev over rounds; delta = ratio of means to the reference '
               '(the baseline kernel with the same swap set-up) ± its stdev (relative stdevs in '
               'quadrature); references: ' + ', '.join(refs))
    rat = ratios(plan, summary)
    others = [lab for lab in labels if lab in rat[plan['workloads'][0]['name']]]
    for key, title in (('real', 'real time'), ('sys', 'sys time')):
        out.append('')
        out.append('%s / reference (ratio ± stdev; = within one stdev of 1.00, < faster, > slower)'
                   % title)
        line('', others)
        for wl in plan['workloads']:
            cells = []
            for lab in others:
                c = summary[wl['name']][lab]
                q = rat[wl['name']][lab][key]
                cells.append('n/a' if c['status'] == 'n/a' else
                             '-' if q is None else
                             '%.3f ± %.3f%s' % (q['ratio'], q['stdev'], verdict(q)))
            line(wl['name'], cells)
    notes = []
    for wl in plan['workloads']:
        spec = ', '.join('%s=%s' % (k, v) for k, v in wl.items() if k != 'name')
        out.append('')
        out.append('%s (%s)' % (wl['name'], spec))
        line('', labels)
        row = summary[wl['name']]
        for key, title, *_ in METRICS:
            if not any(key in row[lab]['metrics'] for lab in labels):
                continue
            line(title, [cell_text(row[lab], key) for lab in labels])
        for key, title, *_ in METRICS:
            if not any(key in row[lab]['metrics'] for lab in labels):
                continue
            line('delta ' + title.split(' ')[0],
                 ['-' if lab not in rat[wl['name']] else
                  delta_text(row[lab], row[rat[wl['name']][lab]['ref']], key) for lab in labels])
        for lab in labels:
            c = row[lab]
            if c['status'] not in ('ok', 'n/a'):
                notes.append((wl['name'], lab, c['status'], c.get('why', '')))
        stat = []
        for lab in labels:
            c = row[lab]
            stat.append({'ok': 'ok', 'n/a': 'n/a', 'partial': 'PARTIAL',
                         'failed': 'FAILED', 'no-result': 'NO RESULT'}[c['status']])
        line('status', stat)

    out.append('')
    out.append('swap cost per kernel (at the sampled peak of each run; per GiB = per GiB swapped out)')
    line('', labels)

    def cl(lab, f):
        c = costs[lab]
        if 'na' in c:
            return 'n/a'
        try:
            return f(c)
        except (TypeError, KeyError):
            return '-'
    fmt_ms = lambda m: '-' if m is None else m['text']
    fmt_mib = lambda x: '-' if x is None else '%.1f' % x
    line('swap device', [cl(l, lambda c: '%.0f MiB' % c['swap_device_mib'] if c['swap_device_mib'] else 'none') for l in labels])
    line('swapon cost', [cl(l, lambda c: '%+d KiB' % (c['swapon_slab_kib'] + c['swapon_vmalloc_kib']) if c['swap_device_mib'] else '-') for l in labels])
    line('Slab/GiB', [cl(l, lambda c: fmt_ms(c['slab_kib_per_gib'])) for l in labels])
    line('SUnrecl/GiB', [cl(l, lambda c: fmt_ms(c['sunreclaim_kib_per_gib'])) for l in labels])
    line('Vmalloc/GiB', [cl(l, lambda c: fmt_ms(c['vmalloc_kib_per_gib'])) for l in labels])
    line('swapped (MiB)', [cl(l, lambda c: fmt_mib(c['swapped_peak_mib'])) for l in labels])
    line('disk used MiB', [cl(l, lambda c: fmt_mib(c['swaps_used_peak_mib'])) for l in labels])
    line('zswap pool MiB', [cl(l, lambda c: fmt_mib(c['pool_peak_mib'])) for l in labels])
    line('zswap ratio', [cl(l, lambda c: fmt_ms(c['zswap_ratio'])) for l in labels])
    line('vswap slots', [cl(l, lambda c: '-' if c['vswap_used_peak'] is None else '%d' % c['vswap_used_peak']) for l in labels])
    line('vswap meta/GiB', [cl(l, lambda c: fmt_ms(c['meta_peak_kib_per_gib'])) for l in labels])
    line('meta after KiB', [cl(l, lambda c: fmt_ms(c['meta_after_kib'])) for l in labels])
    out.append('(KiB per GiB from /proc/meminfo deltas; disk used = /proc/swaps Used, pool = '
               'debugfs zswap/pool_total_size, ratio = memory.stat zswapped / pool: peaks; '
               'vswap meta = debugfs vswap/metadata total at the peak, KiB per GiB of vswap '
               'slots in use, and after the workload freed them; '
               '/proc/slabinfo: %s)' % ', '.join(sorted(set(
                   s for l in labels if 'slabinfo' in costs[l] for s in costs[l]['slabinfo']))))
    out.append('')
    out.append('notes:')
    for v in plan['variants']:
        if v['na']:
            out.append('  %s: n/a, %s' % (v['label'], v['na']))
    for wl, lab, st, why in notes:
        out.append('  %s %s: %s (%s)' % (lab, wl, st.upper(), why))
    bad = [b for b in boots if not b['ended']]
    for b in bad:
        out.append('  boot %s (round %d): %s' % (b['label'], b['round'], b['why']))
    out.append('(* = mean of the rounds that completed; FAIL = no round completed)')
    return '\n'.join(out) + '\n'


def write_csv(path, rows):
    keys = ['kernel', 'round', 'wl', 'kind', 'status', 'why', 'procs', 'size_mb', 'limit_mb',
            'real_s', 'user_s', 'sys_s', 'work_s', 'free_ms', 'swapoff_ms', 'memcg', 'bytes', 'tput_mib_s',
            'swap_peak_kb', 'zswapped_peak_kb', 'pool_peak_kb', 'stored_peak',
            'swaps_used_peak_kb', 'vswap_used_peak', 'at_peak_swapped_kb', 'at_peak_pool_kb',
            'slab_kb', 'sunreclaim_kb', 'vmalloc_kb', 'pagetables_kb', 'oom_kill',
            'zswpout', 'zswpin', 'pgmajfault', 'slabinfo',
            'meta_before_kb', 'meta_peak_kb', 'meta_after_kb']
    with open(path, 'w', newline='') as f:
        w = csv.DictWriter(f, fieldnames=keys, extrasaction='ignore')
        w.writeheader()
        for r in rows:
            t = tput_mib(r) if r.get('status') == 'ok' else None
            w.writerow({**r, 'tput_mib_s': '' if t is None else '%.2f' % t})
    return len(rows)


def plot(out, plan, summary):
    """Grouped bars, real and sys time per workload and kernel, stdev as error bars."""
    gp = shutil.which('gnuplot')
    if not gp:
        return 'gnuplot not installed (checks/packages.txt: gnuplot-nox)'
    labels = [v['label'] for v in plan['variants'] if not v['na']]
    dat = os.path.join(out, 'plot.dat')
    with open(dat, 'w') as f:
        for key in ('real', 'sys'):
            f.write('# %s\n' % key)
            for wl in plan['workloads']:
                cells = []
                for lab in labels:
                    m = summary[wl['name']][lab]['metrics'].get(key)
                    # no bar for a failed cell (gnuplot rejects an all-NaN column)
                    cells += ['%.4f %.4f' % (m['mean'], m['stdev'])] if m else ['0 0']
                f.write('%s %s\n' % (wl['name'], ' '.join(cells)))
            f.write('\n\n')
        # index 2: real time against the first kernel, in % (ratio - 1),
        # the ratio's stdev as the error bar
        f.write('# real / reference - 1, %\n')
        rat = ratios(plan, summary)
        rlabels = [lab for lab in labels if lab in rat[plan['workloads'][0]['name']]]
        for wl in plan['workloads']:
            cells = []
            for lab in rlabels:
                q = rat[wl['name']][lab]['real']
                cells += ['%.3f %.3f' % ((q['ratio'] - 1) * 100, q['stdev'] * 100)] if q else ['0 0']
            f.write('%s %s\n' % (wl['name'], ' '.join(cells)))
    png = os.path.join(out, 'bench.png')
    # each kernel keeps its colour (lt) in every panel
    rparts = ', '.join(
        "'%s' index 2 using %d:%d%s lt %d title '%s'" % (
            dat, 2 + 2 * i, 3 + 2 * i, ':xtic(1)' if i == 0 else '', labels.index(lab) + 1,
            lab.replace('_', '\\_'))
        for i, lab in enumerate(rlabels))
    parts = ', '.join(
        "'%s' index IDX using %d:%d%s lt %d title '%s'" % (
            dat, 2 + 2 * i, 3 + 2 * i, ':xtic(1)' if i == 0 else '', i + 1, lab.replace('_', '\\_'))
        for i, lab in enumerate(labels))
    failed = ['%s/%s' % (wl['name'], lab) for wl in plan['workloads'] for lab in labels
              if summary[wl['name']][lab]['status'] in ('failed', 'no-result')]
    script = '''set terminal pngcairo size 1200,1300 noenhanced font ",10"
set output '%s'
set multiplot layout 3,1 title "vswap bench: mean ± stdev over %s round(s), memory.max %s%s"
set style data histograms
set style histogram errorbars gap 2 lw 1
set style fill solid 0.8 border -1
set key outside right top
set grid ytics
set yrange [0:*]
set ylabel "real time (s)"
plot %s
set ylabel "sys time (s)"
plot %s
set ylabel "real time vs %s (%%, ± stdev)"
set yrange [*:*]
set xzeroaxis lt -1
plot %s
unset multiplot
''' % (png, plan.get('rounds'), plan.get('limit'),
       ('\\nno bar: failed (' + ', '.join(failed) + ')') if failed else '',
       parts.replace('IDX', '0'), parts.replace('IDX', '1'), 'the reference', rparts)
    with open(os.path.join(out, 'plot.gp'), 'w') as f:
        f.write(script)
    p = subprocess.run([gp, os.path.join(out, 'plot.gp')], capture_output=True, text=True)
    if p.returncode != 0:
        return 'gnuplot failed: ' + p.stderr.strip().splitlines()[-1] if p.stderr.strip() else 'gnuplot failed'
    return None


def main():
    raw, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    for f in ('table.txt', 'bench.csv', 'bench.json', 'bench.png', 'report.err'):
        try:
            os.remove(os.path.join(out, f))
        except FileNotFoundError:
            pass
    plan = read_plan(raw)
    rows, infos, boots = collect(raw, plan)
    summary = summarize(plan, rows)
    costs = cost(plan, rows, infos)
    table = render(plan, summary, costs, boots)
    with open(os.path.join(out, 'table.txt'), 'w') as f:
        f.write(table)
    sys.stdout.write(table)
    ncsv = write_csv(os.path.join(out, 'bench.csv'), rows)
    doc = {'plan': plan, 'boots': boots, 'runs': rows, 'summary': summary,
           'ratios': ratios(plan, summary),
           'swap_cost': costs, 'kernel_info': infos}
    with open(os.path.join(out, 'bench.json'), 'w') as f:
        json.dump(doc, f, indent=1, sort_keys=True,
                  default=lambda x: None if isinstance(x, float) and math.isnan(x) else x)
    perr = plot(out, plan, summary)

    # Is it complete?
    problems = []
    if perr:
        problems.append(perr)
    png = os.path.join(out, 'bench.png')
    if not perr and not (os.path.exists(png) and open(png, 'rb').read(8) == b'\x89PNG\r\n\x1a\n'):
        problems.append('bench.png missing or not a PNG')
    nrun = len([v for v in plan['variants'] if not v['na']])
    want = nrun * int(plan.get('rounds', 0)) * len(plan['workloads'])
    with open(os.path.join(out, 'bench.csv')) as f:
        got = sum(1 for _ in csv.DictReader(f))
    if got != want or ncsv != want:
        problems.append('bench.csv has %d rows, expected %d' % (got, want))
    with open(os.path.join(out, 'bench.json')) as f:
        back = json.load(f)
    if len(back.get('runs', [])) != want:
        problems.append('bench.json has %d runs, expected %d' % (len(back.get('runs', [])), want))
    for b in boots:
        if b['results'] == 0:
            problems.append('boot %s round %d gave no results: %s' % (b['label'], b['round'], b['why']))
    for wl in plan['workloads']:
        for v in plan['variants']:
            c = summary[wl['name']][v['label']]
            if c['status'] != 'ok' and not c.get('why'):
                problems.append('cell %s/%s has neither a value nor a reason' % (wl['name'], v['label']))
    sys.stdout.write('results: %s/{table.txt,bench.csv,bench.json,bench.png}\n' % out)
    if problems:
        with open(os.path.join(out, 'report.err'), 'w') as f:
            f.write('\n'.join(problems) + '\n')
        sys.stderr.write('bench report incomplete:\n  ' + '\n  '.join(problems) + '\n')
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
