"""Run one job of a CI workflow file here, from the file itself: a GitHub
Actions job's run: steps in order, each in its shell, or a GitLab job's
before_script and script lines in one bash (as GitLab runs them). What
only CI can do is said in one line and not done: a uses: step (checkout,
cache, upload), the container or image, GitLab's cache; the cache key is
printed, and a JUnit report the job would show is summed up from its file.

usage: scripts/ci-yaml-run WORKFLOW.yml [--job NAME] [--list]
           [--workspace DIR] [--base-sha SHA] [--head-sha SHA]
           [--env NAME=VALUE]... [--checkout PATH=DIR]... [--skip N]...
           [--step-timeout S]

What CI would give the job, and what it is here (printed first):
  GitHub  GITHUB_WORKSPACE (the steps' folder) = --workspace;
          github.event.pull_request.base.sha = --base-sha, .head.sha and
          github.sha = --head-sha; GITHUB_STEP_SUMMARY, GITHUB_OUTPUT,
          GITHUB_ENV, RUNNER_TEMP: files and a folder below
          WORKSPACE/.ci-yaml-run/; runner.os Linux
  GitLab  CI_PROJECT_DIR (the clone, the script's folder) = --workspace,
          a git checkout of the repository; CI_BUILDS_DIR = its parent;
          CI_MERGE_REQUEST_DIFF_BASE_SHA = --base-sha, CI_COMMIT_SHA =
          --head-sha; CI_PIPELINE_SOURCE merge_request_event
--base-sha and --head-sha default to HEAD^ and HEAD of the git checkout
in the current folder. --env sets (or overrides) a variable of the
workflow's env: or variables:, e.g. a smaller suite. --checkout PATH=DIR:
an actions/checkout step into PATH is a link WORKSPACE/PATH -> DIR here
(the workflow's paths are absolute, $GITHUB_WORKSPACE/..., so that
nothing is written beside DIR). --skip N: step N (as --list numbers
them; GitLab: the script's line N) is not run.

Bounds: a step's timeout-minutes, else the time left of the job's
(timeout-minutes, GitHub's default 360; GitLab's timeout:, default 60m,
for the whole script), at most --step-timeout seconds; then the step's
process group gets SIGTERM, 5 s later SIGKILL. Exit: 0 every step passed;
else the first failing step's exit status (after the always() steps),
124 when it timed out, 130 interrupted; 2 usage, or a workflow this
cannot read or run (one line naming the file and the place)."""
import argparse
import os
import shlex
import signal
import subprocess
import time
from pathlib import Path

import orbbench.cli as orbcli
import orbbench.ciyaml as orbci
import orbbench.escape as orbesc

PROG = orbcli.prog("ci-yaml-run")
TIMED_OUT = 124
INTERRUPTED = 130
KILL_AFTER_S = 5
# GitHub's shells for run: steps ({0}: the step's script file).
SHELLS = {None: "bash -e {0}",
          "bash": "bash --noprofile --norc -eo pipefail {0}",
          "sh": "sh -e {0}"}


def say(msg):
    print(f"{PROG}: {orbesc.terminal(msg, orbcli.MESSAGE_LIMIT)}",
          flush=True)


def name_value(text):
    name, eq, value = text.partition("=")
    if not eq or not name:
        raise ValueError(f"{text}: not NAME=VALUE")
    return name, value


def positive(text):
    v = float(text)
    if not v > 0:
        raise ValueError(f"{text}: not a positive number")
    return v


def parse_args(argv):
    paras = __doc__.split("\n\n")
    p = orbcli.ArgParser(prog=PROG,
                         usage=paras[1][len("usage: "):],
                         description=paras[0],
                         epilog="\n\n".join(paras[2:]),
                         formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("workflow", metavar="WORKFLOW.yml")
    p.add_argument("--job", help="the job (default: the only one)")
    p.add_argument("--list", action="store_true",
                   help="list the job's steps and exit")
    p.add_argument("--workspace", type=Path, help="the job's folder")
    p.add_argument("--base-sha", help="the base commit (default HEAD^)")
    p.add_argument("--head-sha", help="the head commit (default HEAD)")
    p.add_argument("--env", type=name_value, action="append", default=[],
                   metavar="NAME=VALUE", help="a variable of the job's")
    p.add_argument("--checkout", type=name_value, action="append",
                   default=[], metavar="PATH=DIR",
                   help="a checkout into PATH is a link to DIR")
    p.add_argument("--skip", type=int, action="append", default=[],
                   metavar="N", help="do not run step N")
    p.add_argument("--step-timeout", type=positive, metavar="S",
                   help="no step runs longer than S seconds")
    a = p.parse_args(argv)
    if not a.list and a.workspace is None:
        p.error("--workspace: required (a folder for the job)")
    return a


def git_sha(rev):
    r = subprocess.run(["git", "rev-parse", "--verify", "-q", rev],
                       capture_output=True, text=True, timeout=30)
    if r.returncode != 0:
        raise orbci.BadWorkflow(f"git rev-parse {rev} in {os.getcwd()}: "
                                "no such commit (give --base-sha and "
                                "--head-sha)")
    return r.stdout.strip()


def list_steps(job):
    for s in job.steps:
        what = "run " if s.run is not None else "uses"
        if job.dialect == "gitlab":
            what = "line"
        extra = f" ({s.uses})" if s.uses and s.name != f"Run {s.uses}" else ""
        cond = f" [if: {s.cond}]" if s.cond else ""
        print(f"{s.number:3} {what}  {orbesc.terminal(s.name, 1000)}"
              f"{extra}{cond}")


class Runner:
    """One job's run: the mapping from CI's variables to this machine's,
    the steps' environment as they change it, the first failure."""

    def __init__(self, a, job):
        self.a, self.job = a, job
        self.ws = a.workspace.resolve()
        self.scratch = self.ws / ".ci-yaml-run"
        self.t0 = time.monotonic()
        self.failed = None          # (step, exit status) of the first
        self.outputs = {}           # steps.ID.outputs of GitHub's
        self.groups = []            # the steps' process groups
        self.base = a.base_sha or git_sha("HEAD^")
        self.head = a.head_sha or git_sha("HEAD")

    # ---- the declared mapping ----
    def declared(self):
        """[(CI's name, its value here, where that comes from)], printed
        first; the upper-case names are the steps' environment."""
        ws, tmp = str(self.ws), str(self.scratch / "tmp")
        if self.job.dialect == "github":
            return [("GITHUB_WORKSPACE", ws, "--workspace"),
                    ("github.event.pull_request.base.sha", self.base,
                     "--base-sha"),
                    ("GITHUB_SHA", self.head, "--head-sha; also github.sha "
                     "and github.event.pull_request.head.sha"),
                    ("GITHUB_STEP_SUMMARY", str(self.summary_file()),
                     "a file here"),
                    ("RUNNER_TEMP", tmp, "a folder here"),
                    ("GITHUB_EVENT_NAME", "pull_request", "fixed"),
                    ("GITHUB_ACTIONS", "true", "fixed"),
                    ("RUNNER_OS", "Linux", "fixed"), ("CI", "true", "fixed")]
        return [("CI_PROJECT_DIR", ws, "--workspace"),
                ("CI_BUILDS_DIR", str(self.ws.parent), "its parent"),
                ("CI_MERGE_REQUEST_DIFF_BASE_SHA", self.base, "--base-sha"),
                ("CI_COMMIT_SHA", self.head, "--head-sha"),
                ("CI_PIPELINE_SOURCE", "merge_request_event", "fixed"),
                ("CI_JOB_NAME", self.job.name, "the job"),
                ("GITLAB_CI", "true", "fixed"), ("CI", "true", "fixed")]

    def summary_file(self):
        return self.scratch / "step-summary.md"

    def ci_env(self):
        """The variables CI sets for every step."""
        return {n: v for n, v, _ in self.declared() if n.isupper()}

    def context(self, env):
        """GitHub's expression contexts."""
        return {"github": {"workspace": str(self.ws), "sha": self.head,
                           "event_name": "pull_request",
                           "event": {"pull_request": {
                               "base": {"sha": self.base},
                               "head": {"sha": self.head}}}},
                "runner": {"os": "Linux", "temp": str(self.scratch / "tmp")},
                "env": env, "steps": self.outputs}

    # ---- running ----
    def bound(self, step):
        """The seconds a step may take: its own bound, the job's time
        left and --step-timeout, the least of them."""
        left = self.job.timeout_s - (time.monotonic() - self.t0)
        b = min(x for x in (step.timeout_s, left, self.a.step_timeout)
                if x is not None)
        return max(b, 1.0)

    def shell(self, step, script, env, cwd):
        """Run a script file in its shell, in its own process group,
        bounded; its exit status (TIMED_OUT when it was stopped)."""
        words = shlex.split(SHELLS.get(step.shell or self.job.shell,
                                       step.shell or self.job.shell))
        if "{0}" not in words:
            words.append("{0}")
        words = [str(script) if w == "{0}" else w for w in words]
        bound = self.bound(step)
        try:
            p = subprocess.Popen(words, cwd=cwd, env=env,
                                 start_new_session=True)
        except OSError as e:        # no such folder or shell: the step fails
            say(f"step {step.number}: cannot start {words[0]} in {cwd}: "
                f"{e.strerror}")
            return 1
        self.groups.append(p.pid)
        try:
            return p.wait(timeout=bound)
        except subprocess.TimeoutExpired:
            say(f"step {step.number}: still running after {bound:.0f} s: "
                "stopping it")
            stop(p)
            return TIMED_OUT
        except KeyboardInterrupt:
            stop(p)
            raise

    def run(self):
        self.ws.mkdir(parents=True, exist_ok=True)
        (self.scratch / "tmp").mkdir(parents=True, exist_ok=True)
        self.summary_file().touch()
        for note in self.job.notes:
            say(note)
        for name, value, source in self.declared():
            say(f"{name} = {value} ({source})")
        try:
            if self.job.dialect == "github":
                self.run_github()
            else:
                self.run_gitlab()
        finally:
            self.end_groups()
        took = time.monotonic() - self.t0
        if self.failed:
            step, rc = self.failed
            say(f"job {self.job.name}: failed at step {step.number} "
                f"\"{step.name}\" (exit {rc}), {took:.1f} s")
            return rc
        say(f"job {self.job.name}: every step passed, {took:.1f} s")
        return 0

    def end_groups(self):
        """What the steps left running ends with the job, as on CI: a
        SIGTERM to each step's process group (its own session)."""
        for pgid in self.groups:
            try:
                os.killpg(pgid, signal.SIGTERM)
            except (ProcessLookupError, PermissionError):
                pass

    def base_env(self):
        env = dict(os.environ)
        env.update(self.ci_env())
        return env

    def run_github(self):
        job = self.job
        # The job's env, --env in place of what it names, evaluated once.
        jenv = {}
        for k, v in {**job.env, **dict(self.a.env)}.items():
            jenv[k] = orbci.substitute(v, self.context(jenv), f"env.{k}")
        added = {}                  # what steps wrote to $GITHUB_ENV
        n = len(job.steps)
        for s in job.steps:
            where = f"{self.a.workflow}: step {s.number}"
            env_now = {**jenv, **added}
            head = f"step {s.number}/{n} \"{s.name}\""
            if not orbci.runs(s.cond, self.failed is not None, where):
                say(f"{head}: not run (if: {s.cond or 'success()'})")
                continue
            if s.number in self.a.skip:
                say(f"{head}: skipped here (--skip {s.number})")
                continue
            ctx = self.context(env_now)
            if s.uses:
                self.uses(s, ctx, where, head)
                continue
            senv = {k: orbci.substitute(v, ctx, f"{where} env.{k}")
                    for k, v in s.env.items()}
            script = self.scratch / f"step-{s.number}.sh"
            script.write_text(orbci.substitute(s.run, ctx, where))
            out = self.scratch / f"output-{s.number}"
            genv = self.scratch / f"env-{s.number}"
            out.write_text("")
            genv.write_text("")
            env = {**self.base_env(), **env_now, **senv,
                   "GITHUB_OUTPUT": str(out), "GITHUB_ENV": str(genv)}
            wd = orbci.substitute(s.workdir or job.workdir, ctx, where)
            cwd = self.ws / wd if wd else self.ws
            say(f"{head}: run" + (f" in {wd}" if wd else ""))
            t = time.monotonic()
            rc = self.shell(s, script, env, cwd)
            took = time.monotonic() - t
            if rc != 0:
                say(f"{head}: failed, exit {rc} ({took:.1f} s)")
                self.failed = self.failed or (s, rc)
                continue
            say(f"{head}: passed ({took:.1f} s)")
            if s.step_id:
                self.outputs[s.step_id] = {"outputs": orbci.file_commands(
                    out.read_text(), f"{where} $GITHUB_OUTPUT")}
            added.update(orbci.file_commands(genv.read_text(),
                                             f"{where} $GITHUB_ENV"))
        lines = self.summary_file().read_text().count("\n")
        say(f"step summary: {self.summary_file()} ({lines} lines)")

    def uses(self, s, ctx, where, head):
        w = {k: orbci.substitute(v, ctx, f"{where} with.{k}")
             for k, v in s.with_.items()}
        row = orbci.action(s.uses)
        if row is None:
            say(f"{head}: uses {s.uses}: not run here")
            return
        describe, junit_input = row
        say(f"{head}: uses {s.uses}: {describe(w)}")
        if s.uses.startswith("actions/checkout") and w.get("path"):
            self.checkout(w["path"])
        if junit_input:
            for p in w.get(junit_input, "").splitlines():
                if p.strip():
                    for f in sorted(self.ws.glob(p.strip())) or \
                            [self.ws / p.strip()]:
                        self.show_junit(f)

    def checkout(self, path):
        target = dict(self.a.checkout).get(path)
        link = self.ws / path
        if target is None:
            say(f"  {path}: not checked out here (--checkout {path}=DIR "
                "links one)")
        elif link.is_symlink() or link.exists():
            say(f"  {path}: there already ({os.path.realpath(link)})")
        else:
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(Path(target).resolve())
            say(f"  {path} -> {Path(target).resolve()} (--checkout)")

    def show_junit(self, path):
        try:
            if path.stat().st_size > orbci.JUNIT_MAX_BYTES:
                raise ValueError(f"{path}: larger than "
                                 f"{orbci.JUNIT_MAX_BYTES >> 20} MB")
            for line in orbci.junit_lines(path.read_bytes(), str(path)):
                print(line, flush=True)
        except (OSError, ValueError) as e:
            say(f"JUnit {orbesc.terminal(str(e))}")

    def run_gitlab(self):
        job = self.job
        # --env in place of the variable it names, then expanded in order.
        env = orbci.expand_all({**job.env, **dict(self.a.env)},
                               self.ci_env())
        if job.cache_key is not None:
            key = orbci.expand(job.cache_key, env)
            paths = ", ".join(orbci.expand(p, env) for p in job.cache_paths)
            say(f"cache: would restore {paths} under the cache key {key} "
                "(and save it at the job's end)")
        # One bash for every line, as GitLab's: a cd carries over. Each
        # line echoed; the first failing one written down by the trap.
        failed_at = self.scratch / "failed-line"
        failed_at.unlink(missing_ok=True)
        text = ["set -eo pipefail",
                "trap '__rc=$?; [ \"$__rc\" = 0 ] || echo \"$__line\" > "
                f"{shlex.quote(str(failed_at))}' EXIT"]
        for s in job.steps:
            if s.number in self.a.skip:
                note = f"{PROG}: line {s.number}: skipped here (--skip)"
                text.append(f"echo {shlex.quote(note)}")
                continue
            text += [f"__line={s.number}",
                     f"printf '%s\\n' {shlex.quote('$ ' + s.run)}", s.run]
        script = self.scratch / "script.sh"
        script.write_text("\n".join(text) + "\n")
        whole = orbci.Step(number=0, name="script", shell="bash")
        say(f"script: {len(job.steps)} lines in one bash")
        rc = self.shell(whole, script, {**self.base_env(), **env}, self.ws)
        if rc != 0:
            n = failed_at.read_text().strip() if failed_at.exists() else ""
            step = (job.steps[int(n) - 1] if n.isdigit() and
                    0 < int(n) <= len(job.steps) else whole)
            self.failed = (step, rc)
            say(f"script: line {step.number} failed, exit {rc}")
        for p in job.junit_paths:
            say(f"artifacts:reports:junit: {p}, which GitLab shows in the "
                "merge request (here: summed up below)")
            self.show_junit(self.ws / orbci.expand(p, env))


def stop(p):
    """SIGTERM to the process group, SIGKILL after KILL_AFTER_S."""
    for sig, wait_s in ((signal.SIGTERM, KILL_AFTER_S), (signal.SIGKILL, 30)):
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            pass
        try:
            p.wait(timeout=wait_s)
            return
        except subprocess.TimeoutExpired:
            continue


def interrupt(signum, frame):
    raise KeyboardInterrupt


def main(argv):
    a = parse_args(argv)
    # SIGTERM and SIGHUP as ^C: the step under way is stopped first.
    signal.signal(signal.SIGTERM, interrupt)
    signal.signal(signal.SIGHUP, interrupt)
    try:
        doc = orbci.load(a.workflow)
        job = orbci.job(doc, a.job, a.workflow)
        if a.list:
            list_steps(job)
            return 0
        return Runner(a, job).run()
    except orbci.BadWorkflow as e:
        orbcli.fail(PROG, str(e))
    except KeyboardInterrupt:
        say("interrupted")
        return INTERRUPTED
