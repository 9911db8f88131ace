# shellcheck shell=bash disable=SC2154
# build-orb's ORBit2 build: a GNOME ORBit2 release, autotools
# (docs/servers.md#orbit2).
# Sourced by scripts/build-orb, whose options, traps, set -euo pipefail,
# helpers (child, say, die, fail, step) and globals (orb, version,
# prefix, work, log, stamp...: SC2154 off) it uses.

# ---- ORBit2: a GNOME ORBit2 release, autotools ------------------------------
build_orbit2() {
    local src="$work/src" v
    take_source "$src" --strip-components=1
    [ -x "$src/configure" ] && [ -e "$src/src/orb/orb-core/corba-orb.c" ] ||
        die "$source_path is not an ORBit2 release (no configure and src/orb/orb-core/)" 1
    v=$(sed -n "s/^PACKAGE_VERSION='\(.*\)'/\1/p" "$src/configure")
    [ "$v" = "$version" ] || die "$source_path holds ORBit2 $v, not $version" 1
    if [ ! -e "$stamp" ]; then
        rm -rf "$prefix"
        [ -e "$src/Makefile" ] && child -C "$src" make distclean >>"$log" 2>&1 || true
        step "configuring (prefix $prefix)"
        child -C "$src" env CFLAGS="$orbit2_cflags" ./configure --prefix="$prefix" \
            $orbit2_configure >>"$log" 2>&1 || fail "configure"
        step "building with $jobs jobs (about a minute on 2 idle cores)"
        child -C "$src" make -j"$jobs" >>"$log" 2>&1 || fail "make"
        echo "$what" > "$stamp"
        partial="$prefix $work/stage"
    fi
    local stage="$work/stage"
    rm -rf "$stage" "$prefix"
    step "installing into a staging folder"
    child -C "$src" env DESTDIR="$stage" make install >>"$log" 2>&1 || fail "make install"
    stray=$(cd "$stage" && find . -mindepth 1 \( -type f -o -type l \) | grep -v "^\.$prefix/" | head -5 || true)
    [ -z "$stray" ] || die "make install put files outside the prefix (left in $stage, not installed): $stray" 1
    mkdir -p "$(dirname "$prefix")"
    mv "$stage$prefix" "$prefix"
    rm -rf "$stage"
    [ -x "$prefix/bin/orbit-idl-2" ] || fail "make install (no bin/orbit-idl-2)"
    step "checking orbit-idl-2 makes stubs that compile against its own headers"
    local chk="$work/idlcheck" cflags
    rm -rf "$chk"
    mkdir -p "$chk"
    cflags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags ORBit-2.0)
    (cd "$chk" && "$prefix/bin/orbit-idl-2" -I"$top/idl" "$top/idl/echo.idl" &&
        gcc -c $cflags echo-skels.c -o echo-skels.o) >>"$log" 2>&1 ||
        fail "the orbit-idl-2 check"
    # The build's identity, which the echo server reports on its second
    # --version line (the result's orb.build), and what a program built
    # against it compiles and links with (the Makefile reads them).
    echo "gcc $(gcc -dumpfullversion) CFLAGS $orbit2_cflags, glib $(pkg-config --modversion glib-2.0), libIDL $(pkg-config --modversion libIDL-2.0), configure $orbit2_configure, no source patch" \
        > "$prefix/BUILD_INFO"
    echo "$cflags" > "$prefix/CFLAGS"
    PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --libs ORBit-2.0 > "$prefix/LIBS"
    echo "$version" > "$prefix/ORB_VERSION"
    partial=""
    say "done: $id in $prefix ($(du -sh "$prefix" | cut -f1); build folder $(du -sh "$work" | cut -f1)); now run make to build bin/orbs/$id/echo-server"
}
