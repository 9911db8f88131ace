"""A CI workflow file read as the steps to run here: scripts/ci-yaml-run's
pure half (its command, orbbench.commands.ci_yaml_run, runs them). Two
dialects: a GitHub Actions workflow (jobs.JOB.steps, each a `run:` or a
`uses:`), and a GitLab CI file (a job's before_script and script lines,
run by GitLab in one shell). Also the small part of GitHub's expression
language the workflows use (`${{ a.b.c }}`, the status functions of
`if:`), GitLab's $VARIABLE expansion, the files a GitHub step writes
($GITHUB_OUTPUT, $GITHUB_ENV), and a JUnit file summed up in lines.
Anything else is a BadWorkflow naming the file and the place, never a
guess. Needs PyYAML (Debian python3-yaml)."""
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

import yaml

import orbbench.escape as orbesc

# GitHub's default bounds: a job (and each of its steps) 360 minutes; a
# GitLab job 60.
GITHUB_TIMEOUT_S = 360 * 60
GITLAB_TIMEOUT_S = 60 * 60
# GitLab's top-level keys that are not jobs.
GITLAB_GLOBAL = frozenset({"default", "include", "stages", "variables",
                           "workflow", "image", "services", "cache",
                           "before_script", "after_script", "spec"})
# A JUnit file larger than this is not read (it comes from the measured
# side of a pull request).
JUNIT_MAX_BYTES = 16 << 20
JUNIT_MAX_CASES = 60    # test cases listed one a line; the rest counted


class BadWorkflow(Exception):
    """One line: the file and what in it cannot be read or run here."""


@dataclass
class Step:
    """One step of a job. run: its shell text (None for a uses: step);
    uses: the action ("actions/cache@v4"); with_: its inputs; cond: its
    if: text ("" when none); timeout_s: its own bound (None: the job's)."""
    number: int
    name: str
    run: str = None
    uses: str = None
    with_: dict = field(default_factory=dict)
    cond: str = ""
    env: dict = field(default_factory=dict)
    workdir: str = None
    shell: str = None
    step_id: str = None
    timeout_s: float = None


@dataclass
class Job:
    """A job to run: its dialect ("github" or "gitlab"), steps (GitLab:
    one a script line), environment as written (GitHub: workflow and job
    env, values not yet evaluated; GitLab: global and job variables, in
    order), its bound, and what the runner only describes (notes: the
    machine it asks for; GitLab's cache and JUnit report)."""
    dialect: str
    name: str
    steps: list
    env: dict
    timeout_s: float
    shell: str = None
    workdir: str = None
    notes: list = field(default_factory=list)
    cache_key: str = None
    cache_paths: list = field(default_factory=list)
    junit_paths: list = field(default_factory=list)


def load(path):
    """The workflow file at path as a dict; BadWorkflow when it is not a
    YAML mapping."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = yaml.safe_load(f)
    except (OSError, yaml.YAMLError, UnicodeDecodeError) as e:
        raise BadWorkflow(f"{path}: {one_line(e)}") from None
    if not isinstance(doc, dict):
        raise BadWorkflow(f"{path}: not a YAML mapping")
    return doc


def one_line(e):
    return " ".join(str(e).split())


def dialect(doc):
    """"github" for a document with jobs:, else "gitlab"."""
    return "github" if isinstance(doc.get("jobs"), dict) else "gitlab"


def job_names(doc):
    """The jobs of a workflow, in order."""
    if dialect(doc) == "github":
        return list(doc["jobs"])
    return [k for k, v in doc.items()
            if isinstance(k, str) and k not in GITLAB_GLOBAL and
            not k.startswith(".") and isinstance(v, dict) and "script" in v]


def job(doc, name, path):
    """The Job called name (None: the only job)."""
    names = job_names(doc)
    if name is None:
        if len(names) != 1:
            raise BadWorkflow(f"{path}: {len(names)} jobs "
                              f"({', '.join(names) or 'none'}): give --job")
        name = names[0]
    if name not in names:
        raise BadWorkflow(f"{path}: no job \"{name}\" (jobs: "
                          f"{', '.join(names) or 'none'})")
    if dialect(doc) == "github":
        return _github_job(doc, name, path)
    return _gitlab_job(doc, name, path)


def _mapping(value, where):
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise BadWorkflow(f"{where}: not a mapping")
    return {str(k): "" if v is None else _scalar(v, f"{where}.{k}")
            for k, v in value.items()}


def _scalar(v, where):
    """A YAML scalar as the text CI gives it (true -> "true")."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (str, int, float)):
        return str(v)
    raise BadWorkflow(f"{where}: not a string")


def _minutes(v, where):
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v <= 0:
        raise BadWorkflow(f"{where}: not a positive number of minutes")
    return v * 60.0


def _github_job(doc, name, path):
    j = doc["jobs"][name]
    where = f"{path}: jobs.{name}"
    if not isinstance(j, dict) or not isinstance(j.get("steps"), list):
        raise BadWorkflow(f"{where}: no steps")
    defaults = ((j.get("defaults") or doc.get("defaults") or {})
                .get("run") or {})
    env = _mapping(doc.get("env"), f"{path}: env")
    env.update(_mapping(j.get("env"), f"{where}.env"))
    notes = []
    if "runs-on" in j:
        notes.append(f"runs-on {j['runs-on']}: not used, the steps run on "
                     "this machine")
    c = j.get("container")
    if c:
        image = c.get("image") if isinstance(c, dict) else c
        opts = c.get("options", "") if isinstance(c, dict) else ""
        notes.append(f"container {image} {opts}".rstrip() +
                     ": not started, the steps run on this machine")
    steps = []
    for i, s in enumerate(j["steps"], 1):
        sw = f"{where}.steps[{i}]"
        if not isinstance(s, dict) or ("run" in s) == ("uses" in s):
            raise BadWorkflow(f"{sw}: a step has one of run: or uses:")
        run = s.get("run")
        if run is not None and not isinstance(run, str):
            raise BadWorkflow(f"{sw}.run: not a string")
        label = s.get("name") or (
            f"Run {run.strip().splitlines()[0]}" if run is not None
            else f"Run {s['uses']}")
        cond = s.get("if", "")
        steps.append(Step(
            number=i, name=str(label), run=run, uses=s.get("uses"),
            with_=_mapping(s.get("with"), f"{sw}.with"),
            cond=_scalar(cond, f"{sw}.if"),
            env=_mapping(s.get("env"), f"{sw}.env"),
            workdir=s.get("working-directory"), shell=s.get("shell"),
            step_id=s.get("id"),
            timeout_s=_minutes(s.get("timeout-minutes"),
                               f"{sw}.timeout-minutes")))
    timeout = _minutes(j.get("timeout-minutes"), f"{where}.timeout-minutes")
    return Job(dialect="github", name=name, steps=steps, env=env,
               timeout_s=timeout or GITHUB_TIMEOUT_S,
               shell=defaults.get("shell"),
               workdir=defaults.get("working-directory"), notes=notes)


def _lines(value, where):
    """A GitLab script: a string or a list of strings (nested lists
    flattened, as GitLab does)."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list):
        raise BadWorkflow(f"{where}: not a list of lines")
    out = []
    for k, v in enumerate(value, 1):
        if isinstance(v, list):
            out += _lines(v, f"{where}[{k}]")
        elif isinstance(v, str):
            out.append(v)
        else:  # e.g. `- echo "a: b"` unquoted: YAML reads a mapping
            raise BadWorkflow(f"{where}[{k}]: not a string (a line with "
                              "\": \" must be quoted)")
    return out


def duration_s(text, where):
    """GitLab's timeout ("90m", "1h 30m", "3600") in seconds."""
    units = {"h": 3600, "m": 60, "s": 1}
    t = str(text).strip().lower()
    if t.isdigit():
        return float(t)
    parts = re.findall(r"(\d+)\s*([hms])[a-z]*", t)
    if not parts or re.sub(r"(\d+)\s*([hms])[a-z]*|\s", "", t):
        raise BadWorkflow(f"{where}: not a duration (e.g. 90m)")
    return float(sum(int(n) * units[u] for n, u in parts))


def _gitlab_job(doc, name, path):
    j = doc[name]
    where = f"{path}: {name}"
    env = _mapping(doc.get("variables"), f"{path}: variables")
    env.update(_mapping(j.get("variables"), f"{where}.variables"))
    lines = _lines(j.get("before_script", doc.get("before_script")),
                   f"{where}.before_script")
    lines += _lines(j["script"], f"{where}.script")
    steps = [Step(number=i, name=line, run=line)
             for i, line in enumerate(lines, 1)]
    notes = []
    image = j.get("image", doc.get("image"))
    if image:
        notes.append(f"image {image}: not started, the script runs on this "
                     "machine")
    if j.get("tags"):
        notes.append(f"tags {', '.join(map(str, j['tags']))}: no runner "
                     "chosen, this machine runs it")
    if j.get("rules"):
        notes.append("rules: not evaluated, the job runs as in a merge "
                     "request pipeline")
    if j.get("after_script"):
        notes.append("after_script: not run here")
    cache = j.get("cache", doc.get("cache")) or {}
    if not isinstance(cache, dict):
        raise BadWorkflow(f"{where}.cache: one cache (a mapping) only")
    reports = ((j.get("artifacts") or {}).get("reports") or {})
    junit = reports.get("junit") or []
    timeout = j.get("timeout")
    return Job(dialect="gitlab", name=name, steps=steps, env=env,
               timeout_s=duration_s(timeout, f"{where}.timeout")
               if timeout else GITLAB_TIMEOUT_S, notes=notes,
               cache_key=_scalar(cache["key"], f"{where}.cache.key")
               if "key" in cache else None,
               cache_paths=_lines(cache.get("paths"), f"{where}.cache.paths"),
               junit_paths=_lines(junit, f"{where}.artifacts.reports.junit"))


# ---- GitHub's expressions -------------------------------------------------

EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
PATH = re.compile(r"[A-Za-z_][\w-]*(\.[A-Za-z_][\w-]*)*$")
# A step's if: (as written, or inside ${{ }}) -> (runs while every step
# before it passed, runs after one failed). No other condition is read.
CONDITIONS = {"": (True, False), "success()": (True, False),
              "always()": (True, True), "!cancelled()": (True, True),
              "success() || failure()": (True, True),
              "failure()": (False, True), "cancelled()": (False, False)}


def evaluate(expr, context, where):
    """One expression: a property path into context (github.sha,
    env.NAME, steps.ID.outputs.NAME; a missing one is "", as GitHub has
    it) or a 'string'."""
    if re.fullmatch(r"'(?:[^']|'')*'", expr):
        return expr[1:-1].replace("''", "'")
    if not PATH.match(expr):
        raise BadWorkflow(f"{where}: cannot evaluate ${{{{ {expr} }}}} "
                          "here (a property path or a 'string' only)")
    value = context
    for part in expr.split("."):
        value = value.get(part, "") if isinstance(value, dict) else ""
    return "" if isinstance(value, dict) else str(value)


def substitute(text, context, where):
    """text with each ${{ … }} replaced by its value."""
    if text is None:
        return None
    return EXPR.sub(lambda m: evaluate(m.group(1), context, where), text)


def runs(cond, failed, where):
    """Does a step with this if: run, failed saying whether an earlier
    step failed?"""
    c = cond.strip()
    m = re.fullmatch(r"\$\{\{\s*(.*?)\s*\}\}", c)
    c = " ".join((m.group(1) if m else c).split())
    if c not in CONDITIONS:
        raise BadWorkflow(f"{where}: cannot evaluate if: {cond} here (known: "
                          f"{', '.join(k for k in CONDITIONS if k)})")
    return CONDITIONS[c][1 if failed else 0]


def file_commands(text, where):
    """{name: value} from what a step wrote to $GITHUB_OUTPUT or
    $GITHUB_ENV: NAME=VALUE lines and NAME<<DELIMITER … DELIMITER
    blocks."""
    out, lines = {}, text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line.strip():
            continue
        m = re.match(r"([^=<]+)<<(.+)$", line)
        if m:
            body = []
            while i < len(lines) and lines[i] != m.group(2):
                body.append(lines[i])
                i += 1
            if i == len(lines):
                raise BadWorkflow(f"{where}: no closing {m.group(2)}")
            i += 1
            out[m.group(1)] = "\n".join(body)
        elif "=" in line:
            k, v = line.split("=", 1)
            out[k] = v
        else:
            raise BadWorkflow(f"{where}: not NAME=VALUE: {line[:80]}")
    return out


# ---- GitLab's variables ---------------------------------------------------

VARIABLE = re.compile(r"\$(?:\{(\w+)\}|(\w+))")


def expand(text, env):
    """$NAME and ${NAME} replaced by env's value; an undefined one left
    as it is."""
    def one(m):
        name = m.group(1) or m.group(2)
        return env.get(name, m.group(0))
    return VARIABLE.sub(one, text)


def expand_all(variables, env):
    """env, then variables in order, each expanded with what is defined
    before it (GitLab expands job variables so)."""
    out = dict(env)
    for k, v in variables.items():
        out[k] = expand(v, out)
    return out


# ---- what a uses: step would do -------------------------------------------

def _checkout(w):
    what = w.get("repository") or "the repository"
    ref = f" at {w['ref']}" if w.get("ref") else ""
    return f"would check out {what}{ref} into {w.get('path') or '.'}"


def _paths(w):
    return ", ".join(p for p in w.get("path", "").splitlines() if p)


def _cache(w):
    return (f"would restore {_paths(w)} under the cache key "
            f"{w.get('key', '')} (and save it at the end of a job that "
            "passed, when there was none)")


def _restore(w):
    return (f"would restore {_paths(w)} under the cache key "
            f"{w.get('key', '')}, if there is one")


def _save(w):
    return (f"would save {_paths(w)} under the cache key "
            f"{w.get('key', '')}, unless that key is saved already")


def _upload(w):
    return f"would upload {_paths(w)} as the artifact {w.get('name', '')}"


def _junit(w):
    return (f"would show {w.get('report_paths', '')} in the job (here: "
            "summed up below)")


# Action (without @version) -> (what it would do, from its inputs; the
# input naming JUnit files the runner sums up, or None).
ACTIONS = {
    "actions/checkout": (_checkout, None),
    "actions/cache": (_cache, None),
    "actions/cache/restore": (_restore, None),
    "actions/cache/save": (_save, None),
    "actions/upload-artifact": (_upload, None),
    "mikepenz/action-junit-report": (_junit, "report_paths"),
    "dorny/test-reporter": (_junit, "path"),
}


def action(uses):
    """The ACTIONS row of a uses: value, or None."""
    return ACTIONS.get(uses.split("@", 1)[0])


# ---- JUnit ----------------------------------------------------------------

def junit_lines(text, label):
    """A JUnit document summed up: a line of counts, then one line a test
    case (pass, FAIL with its message, skip), at most JUNIT_MAX_CASES;
    every name escaped for the terminal. ValueError when it is no JUnit."""
    try:
        root = ET.fromstring(text)
    except ET.ParseError as e:
        raise ValueError(f"{label}: not XML ({e})") from None
    if root.tag not in ("testsuites", "testsuite"):
        raise ValueError(f"{label}: not JUnit (root <{root.tag}>)")
    cases = list(root.iter("testcase"))
    rows, fails, skips = [], 0, 0
    for c in cases:
        bad = c.find("failure")
        if bad is None:
            bad = c.find("error")
        name = " ".join(orbesc.terminal(c.get(k, ""))
                        for k in ("classname", "name"))
        if bad is not None:
            fails += 1
            why = bad.get("message") or (bad.text or "").strip()
            rows.append(f"  FAIL  {name}: {orbesc.terminal(why)}")
        elif c.find("skipped") is not None:
            skips += 1
            why = c.find("skipped").get("message")
            rows.append(f"  skip  {name}" +
                        (f": {orbesc.terminal(why)}" if why else ""))
        else:
            rows.append(f"  pass  {name}")
    head = (f"{label}: {len(cases)} test cases, {fails} failed, "
            f"{skips} skipped, {len(cases) - fails - skips} passed")
    more = len(rows) - JUNIT_MAX_CASES
    rows = rows[:JUNIT_MAX_CASES] + ([f"  ({more} more)"] if more > 0 else [])
    return [head] + rows
