# shellcheck shell=bash disable=SC2154
# build-orb's MICO build: a MICO tree or tarball, autoconf
# (docs/servers.md#mico).
# Sourced by scripts/build-orb, whose options, traps, set -euo pipefail,
# helpers (child, say, die, fail, step) and globals (orb, version,
# prefix, work, log, stamp...: SC2154 off) it uses.

# ---- MICO: a MICO tree or tarball (github:zebastian/mico), autoconf -------
# Its own makefiles, not `make all`: only the libraries and programs an
# echo server needs (libmico, the interface repository's libmicoir that
# the IDL compiler links, the IDL compiler idl and its preprocessor
# mico-cpp), installed by the subfolders' own install targets with their
# INSTDIR moved into a staging folder (MICO's makefiles know no DESTDIR;
# the top-level install would also run ldconfig).
mico_dirs_lib="orb ir idl"
mico_dirs_prg="cpp idl"
build_mico() {
    local src="$work/src" v lv flags
    take_source "$src" --strip-components=1
    [ -x "$src/configure" ] && [ -e "$src/orb/orb.cc" ] && [ -e "$src/VERSION" ] ||
        die "$source_path is not a MICO tree (no configure, orb/orb.cc and VERSION)" 1
    v=$(head -1 "$src/VERSION")
    [ "$v" = "$version" ] || die "$source_path holds MICO $v, not $version" 1
    local stage="$work/stage"
    local inst=(INSTDIR="$stage$prefix" SHARED_INSTDIR="$stage$prefix" LDCONFIG=true)
    if [ ! -e "$stamp" ]; then
        rm -rf "$prefix"
        [ ! -e "$src/MakeVars" ] || child -C "$src" make distclean >>"$log" 2>&1 || true
        step "configuring (prefix $prefix)"
        child -C "$src" env $mico_env ./configure --prefix="$prefix" \
            $mico_configure >>"$log" 2>&1 || fail "configure"
        step "building with $jobs jobs (about 6 CPU-minutes)"
        local d
        for d in admin include; do
            child -C "$src/$d" make adm >>"$log" 2>&1 || fail "make -C $d adm"
        done
        for d in $mico_dirs_lib; do
            child -C "$src/$d" make -j"$jobs" lib >>"$log" 2>&1 || fail "make -C $d lib"
        done
        for d in $mico_dirs_prg; do
            child -C "$src/$d" make -j"$jobs" prg >>"$log" 2>&1 || fail "make -C $d prg"
        done
        echo "$what" > "$stamp"
        partial="$prefix $work/stage"
    fi
    rm -rf "$stage" "$prefix"
    step "installing into a staging folder"
    lv=$(tr b . < "$src/VERSION" | head -1) # as MakeVars names the libraries
    for d in include orb idl cpp; do
        child -C "$src/$d" make install "${inst[@]}" >>"$log" 2>&1 ||
            fail "make -C $d install"
    done
    # ir's install target also wants its daemon (ird), not built.
    install -D -m 555 "$src/ir/libmicoir$lv.so" "$stage$prefix/lib/libmicoir$lv.so" ||
        fail "installing libmicoir"
    stray=$(cd "$stage" && find . -mindepth 1 \( -type f -o -type l \) | grep -v "^\.$prefix/" | head -5 || true)
    [ -z "$stray" ] || die "make install put files outside the prefix (left in $stage, not installed): $stray" 1
    mkdir -p "$(dirname "$prefix")"
    mv "$stage$prefix" "$prefix"
    rm -rf "$stage"
    [ -x "$prefix/bin/idl" ] && [ -x "$prefix/bin/mico-cpp" ] &&
        [ -e "$prefix/lib/libmico$lv.so" ] ||
        fail "make install (no bin/idl, bin/mico-cpp and lib/libmico$lv.so)"
    # MICO's own flags for programs built against it (its mico-c++ and
    # mico-ld scripts); the Makefile reads them.
    flags=$(sed -n 's/^CXXFLAGS[[:space:]]*=[[:space:]]*//p' "$src/MakeVars" | tr -s ' ')
    echo "-D_REENTRANT -D_GNU_SOURCE" > "$prefix/CXXFLAGS"
    echo "-rdynamic -lmico$lv -ldl -lm -lpthread" > "$prefix/LIBS"
    step "checking its idl makes stubs that compile against its own headers"
    local chk="$work/idlcheck" f
    rm -rf "$chk"
    mkdir -p "$chk"
    (cd "$chk" && for f in payloads echo; do
            LD_LIBRARY_PATH="$prefix/lib" "$prefix/bin/idl" --cpp "$prefix/bin/mico-cpp" \
                --c++-suffix cc -I"$top/idl" "$top/idl/$f.idl" || exit; done &&
        g++ -c -I. -I"$prefix/include" $(cat "$prefix/CXXFLAGS") echo.cc -o echo.o) >>"$log" 2>&1 ||
        fail "the idl check"
    # The build's identity, which the echo server prints as its second
    # --version line (the result's orb.build).
    echo "g++ $(g++ -dumpfullversion) ${flags% } (MICO's own; g++'s default standard), configure $mico_configure, no SSL ($mico_env), threads (MICO/MT), built: $mico_dirs_lib libraries, $mico_dirs_prg programs; no source patch" \
        > "$prefix/BUILD_INFO"
    echo "$version" > "$prefix/ORB_VERSION"
    partial=""
    say "done: $id in $prefix ($(du -sh "$prefix" | cut -f1); build folder $(du -sh "$work" | cut -f1)); now run make to build bin/orbs/$id/echo-server"
}
