"""The shell completion of orbbench, bash's and zsh's, written at build
time from what the client prints, as the man pages are: the installed
subcommands of `orbbench help --list`, each one's options from its own
help (orbbench.helptext), and after --set and --versus the scenario keys
of `orbbench keys` and the choices of those that have some.

usage: python3 -m orbbench.completion --client BIN/orbbench --out DIR

Writes DIR/orbbench (bash; installed in
PREFIX/share/bash-completion/completions/) and DIR/_orbbench (zsh;
PREFIX/share/zsh/vendor-completions/)."""
import re

import orbbench.helptext as orbhelp

HEAD = """\
{comment} {shell} completion for orbbench, written by orbbench.completion from
{comment} `orbbench help --list`, each subcommand's help and `orbbench keys`:
{comment} make writes it again; do not edit.
"""

# Options, keys and choices are words of these characters only: they go
# into the scripts unquoted.
WORD = re.compile(r"^[A-Za-z0-9_.+-]+$")


def words(items):
    """Plain words, one space apart; exit 2 on anything else."""
    items = list(items)
    bad = [w for w in items if not WORD.match(w)]
    if bad:
        raise SystemExit(f"completion: not a plain word: {bad[0]!r}")
    return " ".join(items)


def gather(client):
    """(rows, {subcommand: [options]}, [(key, [choices])]) of the
    installed subcommands."""
    rows = [r for r in orbhelp.table(client) if r.installed]
    opts = {r.name: orbhelp.options(orbhelp.sections(
        orbhelp.printed(client, "help", r.name))) for r in rows}
    return rows, opts, orbhelp.keys(client)


def bash(rows, opts, keys):
    subs = words([r.name for r in rows] + ["help"])
    opt_cases = "".join(f"        {n}) opts=\"{words(o)}\" ;;\n"
                        for n, o in opts.items() if o)
    choice_cases = "".join(f"    {k}) vals=\"{words(c)}\" ;;\n"
                           for k, c in keys if c)
    return HEAD.format(comment="#", shell="bash") + f"""
_orbbench_keys="{words(k for k, _ in keys)}"

# _orbbench_choices KEY PREFIX WORD: the choices of KEY that start WORD.
_orbbench_choices() {{
    local vals=
    case $1 in
{choice_cases}    esac
    COMPREPLY=($(compgen -P "$2" -W "$vals" -- "$3"))
}}

_orbbench() {{
    local cur=${{COMP_WORDS[COMP_CWORD]}} prev= sub=${{COMP_WORDS[1]}} opts=
    [ "$COMP_CWORD" -gt 0 ] && prev=${{COMP_WORDS[COMP_CWORD-1]}}
    COMPREPLY=()
    # KEY=VALUE after --set or --versus. Bash parts words at "=" when
    # COMP_WORDBREAKS has it (its default): KEY, "=" and VALUE are then
    # three words.
    if [ "$prev" = "=" ] && [ "$COMP_CWORD" -ge 3 ]; then
        case ${{COMP_WORDS[COMP_CWORD-3]}} in
        --set|--versus)
            _orbbench_choices "${{COMP_WORDS[COMP_CWORD-2]}}" "" "$cur"
            return 0 ;;
        esac
    fi
    case $prev in
    --set|--versus)
        case $cur in
        *=*) _orbbench_choices "${{cur%%=*}}" "${{cur%%=*}}=" "${{cur#*=}}" ;;
        *) COMPREPLY=($(compgen -S = -W "$_orbbench_keys" -- "$cur"))
           compopt -o nospace 2>/dev/null ;;
        esac
        return 0 ;;
    esac
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "{subs} --help --version" -- "$cur"))
        return 0
    fi
    if [ "$sub" = help ] && [ "$COMP_CWORD" -eq 2 ]; then
        COMPREPLY=($(compgen -W "{subs}" -- "$cur"))
        return 0
    fi
    case $cur in
    -*)
        case $sub in
{opt_cases}        esac
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        return 0 ;;
    esac
    # Anything else is a file name (complete -o default).
    return 0
}}
complete -o bashdefault -o default -F _orbbench orbbench
"""


def zsh_quote(text):
    return "'" + text.replace("'", "'\\''") + "'"


def zsh(rows, opts, keys):
    subs = "".join(f"    {zsh_quote(r.name + ':' + r.summary)}\n"
                   for r in rows)
    opt_cases = "".join(f"    ({n}) opts=({words(o)}) ;;\n"
                        for n, o in opts.items() if o)
    choice_cases = "".join(f"      ({k}) compadd -- {words(c)} ;;\n"
                           for k, c in keys if c)
    return "#compdef orbbench\n" + HEAD.format(comment="#", shell="zsh") + \
        f"""
_orbbench() {{
  local -a subs keys opts
  subs=(
{subs}  )
  keys=({words(k for k, _ in keys)})
  if (( CURRENT == 2 )) || [[ $words[2] == help && CURRENT -eq 3 ]]; then
    _describe -t commands 'orbbench subcommand' subs
    return
  fi
  case $words[CURRENT-1] in
  (--set|--versus)
    if [[ $PREFIX == *=* ]]; then
      local key=${{PREFIX%%=*}}
      compset -P '*='
      case $key in
{choice_cases}      esac
    else
      compadd -S '=' -- $keys
    fi
    return ;;
  esac
  if [[ $PREFIX == -* ]]; then
    case $words[2] in
{opt_cases}    esac
    compadd -- $opts
    return
  fi
  _files
}}

_orbbench "$@"
"""


def write(client, out):
    """Both scripts into out; their paths."""
    rows, opts, keys = gather(client)
    return orbhelp.write_files(out, {"orbbench": bash(rows, opts, keys),
                                     "_orbbench": zsh(rows, opts, keys)})


def main(argv=None):
    return orbhelp.generator_main("completion", __doc__, write, argv)


if __name__ == "__main__":
    raise SystemExit(main())
