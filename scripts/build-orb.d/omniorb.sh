# shellcheck shell=bash disable=SC2154
# build-orb's omniORB build: a release tarball or tree, or Debian's
# omniorb-dfsg source (--debian SUITE), autotools; old releases' Python 2
# omniidl back end converted (scripts/orbbench/oldidl.py). Sourced by
# scripts/build-orb, whose options, traps, set -euo pipefail, helpers
# (child, say, die, fail, step) and globals (orb, version, prefix, work,
# log, stamp...: SC2154 off) it uses.

# oldidl ARGS...: scripts/orbbench/oldidl.py (converts Python 2 to 3).
oldidl() { (cd "$top/scripts" && /usr/bin/python3 -m orbbench.oldidl "$@"); }
# stubs_compile DIR OMNIIDL [G++ FLAGS...]: echo.idl's stubs (and those of
# payloads.idl, which it includes) made by OMNIIDL in DIR compile.
stubs_compile() {
    local dir=$1 idl=$2 f
    shift 2
    rm -rf "$dir"
    mkdir -p "$dir"
    (cd "$dir" && for f in echo payloads; do
            "$idl" -bcxx -Wbh=.hh -Wbs=SK.cc -I"$top/idl" "$top/idl/$f.idl" || exit; done &&
        g++ -c -I. "$@" echoSK.cc -o echoSK.o) >>"$log" 2>&1
}
# build_omniorb: the build, the install through a staging folder, and
# the checks that the new and the system omniidl make stubs that compile.
build_omniorb() {
    src="$work/src"
    # As for TAO: a build that does not finish leaves only its log.
    partial="$prefix $work/stage"
    [ -e "$stamp" ] || partial="$src $partial"
    if [ -e "$stamp" ]; then
        say "reusing the build in $work (--clean to rebuild)"
    elif [ -n "$suite" ]; then
        step "fetching omniorb-dfsg source from Debian $suite"
        state="$work/apt"
        mkdir -p "$state/lists/partial" "$state/cache/archives/partial"
        # The mirror this machine's apt already uses, for another suite.
        uri=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
        [ -n "$uri" ] || uri=$(awk '/^deb / {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
        [ -n "$uri" ] || die "cannot find a Debian mirror in the apt sources"
        echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri $suite main" \
            > "$state/sources.list"
        apt_opts=(-o "Dir::Etc::SourceList=$state/sources.list"
                  -o "Dir::Etc::SourceParts=/nonexistent"
                  -o "Dir::State::Lists=$state/lists"
                  -o "Dir::Cache=$state/cache"
                  -o "APT::Sandbox::User=root")
        child apt-get "${apt_opts[@]}" update >>"$log" 2>&1 || fail "apt-get update ($suite sources)"
        if ! child -C "$work" apt-get "${apt_opts[@]}" source --download-only omniorb-dfsg >>"$log" 2>&1; then
            # The suite's index can name a version whose files the mirror
            # does not hold (seen 2026-11-30: sid and forky list 4.3.4+ds1-1,
            # the pool answers 404). Say so rather than show apt's log.
            listed=$(apt-cache "${apt_opts[@]}" showsrc omniorb-dfsg 2>/dev/null |
                     awk '/^Version:/ {print $2; exit}')
            if grep -q '404  Not Found' "$log"; then
                die "Debian $suite lists omniorb-dfsg ${listed:-?} but the mirror $uri has no files for it (HTTP 404); give --source PATH to an omniORB tarball instead" 1
            fi
            fail "apt-get source omniorb-dfsg"
        fi
        dsc=$(ls "$work"/omniorb-dfsg_*.dsc | head -1)
        got=$(basename "$dsc" | sed 's/^omniorb-dfsg_\([0-9.]*\).*/\1/')
        [ "$got" = "$version" ] || die "Debian $suite has omniORB $got, not $version" 1
        child dpkg-source -x "$dsc" "$src" >>"$log" 2>&1 || fail "dpkg-source -x"
    elif [ -d "$source_path" ]; then
        child cp -a "$source_path" "$src"
    else
        mkdir -p "$src"
        child tar -xf "$source_path" -C "$src" --strip-components=1 >>"$log" 2>&1 || fail "unpacking $source_path"
    fi
    # A tree of omniORB's history (github:snaewe/omniorb, `git archive TAG`)
    # holds omniORB/ and omniORBpy/ side by side from 4.1 on.
    [ -x "$src/configure" ] || [ ! -x "$src/omniORB/configure" ] || src="$src/omniORB"
    if [ ! -x "$src/configure" ] && [ -e "$src/config/config.mk" ]; then
        die "$src is omniORB 2 or 3 (config/config.mk, no configure script): its build is not supported (see docs/servers.md#old-omniorb-releases)" 1
    fi
    [ -x "$src/configure" ] || die "$src has no configure script: not an omniORB source tree" 1
    # The tree says its version (THIS_IS_OMNIORB_4_1_7); a mismatch is a
    # mislabelled build.
    mark=$(cd "$src" && ls -d THIS_IS_OMNIORB_* THIS_IS_omniORB_* 2>/dev/null | head -1 || true)
    if [ -n "$mark" ]; then
        got=$(echo "${mark#THIS_IS_*_}" | tr _ .)
        [ "$got" = "$version" ] || die "$src is omniORB $got, not $version" 1
    fi
    [ -e "$stamp" ] || rm -rf "$prefix"

    # Releases up to 4.1.7 wrote omniidl's back end and the build's scripts in
    # Python 2, and the library build runs omniidl on omniORB's own IDL;
    # Debian 12 has no Python 2. Such a release is built with the system
    # omniidl's front end (Python 3) driving the release's own C++ back end,
    # converted by scripts/orbbench/oldidl.py (its header lists what it
    # changes), and with the C++ of its day (old_std).
    be="$src/src/lib/omniORB/omniidl_be"
    old_idl=0
    if [ -d "$be" ] && ! /usr/bin/python3 - "$be" >/dev/null 2>&1 <<'PY'
import os, sys
for d, _, fs in os.walk(sys.argv[1]):
    for f in fs:
        if f.endswith(".py"):
            p = os.path.join(d, f)
            compile(open(p, encoding="latin-1").read(), p, "exec")
PY
    then
        old_idl=1
    fi
    # The standard goes with the compiler's name: 4.0 takes no CXXFLAGS from
    # configure (its makefiles set their own).
    old_std="-std=gnu++98"
    old_patches="src/tool/dir.mk builds no omniidl (the system's front end is used); bin/scripts and omniidl_be converted to Python 3 (orbbench.oldidl); bin/omniidl runs /usr/bin/omniidl -p on the converted back end"
    py3be="$work/omniidl-py3"
    if [ "$old_idl" = 1 ] && [ ! -e "$stamp" ]; then
        say "omniORB $version's omniidl back end is Python 2: converting it and the build scripts to Python 3"
        sed -i 's/^\(SUBDIRS = omkdepend\) omniidl$/\1/' "$src/src/tool/dir.mk"
        grep -q '^SUBDIRS = omkdepend$' "$src/src/tool/dir.mk" ||
            die "$src/src/tool/dir.mk: cannot drop omniidl from its SUBDIRS" 1
        oldidl "$src/bin/scripts" >>"$log" 2>&1 || fail "converting bin/scripts to Python 3"
        rm -rf "$py3be"
        mkdir -p "$py3be"
        oldidl "$be" "$py3be" omniidl_be >>"$log" 2>&1 || fail "converting omniidl_be to Python 3"
        printf '#!/bin/sh\n# omniidl for an omniORB %s build (scripts/build-orb): the system front end\n# and the release'"'"'s own back end, converted to Python 3.\nexec /usr/bin/omniidl -p "%s" "$@"\n' \
            "$version" "$py3be" > "$src/bin/omniidl"
        chmod +x "$src/bin/omniidl"
        # Only the libraries (and the tools that build them): the echo server
        # needs libomniORB4 and libomnithread; the applications and services
        # (catior, omniNames, ...) are not used, and 4.0's catior.cc no
        # longer compiles (EOF undeclared: <cstdio> is not included).
        sed -i 's/^SUBDIRS += appl services$/# (build-orb: no appl services)/' "$src/src/dir.mk"
        grep -q '^# (build-orb: no appl services)$' "$src/src/dir.mk" ||
            die "$src/src/dir.mk: cannot drop appl and services from its SUBDIRS" 1
        old_patches="$old_patches; src/dir.mk builds no appl and services (the libraries only)"
        # omkdepend (4.0) declares its own getline(), which glibc's stdio.h
        # now declares too (4.1 renamed it).
        omk="$src/src/tool/omkdepend"
        if grep -q '^char[[:space:]]*\*getline()' "$omk/def.h" 2>/dev/null; then
            sed -i 's/\bgetline\b/omk_getline/g' "$omk/def.h" "$omk/main.c" "$omk/parse.c"
            old_patches="$old_patches; omkdepend's getline() renamed omk_getline (glibc declares getline)"
        fi
        # What was changed, for BUILD_INFO (also when a later run reuses this
        # build).
        echo "$old_patches" > "$work/old_patches"
        partial="$partial $py3be $work/old_patches"
        # An earlier failed run can leave an empty generated header behind.
        [ -s "$src/src/lib/omniORB/omniORB4/distdate.hh" ] ||
            rm -f "$src/src/lib/omniORB/omniORB4/distdate.hh"
    fi

    # Snag 1: Debian's configure.ac names omnithread4.pc while the configure
    # it ships still names omnithread3.pc, whose .in file no longer exists.
    if grep -q 'omnithread3\.pc' "$src/configure" &&
       [ -e "$src/contrib/pkgconfig/omnithread4.pc.in" ] &&
       [ ! -e "$src/contrib/pkgconfig/omnithread3.pc.in" ]; then
        say "patching configure: omnithread3.pc -> omnithread4.pc (its configure.ac already says 4)"
        sed -i 's/omnithread3\.pc/omnithread4.pc/g' "$src/configure"
    fi

    # Snag 2: Debian's patch installs omniidl's Python back-end into the fixed
    # folder /usr/lib/omniidl even with --prefix, overwriting the system
    # omniidl's files (and a make variable given on the command line does not
    # reach omniORB's sub-makes). Point it into the prefix, where the patched
    # omniidl script looks (<prefix>/lib/omniidl), in the makefile itself; then
    # install into a staging folder and move only the prefix into place, so a
    # path we missed lands in the stage, not in the system.
    for mk in "$src/mk/beforeauto.mk.in" "$src/mk/beforeauto.mk"; do
        if [ -e "$mk" ] && grep -q '(DESTDIR)/usr/lib/omniidl' "$mk"; then
            say "patching $(basename "$mk"): omniidl's Python back-end goes to $prefix/lib/omniidl"
            sed -i "s|(DESTDIR)/usr/lib/omniidl|(DESTDIR)$prefix/lib/omniidl|" "$mk"
        fi
    done
    pydir="$prefix/lib/omniidl"
    guard=$(find /usr/lib/omniidl -printf '%p %T@\n' 2>/dev/null | sort | md5sum)

    if [ ! -e "$stamp" ]; then
        step "configuring (prefix $prefix)"
        old_env=()
        [ "$old_idl" = 0 ] || old_env=(CXX="g++ $old_std" CXXFLAGS=-O2 CFLAGS=-O2)
        child -C "$src" env PYTHON=/usr/bin/python3 "${old_env[@]}" ./configure --prefix="$prefix" \
            >>"$log" 2>&1 || fail "configure"
        step "building with $jobs jobs (about 15 minutes on 2 cores)"
        child -C "$src" make -j"$jobs" >>"$log" 2>&1 || fail "make"
        echo "${source_path:-debian:$suite}" > "$stamp"
        partial="$prefix $work/stage"
    fi
    stage="$work/stage"
    rm -rf "$stage" "$prefix"
    step "installing into a staging folder"
    # DESTDIR from the environment reaches every sub-make.
    child -C "$src" env DESTDIR="$stage" make install >>"$log" 2>&1 || fail "make install"
    stray=$(cd "$stage" && find . -mindepth 1 \( -type f -o -type l \) | grep -v "^\.$prefix/" | head -5 || true)
    [ -z "$stray" ] || die "make install put files outside the prefix (left in $stage, not installed): $stray" 1
    mkdir -p "$(dirname "$prefix")"
    mv "$stage$prefix" "$prefix"
    rm -rf "$stage"

    [ "$(find /usr/lib/omniidl -printf '%p %T@\n' 2>/dev/null | sort | md5sum)" = "$guard" ] ||
        die "the system's /usr/lib/omniidl changed during the install: reinstall the omniidl package" 1
    # An old release's omniidl: the same wrapper, on a copy of the converted
    # back end inside the prefix; its build, recorded for the echo server's
    # second --version line.
    if [ "$old_idl" = 1 ]; then
        rm -rf "$prefix/lib/omniidl-py3"
        mkdir -p "$prefix/bin" "$prefix/lib"
        cp -a "$py3be" "$prefix/lib/omniidl-py3"
        sed "s|$py3be|$prefix/lib/omniidl-py3|" "$src/bin/omniidl" > "$prefix/bin/omniidl"
        chmod +x "$prefix/bin/omniidl"
        echo "omniORB $version from source, g++ $(g++ -dumpfullversion) $old_std -O2, omniidl front end of Debian omniidl $(dpkg-query -W -f='${Version}' omniidl), patches: $(cat "$work/old_patches")" \
            > "$prefix/BUILD_INFO"
    fi
    # Snag 3: Debian's omniidl script itself looks for its back-end in
    # /usr/lib/omniidl, i.e. the system's (older) one: point it at the prefix.
    if [ "$old_idl" = 0 ] && grep -q 'os.path.join("/", "usr", "lib", "omniidl")' "$prefix/bin/omniidl"; then
        say "patching bin/omniidl: its back-end is $pydir"
        sed -i "s|os.path.join(\"/\", \"usr\", \"lib\", \"omniidl\")|\"$pydir\"|" "$prefix/bin/omniidl"
    fi
    step "checking the new omniidl makes stubs that compile against its own headers"
    stubs_compile "$work/newcheck" "$prefix/bin/omniidl" -I"$prefix/include" ||
        fail "the new omniidl check"

    # The system ORB must still generate stubs that compile.
    step "checking the system omniidl still makes stubs that compile"
    stubs_compile "$work/syscheck" /usr/bin/omniidl ||
        fail "the system omniidl check (reinstall omniidl and libomniorb4-dev)"

    echo "$version" > "$prefix/ORB_VERSION"
    partial=""
    say "done: $id in $prefix; now run make to build bin/orbs/$id/echo-server"
}
