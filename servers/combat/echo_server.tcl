#!/usr/bin/env tclsh
# Combat (Tcl ORB) echo server for orbbench: one Bench::Echo object, its IOR
# as one line on stdout, then serves until killed. `--version` prints
# "Combat VERSION". Endpoint: -ORBHostName 127.0.0.1 -ORBServerPort 0.
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
        {} {}}}}}}}

itcl::class Echo {
    inherit PortableServer::ServantBase
    public method _Interface {} { return IDL:Bench/Echo:1.0 }
    private variable oneways 0
    public method echoString {mesg} { return $mesg }
    public method sendOneway {mesg} { incr oneways }
    public method onewayCount {} { return $oneways }
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
