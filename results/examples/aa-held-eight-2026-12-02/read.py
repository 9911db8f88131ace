# Written for docs/measured/2026-12-02-aa-held-eight.md; paths are this machine's: python3 read.py aa8:a:b
"""Tables for the 2026-12-02 page from /tmp/m3 suites: the results are
copied with scenario.KIND.cost_n = 500 (the default of the client that
records it; the client that ran did not use it), then compared."""
import glob, json, os, subprocess, sys
CMP = '/work/wt-31/scripts/compare'
def inject(src, dst):
    for f in glob.glob(f'{src}/*/*.json'):
        d = json.load(open(f))
        k = (d.get('scenario') or {}).get('kind', 'sweep')
        if k in d.get('scenario', {}):
            d['scenario'][k].setdefault('cost_n', 500)
        out = f.replace(src, dst)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        json.dump(d, open(out, 'w'))
def cell(m):
    if not m or m.get('ratio') is None: return '—'
    lo, hi = m.get('ci_low'), m.get('ci_high')
    iv = f" [{lo:.2f}–{hi:.2f}]" if lo is not None and hi is not None else ''
    return f"{m['ratio']:.2f}{iv} {m['verdict']}"
for name, a, b in [x.split(':') for x in sys.argv[1:]]:
    src, dst = f'/tmp/m3/{name}', f'/tmp/m3/recost-{name}'
    if not os.path.isdir(src): continue
    inject(src, dst)
    j = json.loads(subprocess.run([CMP, f'{dst}/{a}', f'{dst}/{b}', '--format', 'json'], capture_output=True, text=True).stdout)
    txt = subprocess.run([CMP, f'{dst}/{a}', f'{dst}/{b}'], capture_output=True, text=True).stdout
    open(f'/tmp/m3/{name}-compare.txt', 'w').write(txt)
    print(f'### {name}: {b} against {a}')
    print('| scenario | crossing N a | b | crossing B/A | server CPU B/A | PSS B/A | scenario verdict |')
    print('|---|---|---|---|---|---|---|')
    flagged = 0
    for s in j['scenarios']:
        m = s['metrics']
        ca = ', '.join(f"{x:.0f}" for x in m['crossing_n']['a_values'] if x is not None)
        cb = ', '.join(f"{x:.0f}" for x in m['crossing_n']['b_values'] if x is not None)
        pss = next((v for k, v in m.items() if k.endswith('_kb')), None)
        print(f"| {s['scenario']} | {ca} | {cb} | {cell(m['crossing_n'])} | {cell(m['server_cpu_us'])} | {cell(pss)} | {s['verdict']} |")
        flagged += s['verdict'] not in ('same', 'inconclusive', 'negligible', 'n/a')
    for k, m in j['suite'].items():
        print(f"| suite {k} | | | {cell(m)} | | | |")
    print('suite verdict:', j.get('suite_verdict'), '; scenarios flagged (not same/inconclusive):', flagged, 'of', len(j['scenarios']))
    for line in txt.splitlines():
        if line.startswith(('Interference', 'Place', 'Smallest', 'Suite verdict')) or 'place effect' in line:
            print('  ', line[:400])
    print()
