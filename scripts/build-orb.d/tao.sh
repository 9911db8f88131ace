# shellcheck shell=bash disable=SC2154
# build-orb's TAO build: a DOCGroup ACE+TAO release, with MPC's gnuace
# makefiles (docs/servers.md#tao). Also decides whether a finished
# build only gets the callers' libraries (tao_add_callers).
# Sourced by scripts/build-orb, whose options, traps, set -euo pipefail,
# helpers (child, say, die, fail, step) and globals (orb, version,
# prefix, work, log, stamp...: SC2154 off) it uses.

# ---- TAO: a DOCGroup ACE+TAO release, built with MPC's gnuace makefiles --
# Only what an echo server needs: ACE, gperf and TAO_IDL (to compile IDL),
# TAO, AnyTypeCode, PortableServer, and for UIOP (Unix sockets)
# Strategies with the PI and CodecFactory it pulls in.
tao_projects="ace/ace.mpc apps/gperf/src TAO/TAO_IDL TAO/tao/tao.mpc
TAO/tao/AnyTypeCode/AnyTypeCode.mpc TAO/tao/PortableServer/PortableServer.mpc
TAO/tao/PI/PI.mpc TAO/tao/CodecFactory/CodecFactory.mpc
TAO/tao/Strategies/Strategies.mpc"
# And what TAO's own client needs (callers/tao: DII deferred calls, AMI,
# the call timeout policy): DynamicInterface, Messaging, and the Valuetype
# that Messaging's ExceptionHolder is. A build made without them gets them
# as an added step (built-callers, the projects it added), not a rebuild.
tao_caller_projects="TAO/tao/Valuetype/Valuetype.mpc
TAO/tao/Messaging/Messaging.mpc TAO/tao/DynamicInterface/DynamicInterface.mpc"
callers_stamp="$work/built-callers"
tao_add_callers=0
if [ "$orb" = tao ] && [ -e "$stamp" ] &&
   [ "$(cat "$callers_stamp" 2>/dev/null)" != "$(echo $tao_caller_projects)" ]; then
    tao_add_callers=1
fi
# TAO_HAS_INTERCEPTORS 0: with today's two-phase name lookup (gcc >= 4.7)
# TAO 2.2's portable-interceptor code (tao/Any_Insert_Policy_T.h) picks a
# private CORBA::Any::operator<<= for every basic type; -fpermissive and
# older standards do not change that (docs/servers.md#tao).
tao_macros="TAO_HAS_INTERCEPTORS=0"
# tao_workspace ROOT: the MPC workspace of every project build-orb builds.
tao_workspace() {
    local p
    { echo "workspace {"; for p in $tao_projects $tao_caller_projects; do
          [ -e "$1/$p" ] || die "$source_path has no $p" 1
          echo "  $p"; done; echo "}"; } > "$1/orbbench.mwc"
}
build_tao() {
    local src="$work/src" root="" v
    partial="$prefix $work/stage"
    [ -e "$stamp" ] || partial="$src $partial"
    if [ -e "$stamp" ]; then
        say "reusing the build in $work (--clean to rebuild)"
    else
        rm -rf "$src"
        mkdir -p "$src"
        if [ -d "$source_path" ]; then
            if [ -d "$source_path/ACE_wrappers" ]; then
                child cp -a "$source_path/ACE_wrappers" "$src/" || fail "copying $source_path"
            else
                child cp -a "$source_path" "$src/ACE_wrappers" || fail "copying $source_path"
            fi
        else
            step "unpacking $source_path"
            child tar -xf "$source_path" -C "$src" >>"$log" 2>&1 || fail "unpacking $source_path"
        fi
    fi
    root=$(ls -d "$src"/ACE_wrappers "$src"/*/ACE_wrappers 2>/dev/null | head -1 || true)
    [ -n "$root" ] && [ -e "$root/ace/ACE.h" ] && [ -e "$root/TAO/tao/Version.h" ] &&
        [ -e "$root/MPC/mwc.pl" ] ||
        die "$source_path is not an ACE+TAO release (no ACE_wrappers/ with ace/, TAO/tao/ and MPC/)" 1
    v=$(sed -n 's/^#define TAO_VERSION "\(.*\)"/\1/p' "$root/TAO/tao/Version.h")
    [ "$v" = "$version" ] || die "$source_path holds TAO $v, not $version" 1
    local ace_v gxx cfg plat
    ace_v=$(sed -n 's/^#define ACE_VERSION "\(.*\)"/\1/p' "$root/ace/Version.h")
    gxx=$(g++ -dumpfullversion)
    export ACE_ROOT="$root" TAO_ROOT="$root/TAO" MPC_ROOT="$root/MPC"
    export LD_LIBRARY_PATH="$root/lib" # tao_idl runs while TAO is built
    # Headers glibc 2.36 no longer has (STREAMS, sysctl); whether they are
    # there is asked of the compiler, not assumed.
    local lacks="" h
    for h in stropts.h:ACE_LACKS_STROPTS_H:ACE_LACKS_STRRECVFD sys/sysctl.h:ACE_LACKS_SYS_SYSCTL_H; do
        echo "#include <${h%%:*}>" | g++ -E -x c++ - >/dev/null 2>&1 ||
            lacks="$lacks $(echo "${h#*:}" | tr : ' ')"
    done
    if [ ! -e "$stamp" ]; then
        cfg="$root/ace/config.h"
        {
            echo "/* Written by orbbench's scripts/build-orb. */"
            echo "#ifndef ACE_CONFIG_H"
            echo "#define ACE_CONFIG_H"
            for m in $lacks; do echo "#define $m"; done
            for m in $tao_macros; do echo "#define ${m%%=*} ${m#*=}"; done
            echo '#include "ace/config-linux.h"'
            echo "#endif"
        } > "$cfg"
        plat="$root/include/makeinclude/platform_macros.GNU"
        {
            echo "# Written by orbbench's scripts/build-orb."
            echo "ssl = 0"
            echo "threads = 1"
            echo "inline = 1"
            echo "optimize = 1"
            echo "debug = 0"
            echo "CCFLAGS += -std=$std"
            echo 'include $(ACE_ROOT)/include/makeinclude/platform_linux.GNU'
        } > "$plat"
        tao_workspace "$root"
        step "generating makefiles with MPC (gnuace)"
        child -C "$root" perl bin/mwc.pl -type gnuace orbbench.mwc >>"$log" 2>&1 ||
            fail "MPC (bin/mwc.pl)"
        step "building ACE and TAO with $jobs jobs (20 CPU-minutes: about 11 minutes on 2 idle cores)"
        child -C "$root" make -j"$jobs" >>"$log" 2>&1 || fail "make"
        echo "$what" > "$stamp"
        echo $tao_caller_projects > "$callers_stamp"
        partial="$prefix $work/stage"
    elif [ "$tao_add_callers" = 1 ]; then
        # The workspace again, with the callers' projects: MPC rewrites
        # only the makefiles that change, and make builds only what is
        # missing. A failure leaves the build and its installation as
        # they were (a rerun goes on from where it stopped).
        partial=""
        tao_workspace "$root"
        step "adding the callers' libraries (DynamicInterface, Messaging, Valuetype): MPC"
        child -C "$root" perl bin/mwc.pl -type gnuace orbbench.mwc >>"$log" 2>&1 ||
            fail "MPC (bin/mwc.pl)"
        step "building them with $jobs jobs (1.5 CPU-minutes: about a minute on 2 idle cores)"
        child -C "$root" make -j"$jobs" >>"$log" 2>&1 || fail "make"
        echo $tao_caller_projects > "$callers_stamp"
        partial="$prefix $work/stage"
    fi
    local stage="$work/stage"
    rm -rf "$stage" "$prefix"
    step "installing into a staging folder"
    child -C "$root" make install INSTALL_PREFIX="$stage$prefix" >>"$log" 2>&1 ||
        fail "make install"
    stray=$(cd "$stage" && find . -mindepth 1 \( -type f -o -type l \) | grep -v "^\.$prefix/" | head -5 || true)
    [ -z "$stray" ] || die "make install put files outside the prefix (left in $stage, not installed): $stray" 1
    mkdir -p "$(dirname "$prefix")"
    mv "$stage$prefix" "$prefix"
    rm -rf "$stage"
    [ -x "$prefix/bin/tao_idl" ] || fail "make install (no bin/tao_idl)"
    # What a program built against this TAO must be compiled with (the
    # Makefile reads it), and the build's identity, which the echo server
    # reports on its second --version line (the result's orb.build).
    echo "-std=$std -pthread -D_GNU_SOURCE -D__ACE_INLINE__ -DACE_NDEBUG -DNDEBUG" \
        > "$prefix/CXXFLAGS"
    local libs
    libs=$(cd "$prefix/lib" && ls libACE.so libTAO*.so | sed 's/^lib//; s/\.so$//' | tr '\n' ' ')
    echo "ACE $ace_v, g++ $gxx -std=$std -O3, MPC gnuace optimize=1 inline=1 ssl=0, config.h:$lacks $tao_macros, libraries: ${libs% }" \
        > "$prefix/BUILD_INFO"
    echo "$version" > "$prefix/ORB_VERSION"
    partial=""
    say "done: $id in $prefix ($(du -sh "$prefix" | cut -f1); build folder $(du -sh "$work" | cut -f1)); now run make to build bin/orbs/$id/echo-server"
}
