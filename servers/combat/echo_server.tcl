#!/usr/bin/env tclsh
# Combat (Tcl ORB) echo server for orbbench: one Bench::Echo object, its IOR
# as one line on stdout, then serves until killed. `--version` prints
# "Combat VERSION". Endpoint: -ORBHostName 127.0.0.1 -ORBServerPort 0.
# makeObjects (kind objects) makes more Bench::Echo objects, as the C++
# servers do (servers/common/objects.hh), with Combat's POA.
package require combat

if {[lindex $argv 0] eq "--version"} {
    # The Tcl package says only "0.8"; dpkg knows the release (0.8.1) when
    # it installed the Combat that was loaded.
    set version [package present combat]
    set file [lindex [package ifneeded combat $version] end]
    if {![catch {exec dpkg-query -S $file} owner] &&
        ![catch {exec dpkg-query -W -f {${Version}} \
                     [lindex [split $owner :] 0]} deb]} {
        regsub -- {-[^-]*$} $deb {} version
    }
    puts "Combat $version"
    exit 0
}

# Bench::Echo (idl/echo.idl), given to Combat's in-process type table:
# no interface repository and no idl2tcl step.
combat::ir add {{module {IDL:Bench:1.0 Bench 1.0} {{interface
    {IDL:Bench/Echo:1.0 Echo 1.0} {} {
    {operation {IDL:Bench/Echo/echoString:1.0 echoString 1.0} string
        {{in mesg string}} {}}
    {operation {IDL:Bench/Echo/sendOneway:1.0 sendOneway 1.0} void
        {{in mesg string}} {} oneway}
    {operation {IDL:Bench/Echo/onewayCount:1.0 onewayCount 1.0} string
        {} {}}
    {operation {IDL:Bench/Echo/makeObjects:1.0 makeObjects 1.0}
        {unsigned long long}
        {{in count {unsigned long}} {in defaultServant boolean}
         {out first Object} {out last Object}
         {out policies string}} {}}}}}}}

itcl::class Echo {
    inherit PortableServer::ServantBase
    public method _Interface {} { return IDL:Bench/Echo:1.0 }
    private variable oneways 0
    public method echoString {mesg} { return $mesg }
    public method sendOneway {mesg} { incr oneways }
    public method onewayCount {} { return $oneways }
    # The out arguments come as the names of the caller's variables.
    public method makeObjects {count defaultServant firstVar lastVar
                               policiesVar} {
        upvar 1 $firstVar first $lastVar last $policiesVar policies
        return [make_objects $count $defaultServant first last policies]
    }
}

# idl/echo.idl's makeObjects (docs/kinds/objects.md): one child POA of the
# RootPOA, "objects", made at the first call under the RootPOA's manager,
# with USER_ID, RETAIN and USE_ACTIVE_OBJECT_MAP_ONLY (a servant each) or
# USER_ID, NON_RETAIN, USE_DEFAULT_SERVANT and MULTIPLE_ID (one default
# servant); object i's ObjectId is i as 8 decimal digits. Combat's clock
# counts microseconds: the time returned is a multiple of 1000 ns.
set objects(poa) ""
set objects(made) 0
proc make_objects {count shared firstVar lastVar policiesVar} {
    global objects
    upvar 1 $firstVar first $lastVar last $policiesVar policies
    set bad {IDL:omg.org/CORBA/BAD_PARAM:1.0 {minor 0 completion_status
        COMPLETED_NO}}
    if {$count == 0 || $count > (1 << 20) ||
        $count > 99999999 - $objects(made)} {
        error $bad
    }
    set words [expr {$shared
        ? {USER_ID NON_RETAIN USE_DEFAULT_SERVANT MULTIPLE_ID}
        : {USER_ID RETAIN USE_ACTIVE_OBJECT_MAP_ONLY}}]
    if {$objects(poa) eq ""} {
        set root [corba::resolve_initial_references RootPOA]
        set objects(poa) [$root create_POA objects [$root the_POAManager] \
                              $words]
        set objects(shared) $shared
        if {$shared} {
            $objects(poa) set_servant [Echo #auto]
        }
    } elseif {$shared != $objects(shared)} {
        error {IDL:omg.org/CORBA/BAD_INV_ORDER:1.0 {minor 0
            completion_status COMPLETED_NO}}
    }
    set poa $objects(poa)
    set t0 [clock microseconds]
    for {set k 0} {$k < $count} {incr k} {
        set oid [format %08d [expr {$objects(made) + $k}]]
        if {$shared} {
            set ref [$poa create_reference_with_id $oid IDL:Bench/Echo:1.0]
        } else {
            $poa activate_object_with_id $oid [Echo #auto]
            set ref [$poa id_to_reference $oid]
        }
        # Combat releases the out references once it has sent them; the
        # others are released here, as the C++ servers release theirs.
        if {$k == 0} { set first [corba::duplicate $ref] }
        if {$k == $count - 1} { set last [corba::duplicate $ref] }
        corba::release $ref
    }
    set us [expr {[clock microseconds] - $t0}]
    incr objects(made) $count
    set policies $words
    return [expr {$us * 1000}]
}

# Combat listens on every interface and only names -ORBHostName in its
# IORs: listen on that address alone, and only on a loopback one.
itcl::body ::Combat::IIOP::TCPServer::listen {{myport 0}} {
    set host $::Combat::CORBA::ORB::hostname
    if {![regexp {^(127\.[0-9.]+|::1|localhost)$} $host]} {
        error "-ORBHostName $host: not a loopback address"
    }
    set sock [socket -server ::Combat::IIOP::TCPServer::accept \
                  -myaddr $host $myport]
    set port [lindex [fconfigure $sock -sockname] 2]
}

if {[catch {
    corba::init {*}$argv
    set poa [corba::resolve_initial_references RootPOA]
    set ref [$poa id_to_reference [$poa activate_object [Echo #auto]]]
    [$poa the_POAManager] activate
    puts [corba::object_to_string $ref]
    flush stdout
} err]} {
    puts stderr "combat-echo-server: $err"
    exit 1
}
vwait forever
