# orbbench: one Makefile. `make` builds, `make test` tests, `make run` runs
# the default scenarios. Missing Debian packages are installed first (as
# root) or named with the command to install them.

VERSION := 0.1.0
PYTHON := /usr/bin/python3

comma := ,
ifdef SANITIZE
BUILD := build/san-$(subst $(comma),-,$(SANITIZE))
BIN := $(BUILD)/bin
# -fno-sanitize-recover=all: a UBSan report aborts the process (by
# default UBSan prints and carries on, so a test run with reports passed).
SANFLAGS := -fsanitize=$(SANITIZE) -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
else
BUILD := build/release
BIN := bin
SANFLAGS :=
endif

CC := gcc
CXX := g++
# -Wno-format-truncation: messages are one bounded line by design; cutting
# a long path short is intended, not a bug.
WARN := -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes \
	-Wmissing-prototypes -Wno-format-truncation -Werror
# EXTRA_*: a packager's flags (debian/rules: dpkg-buildflags' hardening).
CFLAGS := -std=c11 -D_GNU_SOURCE -O2 -g $(WARN) $(SANFLAGS) $(EXTRA_CFLAGS)
CXXFLAGS := -std=c++11 -O2 -g -Wall $(SANFLAGS) $(EXTRA_CXXFLAGS)
LDFLAGS := $(SANFLAGS) $(EXTRA_LDFLAGS)
# make deb builds from a copy without .git: it passes GIT_REV down.
ifndef GIT_REV
GIT_REV := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
endif
DEFS := -DORBBENCH_VERSION='"$(VERSION)"' -DORBBENCH_CFLAGS='"$(CFLAGS)"'
# Expanded when a recipe runs, i.e. after `deps` has installed pkg-config.
OMNI_LIBS = $(shell pkg-config --libs omniORB4)
OMNI_DYN_LIBS = $(shell pkg-config --libs omniDynamic4)

# client/ by layer, each using only the ones before it (docs/architecture.md;
# `make check-layers` enforces it): core/ (scenario, result, statistics,
# the crossing estimate and search, util), codec/ (CDR, GIOP, IOR,
# payloads), net/ (transports, wires, connections), modes/ (call modes),
# host/ (spawner, server kinds and sources, machine, /proc probes), kinds/
# (one file per kind of measurement, their registry, and what they share;
# no kind includes another's header), and at the top main.c and the ior
# subcommand. Only client/ is on the include path: a module includes
# "layer/name.h", so every include says which layer it reaches into.
CLIENT_DIRS := client client/core client/codec client/net client/modes \
	client/host client/kinds
CLIENT_INC := -Iclient
CLIENT_SRCS := $(wildcard $(addsuffix /*.c,$(CLIENT_DIRS)))
CLIENT_OBJS := $(CLIENT_SRCS:client/%.c=$(BUILD)/client/%.o)
LIB_OBJS := $(filter-out $(BUILD)/client/main.o,$(CLIENT_OBJS))
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
GEN := $(BUILD)/gen

.PHONY: FORCE all deps build test test-long test-unit test-py test-e2e test-e2e-shared test-e2e-serial check-layers crossing-replay check-sanitizers run report bench \
	compare-orbs resolution clean help fuzz fuzz-smoke fuzz-build fuzz-deps fuzz-gate \
	man completion install deb deb-deps
.DEFAULT_GOAL := all

all: build

help:
	@echo "make            build bin/orbbench and the echo servers"
	@echo "make test       unit tests (cmocka, pytest) and end-to-end tests but the long ones (pytest)"
	@echo "make test-long  the tests marked long (real suites, a build, long simulations); CI runs both"
	@echo "make test-unit  the cmocka unit tests alone; test-py the tests that need no build; test-e2e the end-to-end ones (test-e2e-shared, then test-e2e-serial)"
	@echo "make check-layers  no include in client/ points up a layer or into another kind"
	@echo "make run        run scenarios/grisby into results/ and print its summary"
	@echo "make report     run the suite (or RESULTS=folder), plot it, write a report"
	@echo "make bench      single-call latency and 100 servers in flight"
	@echo "make compare-orbs  omniORB 4.3.3 against the system's, 3 paired repeats"
	@echo "make resolution    A/A and A/B (server.work_us) paired suites: can compare tell?"
	@echo "make SANITIZE=address,undefined test   sanitized build in build/"
	@echo "make fuzz       libFuzzer on the decoders, FUZZ_SECONDS (60) per target"
	@echo "make fuzz-gate  the gate's property tests, FUZZ_GATE_SECONDS (1200) each"
	@echo "make fuzz-smoke the same for 5 s per target (CI)"
	@echo "make install PREFIX=/usr/local DESTDIR=   client, servers, scripts, man pages, completion"
	@echo "make deb       build/deb/orbbench_$(VERSION)_ARCH.deb (debhelper)"
	@echo "make clean     remove build/ and bin/"

# NO_DEPS=1: the packages are there already (debian/rules: Build-Depends).
deps:
	@$(if $(NO_DEPS),true,scripts/install-deps)

# Other ORB installations (scripts/build-orb): one echo server each, stubs
# from that installation's omniidl, linked with an rpath to its libraries.
ORBS_DIR := orbs
ORB_IDS := $(patsubst $(ORBS_DIR)/%/bin/omniidl,%,\
	$(wildcard $(ORBS_DIR)/*/bin/omniidl))
ORB_SERVERS := $(ORB_IDS:%=$(BIN)/orbs/%/echo-server)
# TAO builds (scripts/build-orb tao): one echo server each, stubs from that
# build's tao_idl; none when no TAO is built.
TAO_IDS := $(patsubst $(ORBS_DIR)/%/bin/tao_idl,%,\
	$(wildcard $(ORBS_DIR)/*/bin/tao_idl))
TAO_SERVERS := $(TAO_IDS:%=$(BIN)/orbs/%/echo-server)
# ORBit2 builds (scripts/build-orb orbit2): the same, stubs from that
# build's orbit-idl-2.
ORBIT2_IDS := $(patsubst $(ORBS_DIR)/%/bin/orbit-idl-2,%,\
	$(wildcard $(ORBS_DIR)/*/bin/orbit-idl-2))
ORBIT2_SERVERS := $(ORBIT2_IDS:%=$(BIN)/orbs/%/echo-server)
# JacORB builds (scripts/build-orb jacorb): found by their jacorb.jar (their
# IDL compiler's name, bin/idl, is not JacORB's alone).
JACORB_IDS := $(patsubst $(ORBS_DIR)/%/lib/jacorb.jar,%,\
	$(wildcard $(ORBS_DIR)/*/lib/jacorb.jar))
JACORB_SERVERS := $(JACORB_IDS:%=$(BIN)/orbs/%/echo-server)
# Callers (docs/callers.md): orbbench's own, omniORB's for the system's
# installation and for every omniORB build above (bin/orbs/ID/caller).
OMNI_CALLERS := $(ORB_IDS:%=$(BIN)/orbs/%/caller)
# Each TAO and ORBit2 build's own client too (callers/tao, callers/orbit2),
# beside its echo server.
TAO_CALLERS := $(TAO_IDS:%=$(BIN)/orbs/%/caller)
ORBIT2_CALLERS := $(ORBIT2_IDS:%=$(BIN)/orbs/%/caller)
CALLERS := $(BIN)/orbbench-caller $(BIN)/omniorb-caller $(OMNI_CALLERS) \
	$(TAO_CALLERS) $(ORBIT2_CALLERS)
CALLER_COMMON := callers/common/caller.c callers/common/caller.h

# omniORBpy builds (scripts/build-orb omniorbpy): a Python script each,
# with stubs from the omniidl that build matches.
OMNIORBPY_IDS := $(patsubst $(ORBS_DIR)/%/PYTHONPATH,%,\
	$(wildcard $(ORBS_DIR)/omniorbpy-*/PYTHONPATH))
OMNIORBPY_SERVERS := $(OMNIORBPY_IDS:%=$(BIN)/orbs/%/echo-server)
# MICO builds (scripts/build-orb mico): stubs from that build's idl.
MICO_IDS := $(patsubst $(ORBS_DIR)/%/bin/mico-cpp,%,\
	$(wildcard $(ORBS_DIR)/mico-*/bin/mico-cpp))
MICO_SERVERS := $(MICO_IDS:%=$(BIN)/orbs/%/echo-server)
# Callers of JacORB, MICO and omniORBpy (callers/jacorb, callers/mico,
# callers/omniorbpy): one for every build of theirs (bin/orbs/ID/caller).
JACORB_CALLERS := $(JACORB_IDS:%=$(BIN)/orbs/%/caller)
MICO_CALLERS := $(MICO_IDS:%=$(BIN)/orbs/%/caller)
OMNIORBPY_CALLERS := $(OMNIORBPY_IDS:%=$(BIN)/orbs/%/caller)
CALLERS += $(JACORB_CALLERS) $(MICO_CALLERS) $(OMNIORBPY_CALLERS)

build: $(BIN)/orbbench $(BIN)/omniorb-echo-server $(ORB_SERVERS) $(TAO_SERVERS) \
	$(ORBIT2_SERVERS) \
	$(JACORB_SERVERS) $(OMNIORBPY_SERVERS) $(MICO_SERVERS) $(CALLERS) \
	$(BIN)/raw-server $(BIN)/giop-min-server $(BIN)/combat-echo-server \
	$(BIN)/omniorb-event-consumer $(BIN)/omniorb-marshal-bench

# ---- the client ----------------------------------------------------------
# The git revision goes into a header rewritten only when it changes, so
# that what includes it (the result's tool.git_revision) is rebuilt then:
# a -D flag would keep the revision of whichever build last compiled it.
REV_H := $(GEN)/revision.h
$(REV_H): FORCE
	@mkdir -p $(@D)
	@echo '#define ORBBENCH_GIT_REV "$(GIT_REV)"' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
FORCE:

$(BUILD)/client/%.o: client/%.c | deps $(REV_H)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEFS) -I$(GEN) $(CLIENT_INC) -MMD -MP -c $< -o $@

# The front door (client/subcmd.c) execs the scripts: from bin/ (or
# build/san-*/bin/) to the checkout's scripts/ folder.
$(BUILD)/client/subcmd.o: DEFS += \
	-DORBBENCH_SCRIPTS_REL='"$(shell realpath -m --relative-to=$(BIN) scripts)"'

$(BUILD)/libclient.a: $(LIB_OBJS)
	ar rcs $@ $^

$(BIN)/orbbench: $(BUILD)/client/main.o $(BUILD)/libclient.a
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ -ljansson -lm

# ---- callers (callers/, docs/callers.md): each ORB's own client ---------
# orbbench's own client as a caller: the client's library, its call modes.
$(BUILD)/callers/%.o: callers/%.c | deps $(REV_H)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEFS) $(CLIENT_INC) -MMD -MP -c $< -o $@

$(BIN)/orbbench-caller: $(BUILD)/callers/orbbench/caller.o \
		$(BUILD)/libclient.a
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ -ljansson -lm -lpthread

# omniORB's caller (callers/omniorb): stubs of its own, with AMI where the
# release has it (omniidl -Wbami, 4.2 and later: omniORB4/ami.h), DII
# (libomniDynamic4: deferred calls); one for the system's omniORB and one
# for every build (bin/orbs/ID/caller), like the echo servers.
CALLER_GEN := $(GEN)/caller
$(CALLER_GEN)/echo.hh $(CALLER_GEN)/echoSK.cc $(CALLER_GEN)/payloadsSK.cc &: \
		idl/echo.idl idl/payloads.idl | deps
	@mkdir -p $(CALLER_GEN)
	omniidl $(OMNIIDL_FLAGS) -Wbami -C$(CALLER_GEN) idl/echo.idl
	omniidl $(OMNIIDL_FLAGS) -C$(CALLER_GEN) idl/payloads.idl

$(BIN)/omniorb-caller: callers/omniorb/caller.cc $(CALLER_GEN)/echo.hh \
		$(CALLER_GEN)/echoSK.cc $(CALLER_GEN)/payloadsSK.cc
	@mkdir -p $(@D)
	$(CXX) $(CXXFLAGS) -DORBBENCH_AMI -I$(CALLER_GEN) -o $@ $< \
		$(CALLER_GEN)/echoSK.cc $(CALLER_GEN)/payloadsSK.cc $(LDFLAGS) \
		$(OMNI_DYN_LIBS)

omni_ami = $(wildcard $(ORBS_DIR)/$1/include/omniORB4/ami.h)
$(BIN)/orbs/%/caller: callers/omniorb/caller.cc idl/echo.idl \
		idl/payloads.idl $(ORBS_DIR)/%/bin/omniidl | deps
	@mkdir -p $(BUILD)/orbs/$*/caller-gen $(@D)
	$(ORBS_DIR)/$*/bin/omniidl $(OMNIIDL_FLAGS) \
		$(if $(call omni_ami,$*),-Wbami) \
		-C$(BUILD)/orbs/$*/caller-gen idl/echo.idl
	$(ORBS_DIR)/$*/bin/omniidl $(OMNIIDL_FLAGS) \
		-C$(BUILD)/orbs/$*/caller-gen idl/payloads.idl
	$(CXX) $(CXXFLAGS) $(if $(call omni_ami,$*),-DORBBENCH_AMI) \
		$(if $(call omni_build,$*),-DORBBENCH_OMNI_BUILD='"$(subst ','\'',$(shell cat $(call omni_build,$*)))"') \
		-I$(BUILD)/orbs/$*/caller-gen -I$(ORBS_DIR)/$*/include \
		-o $@ $< $(BUILD)/orbs/$*/caller-gen/echoSK.cc \
		$(BUILD)/orbs/$*/caller-gen/payloadsSK.cc \
		$(LDFLAGS) -L$(ORBS_DIR)/$*/lib \
		-Wl,-rpath,$(abspath $(ORBS_DIR)/$*/lib) -lomniDynamic4 \
		-lomniORB4 -lomnithread -lpthread

# JacORB's caller (callers/jacorb): stubs with AMI reply handlers (the IDL
# compiler's -ami_callback) of its own, compiled as the echo server's are
# (the generated code without warnings, ours with every lint warning an
# error, JacorbWords.java beside it) into caller.jar, and the server's
# launcher built again to run Caller from it.
JACORB_CGEN = $(BUILD)/orbs/$*/caller-gen
$(JACORB_CALLERS): $(BIN)/orbs/%/caller: callers/jacorb/Caller.java \
		servers/jacorb/JacorbWords.java servers/jacorb/launcher.c \
		idl/echo.idl idl/payloads.idl $(ORBS_DIR)/%/lib/jacorb.jar \
		$(ORBS_DIR)/%/JAVA $(ORBS_DIR)/%/JAVAC $(ORBS_DIR)/%/CLASSPATH \
		$(ORBS_DIR)/%/BUILD_INFO
	@rm -rf $(JACORB_CGEN)
	@mkdir -p $(JACORB_CGEN)/src $(JACORB_CGEN)/classes $(@D)
	$(ORBS_DIR)/$*/bin/idl -ami_callback -all -Iidl -d $(JACORB_CGEN)/src \
		idl/echo.idl
	sed 's|[^:][^:]*|$(abspath $(ORBS_DIR)/$*)/&|g' $(ORBS_DIR)/$*/CLASSPATH \
		> $(JACORB_CGEN)/classpath
	find $(JACORB_CGEN)/src -name '*.java' > $(JACORB_CGEN)/stubs
	$(JACORB_JDK)javac -nowarn -encoding UTF-8 \
		-cp "$$(cat $(JACORB_CGEN)/classpath)" -d $(JACORB_CGEN)/classes \
		@$(JACORB_CGEN)/stubs
	$(JACORB_JDK)javac -Xlint:all -Werror -encoding UTF-8 \
		-cp "$(JACORB_CGEN)/classes:$$(cat $(JACORB_CGEN)/classpath)" \
		-d $(JACORB_CGEN)/classes callers/jacorb/Caller.java \
		servers/jacorb/JacorbWords.java
	$(JACORB_JDK)jar cf $(@D)/caller.jar -C $(JACORB_CGEN)/classes .
	{ $(call c_string,JACORB_JAVA) $(ORBS_DIR)/$*/JAVA; \
	  $(call c_string,JACORB_CLASSPATH) $(JACORB_CGEN)/classpath; \
	  $(call c_string,JACORB_BUILD) $(ORBS_DIR)/$*/BUILD_INFO; } \
		> $(JACORB_CGEN)/launcher.h
	$(CC) $(CFLAGS) -include $(JACORB_CGEN)/launcher.h \
		-DJACORB_MAIN='"Caller"' -DJACORB_JAR='"caller.jar"' \
		-DJACORB_PROG='"jacorb-caller"' -DJACORB_STDOUT_PROTOCOL \
		-o $@ servers/jacorb/launcher.c \
		$(LDFLAGS)

# MICO's caller (callers/mico): the echo server's stubs (MICO's idl makes
# stubs and skeletons in one file: the server's objects hold both), MICO's
# flags as for the server, ours for our file, and orbbench's codec of the
# protocol's lines (C, the client's flags).
$(MICO_CALLERS): $(BIN)/orbs/%/caller: callers/mico/caller.cc \
		$(BIN)/orbs/%/echo-server $(BUILD)/client/codec/caller_proto.o
	@mkdir -p $(@D)
	$(CXX) $(CXXFLAGS) -Wno-deprecated-declarations \
		$(shell cat $(ORBS_DIR)/$*/CXXFLAGS) \
		-DORBBENCH_MICO_BUILD='"$(subst ','\'',$(shell cat $(ORBS_DIR)/$*/BUILD_INFO))"' \
		-I$(MICO_GEN) -I$(ORBS_DIR)/$*/include $(CLIENT_INC) -o $@ \
		callers/mico/caller.cc $(MICO_GEN)/echo.o $(MICO_GEN)/payloads.o \
		$(BUILD)/client/codec/caller_proto.o $(LDFLAGS) \
		-L$(ORBS_DIR)/$*/lib -Wl,--disable-new-dtags \
		-Wl,-rpath,$(abspath $(ORBS_DIR)/$*/lib) \
		$(shell cat $(ORBS_DIR)/$*/LIBS)

# omniORBpy's caller (callers/omniorbpy): installed as the echo server is,
# with stubs of its own that have AMI (-Wbami). The python back end of
# omniORBpy imports omniidl_be.ami, which is omniidl's own (its -p folder
# hides omniidl's omniidl_be): a package folder first on the path joins the
# two (pkgutil.extend_path).
OMNIPY_CGEN = $(BUILD)/orbs/$*/caller-gen
$(OMNIORBPY_CALLERS): $(BIN)/orbs/%/caller: callers/omniorbpy/caller.py \
		idl/echo.idl idl/payloads.idl $(ORBS_DIR)/%/PYTHONPATH \
		$(ORBS_DIR)/%/OMNIIDL $(ORBS_DIR)/%/BUILD_INFO
	@mkdir -p $(@D)
	rm -rf $(OMNIPY_CGEN)
	mkdir -p $(OMNIPY_CGEN)/stubs $(OMNIPY_CGEN)/be/omniidl_be
	printf '%s\n' 'from pkgutil import extend_path' \
		'__path__ = extend_path(__path__, __name__)' \
		> $(OMNIPY_CGEN)/be/omniidl_be/__init__.py
	$(shell cat $(ORBS_DIR)/$*/OMNIIDL) -bpython -Wbami \
		-p $(abspath $(OMNIPY_CGEN)/be) -p $(OMNIPY_SITE) -Iidl \
		-C$(OMNIPY_CGEN)/stubs idl/payloads.idl idl/echo.idl
	OMNIPY_PATH=$(OMNIPY_SITE) STUBS_PATH=$(abspath $(OMNIPY_CGEN)/stubs) \
	BUILD_INFO="$$(cat $(ORBS_DIR)/$*/BUILD_INFO)" $(OMNIPY_FILL) $< $@.tmp
	chmod 755 $@.tmp && mv $@.tmp $@

# ---- ORB-less servers in C (servers/raw, servers/giop_min) ---------------
$(BUILD)/servers/%.o: servers/%.c | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEFS) $(CLIENT_INC) -MMD -MP -c $< -o $@

$(BIN)/raw-server: $(BUILD)/servers/raw/raw_server.o \
		$(BUILD)/servers/common/listen.o
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^

# GIOP on the client's own codec: its objects, not the whole library.
$(BIN)/giop-min-server: $(BUILD)/servers/giop_min/giop_min_server.o \
		$(BUILD)/servers/common/listen.o $(BUILD)/client/codec/cdr.o \
		$(BUILD)/client/codec/giop.o $(BUILD)/client/codec/ior.o \
		$(BUILD)/client/codec/payload.o
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^

# ---- the Combat echo server: a Tcl script, nothing to compile -------------
$(BIN)/combat-echo-server: servers/combat/echo_server.tcl
	@mkdir -p $(@D)
	install -m 755 $< $@

# ---- the omniORB echo server (generated stubs: no -Werror) ---------------
# echo.idl includes payloads.idl (the typed payloads), whose stubs are
# generated on their own, with TypeCodes and Any operators in
# payloadsDynSK.cc (-Wba: events travel as anys) for programs that need
# them. IDL_STUBS: what the echo servers link, not payloadsDynSK: it
# would pull in libomniDynamic4 and change the footprint they measure.
OMNIIDL_FLAGS := -bcxx -Wbh=.hh -Wbs=SK.cc -Iidl
OMNIIDL_PAYLOADS := $(OMNIIDL_FLAGS) -Wba -Wbd=DynSK.cc
IDL_STUBS := echoSK payloadsSK
$(GEN)/echo.hh $(GEN)/echoSK.cc &: idl/echo.idl idl/payloads.idl | deps
	@mkdir -p $(GEN)
	omniidl $(OMNIIDL_FLAGS) -C$(GEN) $<

$(GEN)/payloads.hh $(GEN)/payloadsSK.cc $(GEN)/payloadsDynSK.cc &: \
		idl/payloads.idl | deps
	@mkdir -p $(GEN)
	omniidl $(OMNIIDL_PAYLOADS) -C$(GEN) $<

$(BUILD)/server/%.o: servers/omniorb/%.cc $(GEN)/echo.hh $(GEN)/payloads.hh \
		| deps
	@mkdir -p $(@D)
	$(CXX) $(CXXFLAGS) -I$(GEN) -MMD -MP -c $< -o $@

$(BUILD)/server/%SK.o: $(GEN)/%SK.cc $(GEN)/echo.hh $(GEN)/payloads.hh
	@mkdir -p $(@D)
	$(CXX) $(CXXFLAGS) -I$(GEN) -c $< -o $@

$(BIN)/omniorb-echo-server: $(BUILD)/server/echo_server.o \
		$(IDL_STUBS:%=$(BUILD)/server/%.o)
	@mkdir -p $(@D)
	$(CXX) $(LDFLAGS) -o $@ $^ $(OMNI_LIBS)

# The push consumer of kind channel: the payloads' TypeCodes and Any
# operators (payloadsDynSK, libomniDynamic4: events come as anys), and
# the CosEventComm/CosEventChannelAdmin stubs of Debian's
# libomnievents-dev (libomniEventsCl.a); event_log.h is the client's.
$(BUILD)/server/event_consumer.o: CXXFLAGS += -Iclient
$(BIN)/omniorb-event-consumer: $(BUILD)/server/event_consumer.o \
		$(BUILD)/server/payloadsSK.o $(BUILD)/server/payloadsDynSK.o
	@mkdir -p $(@D)
	$(CXX) $(LDFLAGS) -o $@ $^ -lomniEventsCl $(OMNI_DYN_LIBS)

# omniORB's marshaling alone (kind marshal): TypeCodes and anys too.
$(BIN)/omniorb-marshal-bench: $(BUILD)/server/marshal_bench.o \
		$(BUILD)/server/payloadsSK.o $(BUILD)/server/payloadsDynSK.o
	@mkdir -p $(@D)
	$(CXX) $(LDFLAGS) -o $@ $^ $(shell pkg-config --libs omniDynamic4)

# A build of an old release (scripts/build-orb) records how it was made
# (BUILD_INFO), which its server prints as a second --version line; other
# builds have none.
omni_build = $(wildcard $(ORBS_DIR)/$1/BUILD_INFO)
$(BIN)/orbs/%/echo-server: servers/omniorb/echo_server.cc idl/echo.idl \
		servers/common/echo_servant.hh servers/common/objects.hh \
		idl/payloads.idl $(ORBS_DIR)/%/bin/omniidl | deps
	@mkdir -p $(BUILD)/orbs/$*/gen $(@D)
	$(ORBS_DIR)/$*/bin/omniidl $(OMNIIDL_FLAGS) -C$(BUILD)/orbs/$*/gen \
		idl/echo.idl
	$(ORBS_DIR)/$*/bin/omniidl $(OMNIIDL_PAYLOADS) -C$(BUILD)/orbs/$*/gen \
		idl/payloads.idl
	$(CXX) $(CXXFLAGS) \
		$(if $(call omni_build,$*),-DORBBENCH_OMNI_BUILD='"$(subst ','\'',$(shell cat $(call omni_build,$*)))"') \
		-I$(BUILD)/orbs/$*/gen -I$(ORBS_DIR)/$*/include \
		-o $@ servers/omniorb/echo_server.cc \
		$(IDL_STUBS:%=$(BUILD)/orbs/$*/gen/%.cc) \
		$(LDFLAGS) -L$(ORBS_DIR)/$*/lib \
		-Wl,-rpath,$(abspath $(ORBS_DIR)/$*/lib) -lomniORB4 -lomnithread \
		-lpthread

# ---- the TAO echo servers (servers/tao) ------------------------------------
# Stubs without Any operators and TypeCodes (-Sa -St: the echo needs
# neither, as the omniORB server links no omniDynamic), operations found
# by perfect hashing (TAO's default: the build's gperf); compiled with the
# flags the build recorded (its standard and ACE's macros, CXXFLAGS) and
# said how it was built (BUILD_INFO, the server's second --version line).
# --disable-new-dtags: an RPATH, which also finds the TAO libraries that
# the linked ones need, and libTAO_Strategies (UIOP), which the server
# loads only for a Unix endpoint.
TAO_IDL_FLAGS := -Sa -St -Iidl
TAO_LIBS := -lTAO_PortableServer -lTAO_AnyTypeCode -lTAO -lACE -lpthread \
	-ldl
$(TAO_SERVERS): $(BIN)/orbs/%/echo-server: servers/tao/echo_server.cpp \
		servers/common/echo_servant.hh servers/common/activate.hh \
		servers/common/objects.hh \
		idl/echo.idl idl/payloads.idl $(ORBS_DIR)/%/bin/tao_idl \
		$(ORBS_DIR)/%/CXXFLAGS $(ORBS_DIR)/%/BUILD_INFO
	@mkdir -p $(BUILD)/orbs/$*/gen $(@D)
	LD_LIBRARY_PATH=$(ORBS_DIR)/$*/lib $(ORBS_DIR)/$*/bin/tao_idl \
		$(TAO_IDL_FLAGS) -g $(abspath $(ORBS_DIR)/$*/bin/ace_gperf) \
		-o $(BUILD)/orbs/$*/gen idl/payloads.idl
	LD_LIBRARY_PATH=$(ORBS_DIR)/$*/lib $(ORBS_DIR)/$*/bin/tao_idl \
		$(TAO_IDL_FLAGS) -g $(abspath $(ORBS_DIR)/$*/bin/ace_gperf) \
		-o $(BUILD)/orbs/$*/gen idl/echo.idl
	$(CXX) $(filter-out -std=%,$(CXXFLAGS)) -Wno-deprecated-declarations \
		-Wno-deprecated-copy $(shell cat $(ORBS_DIR)/$*/CXXFLAGS) \
		-DORBBENCH_TAO_BUILD='"$(shell cat $(ORBS_DIR)/$*/BUILD_INFO)"' \
		-I$(BUILD)/orbs/$*/gen -I$(ORBS_DIR)/$*/include \
		-o $@ servers/tao/echo_server.cpp \
		$(addprefix $(BUILD)/orbs/$*/gen/,echoC.cpp echoS.cpp \
			payloadsC.cpp payloadsS.cpp) \
		$(LDFLAGS) -L$(ORBS_DIR)/$*/lib -Wl,--disable-new-dtags \
		-Wl,-rpath,$(abspath $(ORBS_DIR)/$*/lib) $(TAO_LIBS)

# ---- the ORBit2 echo servers (servers/orbit2) ----------------------------
# Stubs of echo.idl only: orbit-idl-2 writes the included payloads.idl's
# types into echo's files too (compiling payloads.idl beside it would
# define every TypeCode twice); the server needs no client stubs. Compiled
# with the flags the build recorded (CFLAGS, LIBS: pkg-config's for its
# ORBit-2.0), our flags for our file only (never for IDL-generated code),
# said how it was built (BUILD_INFO, the second --version line), an RPATH
# to the build's lib/.
ORBIT2_GEN = $(BUILD)/orbs/$*/gen
$(ORBIT2_SERVERS): $(BIN)/orbs/%/echo-server: servers/orbit2/echo_server.c \
		idl/echo.idl idl/payloads.idl $(ORBS_DIR)/%/bin/orbit-idl-2 \
		$(ORBS_DIR)/%/CFLAGS $(ORBS_DIR)/%/LIBS $(ORBS_DIR)/%/BUILD_INFO
	@mkdir -p $(ORBIT2_GEN) $(@D)
	$(ORBS_DIR)/$*/bin/orbit-idl-2 --nostubs -Iidl \
		--output-dir=$(ORBIT2_GEN) idl/echo.idl
	$(CC) -O2 -g -w $(shell cat $(ORBS_DIR)/$*/CFLAGS) -I$(ORBIT2_GEN) \
		-c $(ORBIT2_GEN)/echo-common.c -o $(ORBIT2_GEN)/echo-common.o
	$(CC) -O2 -g -w $(shell cat $(ORBS_DIR)/$*/CFLAGS) -I$(ORBIT2_GEN) \
		-c $(ORBIT2_GEN)/echo-skels.c -o $(ORBIT2_GEN)/echo-skels.o
	$(CC) $(CFLAGS) -Wno-strict-prototypes -Wno-missing-prototypes \
		$(shell cat $(ORBS_DIR)/$*/CFLAGS) \
		-DORBBENCH_ORBIT2_BUILD='"$(shell cat $(ORBS_DIR)/$*/BUILD_INFO)"' \
		-I$(ORBIT2_GEN) -o $@ servers/orbit2/echo_server.c \
		$(ORBIT2_GEN)/echo-common.o $(ORBIT2_GEN)/echo-skels.o \
		$(LDFLAGS) -Wl,--disable-new-dtags \
		-Wl,-rpath,$(abspath $(ORBS_DIR)/$*/lib) \
		$(shell cat $(ORBS_DIR)/$*/LIBS)

# ---- the JacORB echo servers (servers/jacorb) ----------------------------
# Stubs and skeletons of echo.idl and the payloads it includes (-all) by
# that build's IDL compiler, compiled by the JDK it was built with: the
# generated code without warnings, our EchoServer.java with every lint
# warning an error; both into echo-server.jar beside the launcher, a C
# program (our flags) that execs the JDK's java with the build's class
# path, made absolute here (orbs/ID/CLASSPATH is relative to the build),
# and says how it was built (BUILD_INFO, the second --version line): the
# three go into a header, each a C string.
JACORB_GEN = $(BUILD)/orbs/$*/gen
JACORB_JDK = $(dir $(shell cat $(ORBS_DIR)/$*/JAVAC))
c_string = sed 's/[\\"]/\\&/g; s/.*/\#define $(1) "&"/'
$(JACORB_SERVERS): $(BIN)/orbs/%/echo-server: servers/jacorb/launcher.c \
		servers/jacorb/EchoServer.java servers/jacorb/JacorbWords.java \
		idl/echo.idl idl/payloads.idl $(ORBS_DIR)/%/lib/jacorb.jar \
		$(ORBS_DIR)/%/JAVA $(ORBS_DIR)/%/JAVAC $(ORBS_DIR)/%/CLASSPATH \
		$(ORBS_DIR)/%/BUILD_INFO
	@rm -rf $(JACORB_GEN)
	@mkdir -p $(JACORB_GEN)/src $(JACORB_GEN)/classes $(@D)
	$(ORBS_DIR)/$*/bin/idl -all -Iidl -d $(JACORB_GEN)/src idl/echo.idl
	sed 's|[^:][^:]*|$(abspath $(ORBS_DIR)/$*)/&|g' $(ORBS_DIR)/$*/CLASSPATH \
		> $(JACORB_GEN)/classpath
	find $(JACORB_GEN)/src -name '*.java' > $(JACORB_GEN)/stubs
	$(JACORB_JDK)javac -nowarn -encoding UTF-8 \
		-cp "$$(cat $(JACORB_GEN)/classpath)" -d $(JACORB_GEN)/classes \
		@$(JACORB_GEN)/stubs
	$(JACORB_JDK)javac -Xlint:all -Werror -encoding UTF-8 \
		-cp "$(JACORB_GEN)/classes:$$(cat $(JACORB_GEN)/classpath)" \
		-d $(JACORB_GEN)/classes servers/jacorb/EchoServer.java \
		servers/jacorb/JacorbWords.java
	$(JACORB_JDK)jar cf $(@D)/echo-server.jar -C $(JACORB_GEN)/classes .
	{ $(call c_string,JACORB_JAVA) $(ORBS_DIR)/$*/JAVA; \
	  $(call c_string,JACORB_CLASSPATH) $(JACORB_GEN)/classpath; \
	  $(call c_string,JACORB_BUILD) $(ORBS_DIR)/$*/BUILD_INFO; } \
		> $(JACORB_GEN)/launcher.h
	$(CC) $(CFLAGS) -include $(JACORB_GEN)/launcher.h -o $@ \
		servers/jacorb/launcher.c $(LDFLAGS)

# ---- the omniORBpy echo servers (servers/omniorbpy) ------------------------
# Nothing to compile: the script is installed with the build's module
# folder (its PYTHONPATH file, relative to the prefix), the folder of the
# stubs that build's omniidl back end makes of payloads.idl and echo.idl
# (python.py, in that module folder), and how it was built (BUILD_INFO,
# the second --version line) written into it as Python string literals.
OMNIPY_GEN = $(BUILD)/orbs/$*/gen
# The script's "@NAME@" string literals, each the environment's NAME as a
# Python string: OMNIPY_FILL SCRIPT OUT.
OMNIPY_FILL = $(PYTHON) -c \
	'import functools, os, sys; \
	fill = lambda s, k: s.replace("\"@" + k + "@\"", repr(os.environ[k])); \
	s = functools.reduce(fill, ("OMNIPY_PATH", "STUBS_PATH", "BUILD_INFO"), \
	                     open(sys.argv[1]).read()); \
	open(sys.argv[2], "w").write(s)'
OMNIPY_SITE = $(abspath $(ORBS_DIR)/$*/$(shell cat $(ORBS_DIR)/$*/PYTHONPATH))
$(OMNIORBPY_SERVERS): $(BIN)/orbs/%/echo-server: \
		servers/omniorbpy/echo_server.py idl/echo.idl idl/payloads.idl \
		$(ORBS_DIR)/%/PYTHONPATH $(ORBS_DIR)/%/OMNIIDL $(ORBS_DIR)/%/BUILD_INFO
	@mkdir -p $(OMNIPY_GEN) $(@D)
	rm -rf $(OMNIPY_GEN)/*
	$(shell cat $(ORBS_DIR)/$*/OMNIIDL) -bpython -p $(OMNIPY_SITE) -Iidl \
		-C$(OMNIPY_GEN) idl/payloads.idl idl/echo.idl
	OMNIPY_PATH=$(OMNIPY_SITE) STUBS_PATH=$(abspath $(OMNIPY_GEN)) \
	BUILD_INFO="$$(cat $(ORBS_DIR)/$*/BUILD_INFO)" $(OMNIPY_FILL) $< $@.tmp
	chmod 755 $@.tmp && mv $@.tmp $@

# ---- the MICO echo servers (servers/mico) ----------------------------------
# Stubs and skeletons of payloads.idl and echo.idl, each into its own
# files (MICO's idl writes an included file's definitions only into that
# file's stubs), by the build's idl with the build's preprocessor;
# compiled with MICO's own flags for programs (CXXFLAGS, LIBS: what its
# mico-c++ and mico-ld add), our flags for our file only (never for
# IDL-generated code; MICO's headers use std::binary_function, deprecated
# since C++11), said how it was built (BUILD_INFO, the second --version
# line), an RPATH to the build's lib/.
MICO_GEN = $(BUILD)/orbs/$*/gen
MICO_ENV = LD_LIBRARY_PATH=$(abspath $(ORBS_DIR)/$*/lib)
$(MICO_SERVERS): $(BIN)/orbs/%/echo-server: servers/mico/echo_server.cc \
		servers/common/echo_servant.hh servers/common/activate.hh \
		servers/common/objects.hh \
		idl/echo.idl idl/payloads.idl $(ORBS_DIR)/%/bin/mico-cpp \
		$(ORBS_DIR)/%/CXXFLAGS $(ORBS_DIR)/%/LIBS $(ORBS_DIR)/%/BUILD_INFO
	@mkdir -p $(MICO_GEN) $(@D)
	cd $(MICO_GEN) && for f in payloads echo; do \
		$(MICO_ENV) $(abspath $(ORBS_DIR)/$*/bin/idl) \
			--cpp $(abspath $(ORBS_DIR)/$*/bin/mico-cpp) --c++-suffix cc \
			-I$(abspath idl) $(abspath idl)/$$f.idl || exit 1; done
	for f in payloads echo; do \
		$(CXX) -O2 -g -w $(shell cat $(ORBS_DIR)/$*/CXXFLAGS) -I$(MICO_GEN) \
			-I$(ORBS_DIR)/$*/include -c $(MICO_GEN)/$$f.cc \
			-o $(MICO_GEN)/$$f.o || exit 1; done
	$(CXX) $(CXXFLAGS) -Wno-deprecated-declarations \
		$(shell cat $(ORBS_DIR)/$*/CXXFLAGS) \
		-DORBBENCH_MICO_BUILD='"$(subst ','\'',$(shell cat $(ORBS_DIR)/$*/BUILD_INFO))"' \
		-I$(MICO_GEN) -I$(ORBS_DIR)/$*/include -o $@ servers/mico/echo_server.cc \
		$(MICO_GEN)/echo.o $(MICO_GEN)/payloads.o $(LDFLAGS) \
		-L$(ORBS_DIR)/$*/lib -Wl,--disable-new-dtags \
		-Wl,-rpath,$(abspath $(ORBS_DIR)/$*/lib) \
		$(shell cat $(ORBS_DIR)/$*/LIBS)

# ---- the TAO callers (callers/tao) ----------------------------------------
# Stubs with AMI callbacks (tao_idl -GC: sendc_ operations and the reply
# handler's skeleton) in a folder of their own, compiled without our
# warnings; the caller with ours, and with the flags the build recorded.
# It links what its modes need beyond the echo server's libraries:
# DynamicInterface (DII deferred), Messaging and Valuetype (AMI, the
# timeout policy), Strategies (UIOP), which scripts/build-orb builds.
TAO_CALLER_GEN = $(BUILD)/orbs/$*/caller-gen
TAO_CALLER_LIBS := -lTAO_DynamicInterface -lTAO_Messaging -lTAO_Valuetype \
	-lTAO_Strategies -lTAO_PI -lTAO_CodecFactory $(TAO_LIBS)
$(TAO_CALLERS): $(BIN)/orbs/%/caller: callers/tao/caller.cpp $(CALLER_COMMON) \
		idl/echo.idl idl/payloads.idl $(ORBS_DIR)/%/bin/tao_idl \
		$(ORBS_DIR)/%/CXXFLAGS $(ORBS_DIR)/%/BUILD_INFO
	@test -e $(ORBS_DIR)/$*/lib/libTAO_DynamicInterface.so || { echo \
		"$(ORBS_DIR)/$* has no TAO_DynamicInterface: run scripts/build-orb tao $(patsubst tao-%,%,$*) --source TAO_SOURCE again (it adds the callers' libraries)" >&2; exit 1; }
	@mkdir -p $(TAO_CALLER_GEN) $(@D)
	for f in payloads echo; do \
		LD_LIBRARY_PATH=$(ORBS_DIR)/$*/lib $(ORBS_DIR)/$*/bin/tao_idl \
			$(TAO_IDL_FLAGS) -GC \
			-g $(abspath $(ORBS_DIR)/$*/bin/ace_gperf) \
			-o $(TAO_CALLER_GEN) idl/$$f.idl || exit; done
	for f in payloadsC echoC echoS; do \
		$(CXX) -O2 -g -w $(shell cat $(ORBS_DIR)/$*/CXXFLAGS) \
			-I$(TAO_CALLER_GEN) -I$(ORBS_DIR)/$*/include \
			-c $(TAO_CALLER_GEN)/$$f.cpp -o $(TAO_CALLER_GEN)/$$f.o \
			|| exit; done
	$(CC) $(CFLAGS) -c callers/common/caller.c \
		-o $(TAO_CALLER_GEN)/caller-common.o
	$(CXX) $(filter-out -std=%,$(CXXFLAGS)) -Wextra \
		-Wno-deprecated-declarations -Wno-deprecated-copy \
		$(shell cat $(ORBS_DIR)/$*/CXXFLAGS) \
		-DORBBENCH_TAO_BUILD='"$(shell cat $(ORBS_DIR)/$*/BUILD_INFO)"' \
		-I$(TAO_CALLER_GEN) -I$(ORBS_DIR)/$*/include \
		-o $@ callers/tao/caller.cpp $(TAO_CALLER_GEN)/caller-common.o \
		$(addprefix $(TAO_CALLER_GEN)/,payloadsC.o echoC.o echoS.o) \
		$(LDFLAGS) -L$(ORBS_DIR)/$*/lib -Wl,--disable-new-dtags \
		-Wl,-rpath,$(abspath $(ORBS_DIR)/$*/lib) $(TAO_CALLER_LIBS)


# ---- the ORBit2 callers (callers/orbit2) ----------------------------------
# Stubs and skeletons of echo.idl (the stubs call the skeleton for an
# in-process object) in a folder of their own, compiled as the server's
# generated code is; our flags for our files only.
ORBIT2_CALLER_GEN = $(BUILD)/orbs/$*/caller-gen
$(ORBIT2_CALLERS): $(BIN)/orbs/%/caller: callers/orbit2/caller.c \
		$(CALLER_COMMON) idl/echo.idl idl/payloads.idl \
		$(ORBS_DIR)/%/bin/orbit-idl-2 $(ORBS_DIR)/%/CFLAGS \
		$(ORBS_DIR)/%/LIBS $(ORBS_DIR)/%/BUILD_INFO
	@mkdir -p $(ORBIT2_CALLER_GEN) $(@D)
	$(ORBS_DIR)/$*/bin/orbit-idl-2 -Iidl --output-dir=$(ORBIT2_CALLER_GEN) \
		idl/echo.idl
	for f in echo-common echo-stubs echo-skels; do \
		$(CC) -O2 -g -w $(shell cat $(ORBS_DIR)/$*/CFLAGS) \
			-I$(ORBIT2_CALLER_GEN) -c $(ORBIT2_CALLER_GEN)/$$f.c \
			-o $(ORBIT2_CALLER_GEN)/$$f.o || exit; done
	$(CC) $(CFLAGS) -Wno-strict-prototypes -Wno-missing-prototypes \
		$(shell cat $(ORBS_DIR)/$*/CFLAGS) \
		-DORBBENCH_ORBIT2_BUILD='"$(shell cat $(ORBS_DIR)/$*/BUILD_INFO)"' \
		-I$(ORBIT2_CALLER_GEN) -o $@ callers/orbit2/caller.c \
		callers/common/caller.c \
		$(addprefix $(ORBIT2_CALLER_GEN)/,echo-common.o echo-stubs.o \
			echo-skels.o) \
		$(LDFLAGS) -Wl,--disable-new-dtags \
		-Wl,-rpath,$(abspath $(ORBS_DIR)/$*/lib) \
		$(shell cat $(ORBS_DIR)/$*/LIBS)

# ---- tests ---------------------------------------------------------------
$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libclient.a | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(CLIENT_INC) -MMD -MP $< $(BUILD)/libclient.a -o $@ \
		$(LDFLAGS) -lcmocka -ljansson -lm

# The crossing's offline replay (tests/replay/crossing_replay.c): recorded
# results' crossings recomputed from their steps and probes. Not installed.
CROSSING_REPLAY := $(BUILD)/tests/crossing-replay
$(CROSSING_REPLAY): tests/replay/crossing_replay.c $(BUILD)/libclient.a | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(CLIENT_INC) -MMD -MP $< $(BUILD)/libclient.a -o $@ \
		$(LDFLAGS) -ljansson -lm

crossing-replay: $(CROSSING_REPLAY)

# The fault-injection shim of the end-to-end tests (LD_PRELOAD: the Nth
# socket/accept/pipe/fork fails with a chosen errno). Without sanitizers:
# it is preloaded into sanitized clients too, before their runtime.
FAIL_AFTER_LIB := $(BUILD)/faults/libfailafter.so
$(FAIL_AFTER_LIB): tests/faults/fail_after.c
	@mkdir -p $(@D)
	$(CC) -std=c11 -O2 -g $(WARN) -fPIC -shared -o $@ $< -ldl

# The tests start Python some thousand times (every script they run).
# Their bytecode is kept under build/ (PYTHONPYCACHEPREFIX; the tree stays
# clean), whatever PYTHONDONTWRITEBYTECODE the caller's environment sets:
# compiling the package again each time cost 0.2 s a start (compare
# --help: 0.30 s without the cache, 0.11 s with it).
PY_TESTS = test test-py test-e2e test-e2e-shared test-e2e-serial test-long \
	check-sanitizers
$(PY_TESTS): export PYTHONPYCACHEPREFIX = $(abspath build/pycache)
$(PY_TESTS): export PYTHONDONTWRITEBYTECODE =

test-unit: $(UNIT_BINS)
	@for t in $(UNIT_BINS); do echo "== $$t"; $$t || exit 1; done

# The tests that need no build: the package, its scripts on the fixtures,
# the docs and the tree's own files; no client, no servers.
test-py:
	$(PYTHON) -m pytest -q -rs $(PYTEST_JOBS) -m "not long" tests/py

# -rs: every skipped test is listed with its reason, never silent;
# --durations: the 15 slowest, so that what keeps `make test` from its
# 6 minutes is in every log. PYTEST_JOBS: pytest-xdist's workers, a test
# at a time to whichever is free (--dist loadgroup: the tests of one
# xdist_group, those that share something machine-wide, on one worker);
# PYTEST_JOBS= runs them in one process. The tests marked long (a real
# suite, a build, a long simulation) are test-long's: `make test` leaves
# them out, CI runs both.
PYTEST_JOBS ?= -n 2 --dist loadgroup
E2E_SERIAL = ORBBENCH_BIN=$(abspath $(BIN)) \
	ORBBENCH_FAIL_AFTER=$(abspath $(FAIL_AFTER_LIB)) \
	$(PYTHON) -m pytest -q -rs --durations=15
E2E_PYTEST = $(E2E_SERIAL) $(PYTEST_JOBS)
test-e2e: test-e2e-shared
	@$(MAKE) --no-print-directory test-e2e-serial

# The e2e tests that can share the machine, then those that must have it
# to themselves (tests/e2e/conftest.py SERIAL), one at a time.
test-e2e-shared: build $(FAIL_AFTER_LIB)
	$(E2E_PYTEST) -m "not long and not serial" tests/e2e

test-e2e-serial: build $(FAIL_AFTER_LIB)
	$(E2E_SERIAL) -m "serial and not long" tests/e2e

test-long: build $(FAIL_AFTER_LIB)
	$(PYTHON) -m pytest -q -rs $(PYTEST_JOBS) -m long tests/py
	$(E2E_PYTEST) -m long tests/e2e

# The build first on both cores (the tests' own makes run one at a time).
# Then tests/py beside the e2e tests that share the machine: those wait
# on servers, timeouts and settling memory most of the time (about half
# the two cores idle), tests/py computes; -O prints each one's output
# whole when it ends. The serial e2e tests last, the machine theirs.
# TEST_SIDE_JOBS=-j1 runs the two one after the other (check-sanitizers
# does: its e2e tests run slower under ASan, with less room for load).
TEST_SIDE_JOBS ?= -j2
test: deps
	@$(MAKE) --no-print-directory -j2 build $(UNIT_BINS) $(FAIL_AFTER_LIB)
	@$(MAKE) --no-print-directory check-layers test-unit
	@echo "tests/py beside the shared e2e tests (3-4 min): each prints when it ends"
	@$(MAKE) --no-print-directory $(TEST_SIDE_JOBS) -O test-py test-e2e-shared
	@$(MAKE) --no-print-directory test-e2e-serial

# No include in client/ may point up a layer or into another kind
# (docs/architecture.md).
check-layers:
	$(PYTHON) scripts/check-layers

# The tests again against sanitized clients: ASan+UBSan for everything,
# TSan for the threaded call modes. CI runs this after `make test`. The
# sanitized `make test` leaves the tests marked long out, as make test
# does: they are real suites and a build, the same client code as the
# short runs over more repeats (test-long runs them against the release
# build), and under ASan they would add about twice test-long's time.
check-sanitizers: deps
	@$(MAKE) --no-print-directory SANITIZE=address,undefined TEST_SIDE_JOBS=-j1 test
	@$(MAKE) --no-print-directory SANITIZE=thread build
	ORBBENCH_BIN=$(abspath build/san-thread/bin) $(PYTHON) -m pytest -q -rs \
		tests/e2e/test_modes.py tests/e2e/test_crossing.py tests/e2e/test_paired.py

# ---- fuzzing ---------------------------------------------------------------
# libFuzzer on the decoders (IORs, GIOP replies and their fragments,
# scenarios) under ASan+UBSan: the client's modules they need are built
# again with clang into build/fuzz/ (the gcc objects carry no coverage
# instrumentation). Each target runs FUZZ_SECONDS from a scratch copy of
# its seeds in fuzz/corpus/TARGET (the committed corpus does not grow);
# the run fails if any target crashes, naming the input. clang is only
# needed here, so `make test` does not install it.
FUZZ_SECONDS ?= 60
FUZZ_BUILD := build/fuzz
FUZZ_CC := clang
FUZZ_TARGETS := fuzz_ior fuzz_giop_reply fuzz_wire_raw fuzz_scenario \
	fuzz_caller
# Every module but main: scenario loading takes its key rows from the kind
# registry, which links every kind.
FUZZ_MODULES := $(patsubst client/%.c,%,$(filter-out client/main.c,\
	$(CLIENT_SRCS)))
# clang has no -Wformat-truncation to turn off.
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -O2 -g \
	$(filter-out -Wno-format-truncation,$(WARN)) \
	-fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
FUZZ_OBJS := $(FUZZ_MODULES:%=$(FUZZ_BUILD)/client/%.o)
FUZZ_LIB := $(FUZZ_BUILD)/libclient.a
FUZZ_BINS := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/%)

fuzz-deps:
	@scripts/install-deps fuzz

$(FUZZ_OBJS): $(FUZZ_BUILD)/client/%.o: client/%.c | fuzz-deps
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(CLIENT_INC) \
		-MMD -MP -c $< -o $@

$(FUZZ_LIB): $(FUZZ_OBJS)
	ar rcs $@ $^

$(FUZZ_BINS): $(FUZZ_BUILD)/%: fuzz/%.c $(FUZZ_LIB) | fuzz-deps
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $(CLIENT_INC) -MMD -MP \
		$< $(FUZZ_LIB) -o $@ -ljansson -lm

fuzz-build: $(FUZZ_BINS)

fuzz: fuzz-build
	$(PYTHON) scripts/run-fuzz --seconds $(FUZZ_SECONDS) $(FUZZ_BINS)

# What CI runs: every target briefly, the seeds and regressions included.
# The gate's property tests (tests/py/test_gate_fuzz.py: malformed and
# rewritten comparisons and result fields; tests/e2e/test_gate_forge.py:
# result sets of real runs forged, and reports under a file size limit;
# python3-hypothesis) for FUZZ_GATE_SECONDS each instead of make test's
# few; each prints how many it tried. One pytest a folder: each has its
# own conftest.py.
FUZZ_GATE_SECONDS ?= 1200
fuzz-gate: build
	ORBBENCH_FUZZ_SECONDS=$(FUZZ_GATE_SECONDS) \
		$(PYTHON) -m pytest -q -rs -s -p no:cacheprovider \
		tests/py/test_gate_fuzz.py
	ORBBENCH_BIN=$(abspath $(BIN)) ORBBENCH_FUZZ_SECONDS=$(FUZZ_GATE_SECONDS) \
		$(PYTHON) -m pytest -q -rs -s -p no:cacheprovider \
		tests/e2e/test_gate_forge.py

fuzz-smoke:
	@$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=5

# ---- running -------------------------------------------------------------
# The Grisby suite: 8 scenarios, about 4 minutes on 2 cores.
run: build
	bin/orbbench suite scenarios/grisby

# Small fixed-N benchmarks: single-call latency, 100 servers in flight.
bench: build
	bin/orbbench suite scenarios/bench

# omniORB 4.3.3 (Debian trixie's source) against the system's 4.2.5 on the
# Grisby suite, 3 paired runs (both ORBs' servers at once, alternate
# rounds). The build takes ~17 min the first time.
COMPARE_ORB ?= omniorb-4.3.3
compare-orbs:
	@test -x $(ORBS_DIR)/$(COMPARE_ORB)/bin/omniidl || \
		scripts/build-orb omniorb $(COMPARE_ORB:omniorb-%=%) --debian trixie
	@$(MAKE) --no-print-directory build
	bin/orbbench suite scenarios/grisby --paired --repeat 3 \
		--orb omniorb-system --orb $(COMPARE_ORB)

# Can compare tell A from B on this machine? The Grisby suite as paired
# runs until the verdict is decided (3 to MAX_REPEAT repeats, no more
# repeats once BUDGET_MIN minutes would pass): A against itself (the
# suite must say same), then against servers that burn WORK_US more CPU
# per call (it must say slower). 1 µs measured +5% server CPU per call at
# N <= 300 and +8% at the crossings on 2026-12-01; about 35 minutes each
# (docs/measured/2026-12-01-a-verdict-to-act-on.md). A paired repeat of
# the eight scenarios took about 16 minutes on 2026-12-02, so the budget
# holds MAX_REPEAT of them (30 minutes stopped after one, before any look;
# A/A needed all 8 to say same: docs/measured/2026-12-02-held-verdicts.md).
# WORK_NS adds ns to it (omniORB's server: a step finer than a µs). The
# work is a count of loop steps calibrated at the server's start, with no
# floor since 2026-12-05 (docs/servers.md); what +5% takes moves with the
# host: WORK_US=0 WORK_NS=4000 measured +5-9% on 2026-12-05 (95-205 µs a
# call at N = 500, docs/measured/2026-12-05-five-percent.md), where the
# old loop's floor made +7-8% the least on 2026-12-04 (45 µs a call).
WORK_US ?= 1
WORK_NS ?= 0
MAX_REPEAT ?= 8
BUDGET_MIN ?= 140
resolution: build
	bin/orbbench suite scenarios/grisby --paired --until-verdict --repeat 3 \
		--max-repeat $(MAX_REPEAT) --budget $(BUDGET_MIN) \
		--variant a --variant b
	bin/orbbench suite scenarios/grisby --paired --until-verdict --repeat 3 \
		--max-repeat $(MAX_REPEAT) --budget $(BUDGET_MIN) \
		--variant base --variant work:server.work_us=$(WORK_US),server.work_ns=$(WORK_NS)

# RESULTS=folder reports on existing results instead of running the suite;
# the folder is one shell word (shq: quoted), whatever it holds.
report: build
	scripts/report $(if $(RESULTS),--results $(call shq,$(RESULTS)))

# ---- installing ----------------------------------------------------------
# The man pages and the shell completion, from what the client prints
# (orbbench.manpages, orbbench.completion): the subcommand table, --help,
# each installed subcommand's help, `orbbench keys`.
MAN_DIR := $(BUILD)/man
COMP_DIR := $(BUILD)/completion
PY_SRCS := $(shell find scripts/orbbench -name '*.py')
$(MAN_DIR)/orbbench.1: $(BIN)/orbbench $(PY_SRCS)
	@rm -rf $(MAN_DIR)
	PYTHONPATH=scripts $(PYTHON) -m orbbench.manpages --client $(BIN)/orbbench \
		--out $(MAN_DIR) --version $(VERSION)
man: $(MAN_DIR)/orbbench.1
$(COMP_DIR)/orbbench: $(BIN)/orbbench $(PY_SRCS)
	@rm -rf $(COMP_DIR)
	PYTHONPATH=scripts $(PYTHON) -m orbbench.completion \
		--client $(BIN)/orbbench --out $(COMP_DIR)
completion: $(COMP_DIR)/orbbench

# PREFIX/bin/orbbench; PREFIX/libexec/orbbench/: the servers, the scripts
# a user runs and the Python package they import; PREFIX/share/orbbench/:
# the scenarios; PREFIX/share/doc/orbbench/: README.md and docs/; man
# pages in PREFIX/share/man/man1/; bash's and zsh's completion in
# PREFIX/share/bash-completion/completions/ and
# PREFIX/share/zsh/vendor-completions/. The client finds the rest from its
# own folder (client/core/util.c helper_dir, scripts/orbbench/paths.py).
# Not installed: what works on a checkout only (the subcommands marked
# checkout_only in client/subcmd.c: build-orb, the fleets; fuzzing, the
# layer check). PYCOMPILE=: no byte-code (dh_python3 makes it).
# INSTALL_LICENSE=: no LICENSE beside README.md (the .deb has
# debian/copyright).
PREFIX ?= /usr/local
DESTDIR ?=
PYCOMPILE ?= 1
INSTALL_LICENSE ?= 1
# Each folder as one shell word, single-quoted (a ' inside as '\''), so
# that a DESTDIR or PREFIX with blanks or quotes installs where it says.
shq = '$(subst ','\'',$(1))'
I_BIN := $(call shq,$(DESTDIR)$(PREFIX)/bin)
I_LIBEXEC := $(call shq,$(DESTDIR)$(PREFIX)/libexec/orbbench)
I_DATA := $(call shq,$(DESTDIR)$(PREFIX)/share/orbbench)
I_DOC := $(call shq,$(DESTDIR)$(PREFIX)/share/doc/orbbench)
I_MAN := $(call shq,$(DESTDIR)$(PREFIX)/share/man/man1)
I_BASH := $(call shq,$(DESTDIR)$(PREFIX)/share/bash-completion/completions)
I_ZSH := $(call shq,$(DESTDIR)$(PREFIX)/share/zsh/vendor-completions)
INSTALL_SERVERS := omniorb-echo-server raw-server giop-min-server \
	combat-echo-server omniorb-event-consumer omniorb-marshal-bench
INSTALL_SCRIPTS := run-suite compare gate report plot history \
	start-servers miro-table miro-channel-table
install: build man completion
	install -d $(I_BIN) $(I_LIBEXEC) $(I_DATA) $(I_DOC) $(I_MAN) $(I_BASH) \
		$(I_ZSH)
	install -m 755 $(BIN)/orbbench $(I_BIN)/
	install -m 755 $(INSTALL_SERVERS:%=$(BIN)/%) \
		$(INSTALL_SCRIPTS:%=scripts/%) $(I_LIBEXEC)/
	for f in $(PY_SRCS:scripts/%=%); do \
		install -D -m 644 scripts/$$f $(I_LIBEXEC)/$$f || exit 1; done
	cp -R scenarios $(I_DATA)/
	install -m 644 README.md $(if $(INSTALL_LICENSE),LICENSE) $(I_DOC)/
	cp -R docs $(I_DOC)/
	install -m 644 $(MAN_DIR)/*.1 $(I_MAN)/
	install -m 644 $(COMP_DIR)/orbbench $(I_BASH)/
	install -m 644 $(COMP_DIR)/_orbbench $(I_ZSH)/
	$(if $(PYCOMPILE),$(PYTHON) -m compileall -q $(I_LIBEXEC)/orbbench)

# ---- the Debian package ----------------------------------------------------
# dpkg-buildpackage writes its results beside the source tree: it builds
# a copy of this tree (the files git knows, as they are now) in
# build/deb/orbbench-VERSION/, so the .deb lands in build/deb/.
DEB_DIR := build/deb
DEB_TREE := $(DEB_DIR)/orbbench-$(VERSION)
deb-deps:
	@scripts/install-deps deb
deb: deb-deps
	rm -rf $(DEB_DIR)
	mkdir -p $(DEB_TREE)
	git ls-files -co --exclude-standard -z | \
		xargs -0 tar -c --no-recursion -f - | tar -x -C $(DEB_TREE)
	cd $(DEB_TREE) && GIT_REV=$(GIT_REV) dpkg-buildpackage -b -us -uc -j2
	lintian --info $(DEB_DIR)/*.changes
	@ls $(DEB_DIR)/*.deb

clean:
	rm -rf build bin

-include $(CLIENT_OBJS:.o=.d) $(UNIT_BINS:=.d) $(BUILD)/server/echo_server.d \
	$(BUILD)/server/marshal_bench.d $(BUILD)/server/event_consumer.d \
	$(wildcard $(BUILD)/servers/*/*.d) \
	$(FUZZ_OBJS:.o=.d) $(FUZZ_BINS:=.d)
