# shellcheck shell=bash disable=SC2154
# build-orb's JacORB build: JacORB's own ant build, on Debian's JDK
# (docs/servers.md#jacorb).
# Sourced by scripts/build-orb, whose options, traps, set -euo pipefail,
# helpers (child, say, die, fail, step) and globals (orb, version,
# prefix, work, log, stamp...: SC2154 off) it uses.

# ---- JacORB: JacORB's own ant build, on Debian's JDK ------------------------
# JacORB 3.4's build.xml was written for JDK 8 and before. On 17 it takes
# these patches of the copied tree, each recorded in BUILD_INFO
# (docs/servers.md#jacorb says what failed without them):
#  1. etc/common.xml: javac gets no boot class path (JDK 9 and later have
#     no sun.boot.class.path, and javac refuses --boot-class-path for a
#     JDK 9+ target); JacORB's OMG classes are on its source path instead;
#  2. etc/common.xml: src/omg-03-01-02 (the OMG's Java mapping, carried by
#     JacORB) on the source path: the IDL compiler uses org.omg.CORBA,
#     which the JDK held until 11;
#  3. etc/common.xml: rmi-stub/src/main/java on the source path: JacORB's
#     own no-op javax.rmi classes (its master, 2022) stand in for the JDK's
#     RMI-IIOP, gone since 11, which the ORB's core names
#     (org.jacorb.orb.Reference extends javax.rmi.CORBA.Stub);
#  4. the template of org/jacorb/util/Version.java filled in (Maven's job).
# ant -Djava-source-version=8 (javac -source 8 -target 8): the language
# level of JacORB's day; ant --noconfig: no ~/.antrc or /etc/ant.conf.
jacorb_patches="etc/common.xml: javac without a boot class path, src/omg-03-01-02 and rmi-stub/src/main/java on the source path; rmi-stub: JacORB's no-op javax.rmi classes (its master) for the JDK's RMI-IIOP, gone since 11; Version.java's template filled in"
build_jacorb() {
    local src="$work/src" root="" v jdk_javac java_bin jar_bin
    take_source "$src"
    # The tree's top (a tarball may hold it in a folder of its own).
    root=$(ls -d "$src" "$src"/* 2>/dev/null | while read -r d; do
               [ -e "$d/src/org/jacorb/build.xml" ] && echo "$d"; done | head -1 || true)
    [ -n "$root" ] && [ -e "$root/build.xml" ] && [ -e "$root/etc/common.xml" ] ||
        die "$source_path is not a tree of JacORB's ant build (no build.xml, etc/common.xml and src/org/jacorb/build.xml; JacORB's master is Maven-only: take git archive RELEASE_3_4)" 1
    # The project's version: pom.xml's first <version> after its parent's.
    v=$(sed -n '/<\/parent>/,$ s|^[[:space:]]*<version>\(.*\)</version>.*|\1|p' "$root/pom.xml" 2>/dev/null | head -1)
    [ "$v" = "$version" ] || die "$source_path holds JacORB ${v:-of no known version}, not $version" 1
    [ -e "$root/rmi-stub/src/main/java/javax/rmi/CORBA/Util.java" ] ||
        die "$source_path has no rmi-stub/: the JDK has had no javax.rmi.CORBA since 11 and JacORB $version's ORB uses it; add JacORB's own stubs (git --git-dir=JACORB_GIT archive master rmi-stub | tar -x -C $source_path; docs/servers.md#jacorb)" 1
    jdk_javac=$(readlink -f "$(command -v javac)")
    java_bin=$(dirname "$jdk_javac")/java
    jar_bin=$(dirname "$jdk_javac")/jar
    [ -x "$java_bin" ] && [ -x "$jar_bin" ] || die "$jdk_javac has no java and jar beside it: not a JDK" 1
    if [ ! -e "$stamp" ]; then
        rm -rf "$prefix"
        step "patching etc/common.xml and Version.java for JDK $("$jdk_javac" -version 2>&1 | cut -d' ' -f2)"
        /usr/bin/python3 - "$root/etc/common.xml" >>"$log" 2>&1 <<'PY' || fail "patching etc/common.xml"
import re, sys
path = sys.argv[1]
text = open(path, encoding="utf-8").read()
# 1: the JDK target's javac without <javac-bootclasspath>.
start = text.index('<target name="init-javac-jdk"')
end = text.index("</target>", start)
target = re.sub(r"\s*<javac-bootclasspath>.*?</javac-bootclasspath>", "",
                text[start:end], flags=re.S)
if target == text[start:end]:
    sys.exit("common.xml: no <javac-bootclasspath> in init-javac-jdk")
text = text[:start] + target + text[end:]
# 2, 3: the OMG mapping and the rmi-stub after ${src} on the source path.
src = '            <pathelement location="${src}" />\n'
if text.count(src) != 1:
    sys.exit("common.xml: sourcepath.base's ${src} not found once")
text = text.replace(src, src +
    '            <pathelement location="${src}/omg-03-01-02" />\n'
    '            <pathelement location="${basedir}/rmi-stub/src/main/java" />\n')
open(path, "w", encoding="utf-8").write(text)
print("patched", path)
PY
        local tpl="$root/src/main/resources/org/jacorb/util/Version.java" day
        [ -e "$tpl" ] || die "$source_path has no $tpl" 1
        day=$(date -u -r "$root/pom.xml" +%Y-%m-%d)
        sed -i -e "s/@project.version@/$version/" -e "s/@releaseYear@/${day%%-*}/" \
            -e "s/@timestamp@/$day/" -e "s/@buildNumber@/orbbench build-orb/" "$tpl"
        step "building with ant (the IDL compiler, the OMG IDL, the ORB and its services: 2-3 minutes on 2 cores)"
        child -C "$root" env -u JAVA_TOOL_OPTIONS -u _JAVA_OPTIONS -u JDK_JAVA_OPTIONS \
            -u ANT_OPTS -u ANT_ARGS -u CLASSPATH ant --noconfig $jacorb_ant_flags all \
            >>"$log" 2>&1 || fail "ant"
        step "packing rmi-stub's classes (javax.rmi) into jacorb-rmi-stub.jar"
        child "$jar_bin" cf "$root/lib/jacorb-rmi-stub.jar" -C "$root/classes" javax >>"$log" 2>&1 ||
            fail "jar of rmi-stub"
        echo "$what" > "$stamp"
        partial="$prefix $work/stage"
    fi
    local stage="$work/stage" j
    rm -rf "$stage" "$prefix"
    step "installing into a staging folder"
    mkdir -p "$stage/lib" "$stage/bin"
    # The ORB, the OMG API, the IDL compiler, the javax.rmi stubs and the
    # logging jars jacorb.jar's manifest names; not the services (naming,
    # notification, ...), which an echo server does not load.
    for j in jacorb.jar jacorb-omgapi.jar idl.jar jacorb-rmi-stub.jar slf4j-api-*.jar slf4j-jdk14-*.jar; do
        set -- "$root"/lib/$j
        [ -e "$1" ] || fail "the build (no lib/$j)"
        cp "$@" "$stage/lib/"
    done
    # The run-time class path, relative to the prefix (which may be
    # reached through a link: the Makefile makes it absolute).
    local cp_run=""
    for j in jacorb.jar jacorb-omgapi.jar jacorb-rmi-stub.jar "$(cd "$stage/lib" && ls slf4j-api-*.jar)" \
             "$(cd "$stage/lib" && ls slf4j-jdk14-*.jar)"; do
        cp_run="$cp_run${cp_run:+:}lib/$j"
    done
    {
        echo '#!/bin/sh'
        echo "# JacORB $version's IDL compiler (scripts/build-orb), on the JDK it was built with."
        echo 'd=$(cd "$(dirname "$0")/.." && pwd)'
        echo "exec \"$java_bin\" -cp \"\$d/lib/idl.jar:\$d/lib/jacorb-omgapi.jar\" org.jacorb.idl.parser \"\$@\""
    } > "$stage/bin/idl"
    chmod +x "$stage/bin/idl"
    mkdir -p "$(dirname "$prefix")"
    mv "$stage" "$prefix"
    # What a program built against this JacORB is compiled and run with
    # (the Makefile reads them): the JDK's javac and java, the class path.
    echo "$jdk_javac" > "$prefix/JAVAC"
    echo "$java_bin" > "$prefix/JAVA"
    echo "$cp_run" > "$prefix/CLASSPATH"
    step "checking its IDL compiler makes stubs of idl/echo.idl that compile against it"
    local chk="$work/idlcheck"
    rm -rf "$chk"
    mkdir -p "$chk/gen" "$chk/classes"
    (child "$prefix/bin/idl" -all -I"$top/idl" -d "$chk/gen" "$top/idl/echo.idl" &&
        find "$chk/gen" -name '*.java' > "$chk/files" &&
        child "$jdk_javac" -nowarn -cp "$(echo ":$cp_run" | sed "s|:|:$prefix/|g")" \
            -d "$chk/classes" @"$chk/files") >>"$log" 2>&1 ||
        fail "the IDL compiler check"
    # The build's identity, which the echo server reports on its second
    # --version line (the result's orb.build).
    local rt ant_v
    rt=$("$java_bin" -version 2>&1 | sed -n 's/.*(build \(.*\))$/\1/p' | head -1)
    ant_v=$(ant --noconfig -version 2>/dev/null | sed -n 's/.*version \([^ ]*\).*/\1/p')
    echo "OpenJDK $rt ($jdk_javac), ant $ant_v --noconfig $jacorb_ant_flags (javac -source 8 -target 8 -g:vars,lines,source), patches: $jacorb_patches" \
        > "$prefix/BUILD_INFO"
    echo "$version" > "$prefix/ORB_VERSION"
    partial=""
    say "done: $id in $prefix ($(du -sh "$prefix" | cut -f1); build folder $(du -sh "$work" | cut -f1)); now run make to build bin/orbs/$id/echo-server"
}
