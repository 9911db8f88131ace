# shellcheck shell=bash disable=SC2154
# build-orb's omniORBpy build: omniORB's Python mapping, autotools
# (docs/servers.md#omniorbpy).
# Sourced by scripts/build-orb, whose options, traps, set -euo pipefail,
# helpers (child, say, die, fail, step) and globals (orb, version,
# prefix, work, log, stamp...: SC2154 off) it uses.

# ---- omniORBpy: omniORB's Python mapping, autotools ------------------------
# Against the omniORB chosen above ($omnipy_omni) and the system's Python 3
# (its modules are built for that interpreter's ABI). No source patch.
build_omniorbpy() {
    local src="$work/src" v omniidl site chk core rpath="" ldflags=""
    take_source "$src" --strip-components=1
    [ -x "$src/configure" ] && [ -e "$src/modules/omnipy.cc" ] ||
        die "$source_path is not an omniORBpy release (no configure and modules/omnipy.cc)" 1
    # The tree says its version (THIS_IS_OMNIORBPY_4_2_6).
    v=$(cd "$src" && ls -d THIS_IS_OMNIORBPY_* 2>/dev/null | head -1 || true)
    v=$(echo "${v#THIS_IS_OMNIORBPY_}" | tr _ .)
    [ "$v" = "$version" ] || die "$source_path holds omniORBpy ${v:-of no version}, not $version" 1
    if [ "$omnipy_omni" = /usr ]; then
        omniidl=/usr/bin/omniidl
    else
        omniidl=$omnipy_omni/bin/omniidl
        # The modules are loaded by Python, whose own search path knows
        # nothing of this omniORB's lib/.
        rpath="-Wl,-rpath,$omnipy_omni/lib"
        ldflags="LDFLAGS=$rpath"
    fi
    if [ ! -e "$stamp" ]; then
        rm -rf "$prefix" "$src/build"
        mkdir -p "$src/build"
        step "configuring (prefix $prefix, omniORB $omnipy_omni)"
        child -C "$src/build" env $ldflags ../configure --prefix="$prefix" \
            --with-omniorb="$omnipy_omni" PYTHON=/usr/bin/python3 >>"$log" 2>&1 ||
            fail "configure"
        step "building with $jobs jobs (about a minute on 2 idle cores)"
        child -C "$src/build" make -j"$jobs" >>"$log" 2>&1 || fail "make"
        echo "$what" > "$stamp"
        partial="$prefix $work/stage"
    fi
    local stage="$work/stage"
    rm -rf "$stage" "$prefix"
    step "installing into a staging folder"
    child -C "$src/build" env DESTDIR="$stage" make install >>"$log" 2>&1 ||
        fail "make install"
    stray=$(cd "$stage" && find . -mindepth 1 \( -type f -o -type l \) | grep -v "^\.$prefix/" | head -5 || true)
    [ -z "$stray" ] || die "make install put files outside the prefix (left in $stage, not installed): $stray" 1
    mkdir -p "$(dirname "$prefix")"
    mv "$stage$prefix" "$prefix"
    rm -rf "$stage"
    # Where Python's install scheme put the modules (Debian's: under
    # local/lib/python3.X/dist-packages); 4.3 names its module with
    # Python's ABI tag (_omnipy.cpython-311-x86_64-linux-gnu.so).
    site=$(find "$prefix" -name '_omnipy*.so' -printf '%h\n' | head -1)
    [ -n "$site" ] && [ -d "$site/omniORB" ] && [ -e "$site/omniidl_be/python.py" ] ||
        fail "make install (no _omnipy*.so, omniORB/ and omniidl_be/python.py)"
    step "checking its omniidl back end makes stubs that import"
    chk="$work/idlcheck"
    rm -rf "$chk"
    mkdir -p "$chk"
    (cd "$chk" && "$omniidl" -bpython -p "$site" -I"$top/idl" "$top/idl/payloads.idl" \
        "$top/idl/echo.idl") >>"$log" 2>&1 || fail "omniidl -bpython"
    core=$(cd "$chk" && /usr/bin/python3 -c "import sys; sys.path[:0] = ['$site', '.']
import omniORB, Bench, Bench__POA
sys.stdout.write(omniORB.coreVersion())" 2>>"$log") ||
        fail "importing the stubs with the new omniORBpy"
    [[ "$core" == "${version%.*}".* ]] ||
        die "omniORBpy $version loaded omniORB \"$core\", not ${version%.*}.x" 1
    # What make needs (the site folder, the omniidl that matches), and the
    # build's identity, which the echo server prints as its second
    # --version line (the result's orb.build).
    echo "${site#"$prefix"/}" > "$prefix/PYTHONPATH"  # relative to the prefix
    echo "$omniidl" > "$prefix/OMNIIDL"
    local omni_desc="Debian libomniorb4-dev $(dpkg-query -W -f='${Version}' libomniorb4-dev 2>/dev/null)"
    [ "$omnipy_omni" = /usr ] || omni_desc="$omnipy_omni"
    echo "omniORB $core ($omni_desc), $(/usr/bin/python3 --version), g++ $(g++ -dumpfullversion) (omniORBpy's flags, -O2 -g), configure --with-omniorb=$omnipy_omni${ldflags:+ $ldflags}, no source patch" \
        > "$prefix/BUILD_INFO"
    echo "$version" > "$prefix/ORB_VERSION"
    partial=""
    say "done: $id in $prefix ($(du -sh "$prefix" | cut -f1); build folder $(du -sh "$work" | cut -f1)); now run make to install bin/orbs/$id/echo-server"
}
