"""The CI recipe of docs/ci.md is its files: the page quotes ci/'s
workflows to the byte, scripts/ci-yaml-run reads both and lists their
steps, and it runs a workflow's steps the way CI would (a failing step
stops the job with its exit status, the always() steps still run, a
GitLab script is one shell, a step that overruns is stopped, a cache key
is printed, a JUnit file is summed up). Fast: no build, no ORB, no
server; the steps here are a few shell lines."""
import re
import subprocess
import time

import yaml

import orbbench.ciyaml as orbci
from conftest import ROOT

RUNNER = ROOT / "scripts" / "ci-yaml-run"
PAGE = ROOT / "docs" / "ci.md"
GITHUB = ROOT / "ci" / "github" / "orbbench.yml"
GITLAB = ROOT / "ci" / "gitlab" / "orbbench.gitlab-ci.yml"
# <!-- file: PATH --> then a fenced block: the page's quote of PATH.
QUOTE = re.compile(r"^<!-- file: (\S+) -->\n```[a-z]*\n(.*?)^```$",
                   re.M | re.S)


def quotes(text):
    """{path: the fenced block after its marker} of a page."""
    return {m.group(1): m.group(2) for m in QUOTE.finditer(text)}


def stale_quotes(text, root):
    """The paths whose quote on a page is not the file under root."""
    return sorted(p for p, block in quotes(text).items()
                  if not (root / p).is_file() or
                  (root / p).read_text() != block)


def ci_yaml_run(*args, cwd=ROOT, timeout=60):
    return subprocess.run([str(RUNNER), *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)


# ---- the page and the files ---------------------------------------------

def test_the_page_quotes_every_workflow_file_as_it_is():
    files = sorted(str(p.relative_to(ROOT))
                   for p in (ROOT / "ci").rglob("*.yml"))
    assert set(files) == {str(GITHUB.relative_to(ROOT)),
                          str(GITLAB.relative_to(ROOT))}
    text = PAGE.read_text()
    assert sorted(quotes(text)) == files
    assert stale_quotes(text, ROOT) == [], \
        "copy the file into docs/ci.md's block after its <!-- file: --> line"


def test_a_quote_that_drifted_is_found():
    text = PAGE.read_text()
    drifted = text.replace("timeout-minutes: 90", "timeout-minutes: 60", 1)
    assert drifted != text
    assert stale_quotes(drifted, ROOT) == [str(GITHUB.relative_to(ROOT))]


def test_the_workflows_are_what_the_page_says():
    """Cached on the base commit, the key printed, JUnit shown, privileged
    (GitHub's container; GitLab's runner by tag), placeholders marked."""
    gh = yaml.safe_load(GITHUB.read_text())["jobs"]["gate"]
    assert gh["container"]["options"] == "--privileged"
    steps = gh["steps"]
    key = next(s for s in steps if s.get("id") == "key")
    assert "$BASE_SHA" in key["run"] and "cache key" in key["run"]
    assert gh["env"]["BASE_SHA"] == \
        "${{ github.event.pull_request.base.sha }}"
    uses = [s["uses"].split("@")[0] for s in steps if "uses" in s]
    assert {"actions/cache/restore", "actions/cache/save",
            "mikepenz/action-junit-report"} <= set(uses)
    for s in steps:
        if s.get("uses", "").startswith("actions/cache/"):
            assert s["with"]["key"] == "${{ steps.key.outputs.key }}"
    gl = yaml.safe_load(GITLAB.read_text())["orbbench"]
    assert gl["artifacts"]["reports"]["junit"] == "orbbench-ci/junit.xml"
    assert gl["cache"]["key"] == "$ORBBENCH_CACHE_KEY"
    assert "$CI_MERGE_REQUEST_DIFF_BASE_SHA" in \
        gl["variables"]["ORBBENCH_CACHE_KEY"]
    assert any("cache key $ORBBENCH_CACHE_KEY" in line
               for line in gl["script"])
    for path in (GITHUB, GITLAB):
        text = path.read_text()
        assert "OWNER/orbbench" in text and "PLACEHOLDER" in text
        assert "docs/ci.md#the-placeholders" in text
    assert "### The placeholders" in PAGE.read_text()


def test_the_runner_lists_both_workflows_steps():
    r = ci_yaml_run(GITHUB, "--list")
    assert r.returncode == 0, r.stderr
    names = [line.split(None, 2)[2] for line in r.stdout.splitlines()]
    assert len(names) == len(yaml.safe_load(
        GITHUB.read_text())["jobs"]["gate"]["steps"])
    assert names[0] == "container packages"
    assert names.index("cache key") < names.index(
        "build orbbench and both ORBs, paired suite, gate")
    assert any("action-junit-report" in n and "[if: always()]" in n
               for n in names)
    r = ci_yaml_run(GITLAB, "--list")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == len(yaml.safe_load(
        GITLAB.read_text())["orbbench"]["script"])
    assert all(" line  " in line for line in lines)
    assert "ci-example" in lines[-1]


# ---- running steps --------------------------------------------------------

FAILING = """
jobs:
  j:
    timeout-minutes: 5
    steps:
      - name: one
        run: echo one > one.txt
      - name: key
        id: k
        run: echo "key=abc-$BASE" >> "$GITHUB_OUTPUT"
      - uses: actions/cache/restore@v4
        with: { path: x, key: "${{ steps.k.outputs.key }}" }
      - name: fails
        run: exit 3
      - name: never
        run: touch never.txt
      - name: junit
        if: always()
        uses: mikepenz/action-junit-report@v5
        with: { report_paths: junit.xml }
      - name: cleanup
        if: always()
        run: touch always.txt
"""
JUNIT = """<testsuites><testsuite name="s">
<testcase classname="sync-unix" name="server_cpu">
<failure message="slower 1.5x"/></testcase>
<testcase classname="sync-unix" name="crossing_n"/>
<testcase classname="pool-unix" name="crossing_n"><skipped/></testcase>
</testsuite></testsuites>"""


def test_a_failing_step_stops_the_job_with_its_exit_status(tmp_path):
    wf = tmp_path / "wf.yml"
    wf.write_text(FAILING)
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "junit.xml").write_text(JUNIT)
    r = ci_yaml_run(wf, "--workspace", ws, "--base-sha", "b1",
                    "--head-sha", "h2", "--env", "BASE=b1")
    assert r.returncode == 3, r.stdout + r.stderr
    assert 'step 4/7 "fails": failed, exit 3' in r.stdout
    assert 'failed at step 4 "fails" (exit 3)' in r.stdout
    assert "cache key abc-b1" in r.stdout
    assert (ws / "one.txt").exists() and (ws / "always.txt").exists()
    assert not (ws / "never.txt").exists()
    assert "junit.xml: 3 test cases, 1 failed, 1 skipped, 1 passed" \
        in r.stdout
    assert "FAIL  sync-unix server_cpu: slower 1.5x" in r.stdout
    assert "github.event.pull_request.base.sha = b1 (--base-sha)" \
        in r.stdout


def test_a_gitlab_script_is_one_shell_and_stops_at_its_failed_line(
        tmp_path):
    wf = tmp_path / "gl.yml"
    wf.write_text(yaml.safe_dump({
        "variables": {"A": "x"},
        "job": {"variables": {"KEY": "k-$A-$CI_COMMIT_SHA"},
                "cache": {"key": "$KEY", "paths": ["c/"]},
                "script": ["mkdir -p sub", "cd sub", "pwd > here.txt",
                           "false | true", "touch never.txt"],
                "artifacts": {"reports": {"junit": "sub/junit.xml"}}}}))
    ws = tmp_path / "project"
    (ws / "sub").mkdir(parents=True)
    (ws / "sub" / "junit.xml").write_text(JUNIT)
    r = ci_yaml_run(wf, "--workspace", ws, "--base-sha", "b1",
                    "--head-sha", "h2")
    # pipefail: "false | true" fails, as on GitLab
    assert r.returncode == 1, r.stdout + r.stderr
    assert "script: line 4 failed, exit 1" in r.stdout
    assert (ws / "sub" / "here.txt").read_text().strip() == str(ws / "sub")
    assert not (ws / "sub" / "never.txt").exists()
    assert "cache key k-x-h2" in r.stdout
    assert "1 failed, 1 skipped, 1 passed" in r.stdout


def test_a_step_that_overruns_is_stopped(tmp_path):
    wf = tmp_path / "wf.yml"
    wf.write_text("jobs:\n  j:\n    steps:\n      - run: sleep 30\n")
    t = time.monotonic()
    r = ci_yaml_run(wf, "--workspace", tmp_path / "ws", "--base-sha", "b",
                    "--head-sha", "h", "--step-timeout", "1")
    assert r.returncode == 124, r.stdout + r.stderr
    assert time.monotonic() - t < 15
    assert "still running after 1 s" in r.stdout


def test_what_it_cannot_evaluate_is_one_line_exit_2(tmp_path):
    for body in ("      - run: echo ${{ hashFiles('x') }}\n",
                 "      - run: true\n        if: github.ref == 'main'\n",
                 "      - uses: a/b@v1\n        run: true\n"):
        wf = tmp_path / "wf.yml"
        wf.write_text("jobs:\n  j:\n    steps:\n" + body)
        r = ci_yaml_run(wf, "--workspace", tmp_path / "ws", "--base-sha",
                        "b", "--head-sha", "h")
        assert r.returncode == 2, r.stdout + r.stderr
        assert r.stderr.startswith("ci-yaml-run: ") and \
            r.stderr.count("\n") == 1, r.stderr
    bad = tmp_path / "gl.yml"
    bad.write_text('job:\n  script:\n    - echo "a: b"\n')
    r = ci_yaml_run(bad, "--list")
    assert r.returncode == 2 and "must be quoted" in r.stderr


def test_expressions_and_file_commands():
    ctx = {"github": {"event": {"pull_request": {"base": {"sha": "b"}}}},
           "env": {"V": "4.3"}, "steps": {}}
    assert orbci.substitute("x-${{ github.event.pull_request.base.sha }}-"
                            "${{env.V}}-${{ steps.k.outputs.key }}", ctx,
                            "w") == "x-b-4.3-"
    assert orbci.runs("${{ always() }}", True, "w")
    assert not orbci.runs("", True, "w") and orbci.runs("", False, "w")
    assert orbci.file_commands("a=1\nb<<EOF\nx\ny\nEOF\n", "w") == \
        {"a": "1", "b": "x\ny"}
    assert orbci.duration_s("1h 30m", "w") == 5400
    assert orbci.expand_all({"A": "$X-${Y}", "B": "$A+"}, {"X": "1"}) == \
        {"X": "1", "A": "1-${Y}", "B": "1-${Y}+"}
