# SPDX-License-Identifier: GPL-2.0-or-later
# cachefilesd: one non-recursive GNU make file.
#
#   make            build the daemon (./cachefilesd) and the tool (./cachefiles-cull)
#   make check      build and run every test layer (unit, simulator, VM)
#   make check SANITIZE=1   the same under AddressSanitizer and UBSan
#   make check SANITIZE=thread INTEG='cull-*'   the threaded ones under TSan
#   make soak       long runs (SOAK_SHORT=1: CI's shortened form)
#   make bench      benchmarks (not part of check; BIG=1: 10,000,000 objects too)
#   make fuzz       libFuzzer targets under ASan+UBSan, FUZZ_SECONDS each (clang)
#   make golden     rewrite tests/config/*.out from the binary (review the diff)
#   make mutate     the mutation audit, tests/mutate.sh (not part of check)
#   make demo       the daemon against the real kernel module in a VM
#   make deps       install the Debian packages needed to build and test
#   make selinux    the SELinux policy module
#   make deb        Debian source and binary packages (DEBDIR, $(BUILD)/deb by default)
#   make rpm        an RPM from git archive (packaging/rpm; not Fedora-tested)
#   make install    honours DESTDIR PREFIX SBINDIR MANDIR SYSCONFDIR UNITDIR CACHEDIR
#                   APPARMORDIR (default /etc/apparmor.d, where AppArmor loads from,
#                   whatever SYSCONFDIR; the profiles attach to SBINDIR)
#   NODEPS=1        make check/bench/... install nothing (package builds)

VERSION    := 1.1.0
PREFIX     ?= /usr
SBINDIR    ?= $(PREFIX)/sbin
MANDIR     ?= $(PREFIX)/share/man
SYSCONFDIR ?= /etc
APPARMORDIR ?= /etc/apparmor.d
CACHEDIR   ?= /var/cache/fscache
UNITDIR    ?= $(shell pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null || echo /lib/systemd/system)
DESTDIR    ?=

PKGS       := libevent libcap libattr libsystemd
# check, demo and bench install what is missing (Debian 12) before they
# build: deps-check is their only prerequisite, and their recipe builds
# the programs in a second make, so that even with -j nothing compiles
# before the packages are there.  Set here, before the first rule that
# names it (make expands a rule's prerequisites as it reads the rule).
# NODEPS=1 (a package build, debian/rules) never calls apt-get.
DEPS_CHECK := $(if $(filter 1,$(NODEPS)),,deps-check)
SUBMAKE     = $(MAKE) --no-print-directory
CC         ?= cc
WARN       := -Wall -Wextra -Wformat=2 -Wshadow -Wstrict-prototypes \
              -Wmissing-prototypes -Wpointer-arith -Wundef \
              -Wmissing-declarations -Wcast-qual -Wwrite-strings
CFLAGS     ?= -O2 -g
CPPFLAGS   += -D_GNU_SOURCE -DVERSION='"$(VERSION)"' -I.
ifeq ($(WERROR),1)
WARN       += -Werror
endif
ifeq ($(SANITIZE),1)
BUILD      ?= build-san
CFLAGS     += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS    += -fsanitize=address,undefined
else ifeq ($(SANITIZE),thread)
# ThreadSanitizer: the scan threads against the loop (make check SANITIZE=thread).
BUILD      ?= build-tsan
CFLAGS     += -fsanitize=thread -fno-omit-frame-pointer
LDFLAGS    += -fsanitize=thread
else
BUILD      ?= build
endif
PKG_CFLAGS  = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS    = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
ALL_CFLAGS  = $(WARN) $(CFLAGS) $(PKG_CFLAGS) -pthread -MMD -MP
LIBS        = $(PKG_LIBS) -pthread

# The table of contents.  Each component is an archive; a component uses
# only those listed after it, and includes name their folder ("cull/scan.h").
#   daemon/  the program's top: options, event loop, signals, reload,
#            STATUS=, privileges, pidfile, and the cull engine
#   kernel/  the channel to the CacheFiles module, and its /dev/cachefiles
#            transport (the simulator's lives in tests/sim/)
#   cull/    the scanner library: no kernel, no daemon (the tool links it)
#   config/  the configuration parser and its directive table
#   lib/     leaf helpers: logging, small utilities
DAEMON_SRCS := daemon/checkenv.c daemon/control.c daemon/daemon.c daemon/engine.c \
               daemon/engine_fsm.c daemon/metrics.c daemon/notify.c daemon/status.c \
               daemon/options.c daemon/pidfile.c daemon/priv.c
KERNEL_SRCS := kernel/channel.c kernel/device.c
CULL_SRCS   := cull/control.c cull/goal.c cull/graveyard.c cull/heap.c cull/names.c cull/scan.c cull/state.c \
               cull/adapt.c cull/inosort.c cull/namememo.c cull/target.c \
               cull/victims.c
CONFIG_SRCS := config/config.c
# cachefiles-cull: cull/tool.c holds main(); the rest are its commands,
# linked into the tool (and its unit test) but not into the cull archive.
TOOL_SRCS   := cull/tool_cli.c cull/tool_daemon.c cull/tool_fmt.c cull/tool_scan.c \
               cull/tool_trim.c
LIB_SRCS    := lib/escape.c lib/json.c lib/kcmd.c lib/log.c lib/mountid.c lib/samefile.c lib/util.c

COMPONENTS := daemon kernel cull config lib
MOD_SRCS   := $(DAEMON_SRCS) $(KERNEL_SRCS) $(CULL_SRCS) $(CONFIG_SRCS) $(LIB_SRCS)
MOD_OBJS   := $(MOD_SRCS:%.c=$(BUILD)/%.o)
LIB_DAEMON := $(BUILD)/libcfd-daemon.a
LIB_KERNEL := $(BUILD)/libcfd-kernel.a
LIB_CULL   := $(BUILD)/libcfd-cull.a
LIB_CONFIG := $(BUILD)/libcfd-config.a
LIB_LIB    := $(BUILD)/libcfd-lib.a
TOOL_OBJS  := $(TOOL_SRCS:%.c=$(BUILD)/%.o)
# The tool links only these archives: never daemon/ or kernel/.
LIBTOOL    := $(LIB_CULL) $(LIB_CONFIG) $(LIB_LIB)
# Everything, in link order (a user before what it uses).
LIBCFD     := $(LIB_DAEMON) $(LIB_KERNEL) $(LIB_CULL) $(LIB_CONFIG) $(LIB_LIB)

UNIT_SRCS  := $(wildcard tests/unit/test_*.c)
UNIT_BINS  := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
# The kernel transport is chosen when a daemon is linked (docs/kernel-seam.md):
# cachefilesd links daemon/link-device.o, the test daemon tests/sim/link-sim.o
# and the simulator's transport; both share cachefilesd.o and the archives.
LINK_DEVICE := $(BUILD)/daemon/link-device.o
LINK_SIM    := $(BUILD)/tests/sim/link-sim.o
SIMT_OBJ    := $(BUILD)/tests/sim/simtransport.o
SIM_SRCS   := $(filter-out tests/sim/link-sim.c,$(wildcard tests/sim/*.c))
SIM_BIN    := $(BUILD)/tests/cfsim
SIM_DAEMON := $(BUILD)/tests/cachefilesd-sim
CTL_BIN    := $(BUILD)/tests/cfctl
BENCH_SRCS := $(filter-out bench/uringstat.c,$(wildcard bench/*.c))
BENCH_BINS := $(BENCH_SRCS:bench/%.c=$(BUILD)/bench/%)
# The io_uring statx prototype (bench/RESULTS.md) only where liburing-dev is:
# the daemon does not use io_uring, and make bench does not need it.
URING_LIBS := $(shell pkg-config --libs liburing 2>/dev/null)
ifneq ($(URING_LIBS),)
BENCH_BINS += $(BUILD)/bench/uringstat
endif

.PHONY: install-apparmor rpm all check unit soak bench demo deps install clean lint selinux deb fuzz fuzz-bins deps-fuzz deps-soak golden mutate test-bins
all: cachefilesd cachefiles-cull

# Objects depend on the flags they were built with (VERSION is one): the
# file changes only when the flags do.
FLAGS_STAMP := $(BUILD)/.flags
FLAGS_NOW   := $(CC) $(CPPFLAGS) $(ALL_CFLAGS)
ifneq ($(FLAGS_NOW),$(file < $(FLAGS_STAMP)))
$(shell mkdir -p $(BUILD))
$(file > $(FLAGS_STAMP),$(FLAGS_NOW))
endif

$(BUILD)/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

$(LIB_DAEMON): $(DAEMON_SRCS:%.c=$(BUILD)/%.o)
$(LIB_KERNEL): $(KERNEL_SRCS:%.c=$(BUILD)/%.o)
$(LIB_CULL):   $(CULL_SRCS:%.c=$(BUILD)/%.o)
$(LIB_CONFIG): $(CONFIG_SRCS:%.c=$(BUILD)/%.o)
$(LIB_LIB):    $(LIB_SRCS:%.c=$(BUILD)/%.o)
$(LIBCFD):
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/cachefilesd: $(BUILD)/cachefilesd.o $(LINK_DEVICE) $(LIBCFD)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

# The same daemon objects, talking to the kernel simulator: for tests only.
# scan_run is wrapped by the scan gate in link-sim.c (tests/sim/link-sim.c).
$(SIM_DAEMON): $(BUILD)/cachefilesd.o $(LINK_SIM) $(SIMT_OBJ) $(LIBCFD)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -Wl,--wrap=scan_run -o $@ $^ $(LIBS)

cachefilesd: $(BUILD)/cachefilesd
	cp $< $@

$(BUILD)/cachefiles-cull: $(BUILD)/cull/tool.o $(TOOL_OBJS) $(LIBTOOL)
	$(CC) $(LDFLAGS) -o $@ $^ -pthread

cachefiles-cull: $(BUILD)/cachefiles-cull
	cp $< $@

# Unit tests may wrap library calls: tests/unit/test_X.wrap lists symbols.
# Objects a unit test depends on (below) are linked too.
$(BUILD)/tests/test_kernel: $(SIMT_OBJ)
$(BUILD)/tests/test_tool: $(TOOL_OBJS)
$(BUILD)/tests/%: tests/unit/%.c $(LIBCFD)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(filter %.o,$^) $(LIBCFD) \
	    $(if $(wildcard tests/unit/$*.wrap),$(foreach s,$(shell cat tests/unit/$*.wrap),-Wl,--wrap=$(s))) \
	    -lcmocka $(LIBS)

$(SIM_BIN): $(SIM_SRCS) $(LIBCFD)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(SIM_SRCS) $(LIBCFD) $(LIBS)

# A control-socket client for the tests (tests/integ/control-*.sh, the VM).
$(CTL_BIN): tests/ctl/cfctl.c $(LIBCFD)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIBCFD) $(LIBS)

$(BUILD)/bench/uringstat: bench/uringstat.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(URING_LIBS)

$(BUILD)/bench/%: bench/%.c $(LIBCFD)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIBCFD) $(LIBS)

# Everything a test run needs; check installs missing packages first.
# CACHEFILESD is the shipped daemon (vm layer, -t, install, the hook check);
# CACHEFILESD_SIM the test daemon that the integ layer drives.
test-bins: $(BUILD)/cachefilesd $(BUILD)/cachefiles-cull $(SIM_DAEMON) $(UNIT_BINS) $(SIM_BIN) $(CTL_BIN)
check: $(DEPS_CHECK)
	@$(SUBMAKE) test-bins
	@BUILD=$(BUILD) CACHEFILESD=$(CURDIR)/$(BUILD)/cachefilesd \
	    CACHEFILESD_SIM=$(CURDIR)/$(SIM_DAEMON) CFSIM=$(CURDIR)/$(SIM_BIN) \
	    CFCTL=$(CURDIR)/$(CTL_BIN) \
	    sh tests/run.sh

unit: $(UNIT_BINS)
	@BUILD=$(BUILD) LAYERS=unit sh tests/run.sh

# Long runs: the integ layer's long variants (SOAK=1: 1,000,000 entries in a
# directory, ...; tests/integ/FAULTS.md), a simulated week under valgrind's
# massif, and 100 kill -9 cycles and 60 rounds in the VM.  SOAK_SHORT=1 is
# CI's shortened form: the week of 24 rounds (make check runs the VM's).
ifeq ($(SOAK_SHORT),1)
SOAK_ENV   := WEEK_ROUNDS=24 LAYERS=soak
else
SOAK_ENV   := SOAK=1 WEEK_ROUNDS=168 SOAK_CYCLES=100 SOAK_ROUNDS=60 LAYERS="integ soak vm"
endif
soak: deps-soak
	@$(SUBMAKE) $(BUILD)/cachefilesd $(SIM_DAEMON) $(SIM_BIN) $(CTL_BIN)
	@$(SOAK_ENV) BUILD=$(BUILD) CACHEFILESD=$(CURDIR)/$(BUILD)/cachefilesd \
	    CACHEFILESD_SIM=$(CURDIR)/$(SIM_DAEMON) CFSIM=$(CURDIR)/$(SIM_BIN) CFCTL=$(CURDIR)/$(CTL_BIN) \
	    VM_ONLY=soak sh tests/run.sh

# Never part of check: the goldens are reviewed, not regenerated.
golden: $(BUILD)/cachefilesd
	@UPDATE_GOLDEN=1 CACHEFILESD=$(CURDIR)/$(BUILD)/cachefilesd sh tests/config/run.sh

# Each mutation of tests/mutations.txt in a scratch copy of the tree (not part of check).
mutate: $(DEPS_CHECK)
	@sh tests/mutate.sh

bench: $(DEPS_CHECK)
	@$(SUBMAKE) $(BENCH_BINS) $(BUILD)/cachefilesd $(BUILD)/cachefiles-cull $(SIM_DAEMON) $(SIM_BIN)
	@BUILD=$(BUILD) BIG=$(BIG) sh bench/run.sh

demo: $(DEPS_CHECK)
	@$(SUBMAKE) $(BUILD)/cachefilesd $(BUILD)/cachefiles-cull $(SIM_BIN)
	@BUILD=$(BUILD) CACHEFILESD=$(CURDIR)/$(BUILD)/cachefilesd sh tests/vm/demo.sh

# Fuzzing (tests/fuzz/README): every tests/fuzz/fuzz_*.c is a libFuzzer
# target.  The whole library is built again with clang, coverage
# instrumentation, ASan and UBSan under $(BUILD)/fuzz by a recursive make
# (same rules, other BUILD and CC), then each target runs FUZZ_SECONDS.
# daemon/ is linked for the control socket's request parser.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
FUZZ_CC      ?= clang
FUZZ_CFLAGS  := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
                -fno-sanitize-recover=all
FUZZ_SRCS    := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS    := $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/tests/%)

fuzz: deps-fuzz
	@$(MAKE) -s --no-print-directory BUILD=$(BUILD)/fuzz SANITIZE=0 CC=$(FUZZ_CC) \
	    CFLAGS='$(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link' fuzz-bins
	@BUILD=$(BUILD)/fuzz FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_TARGETS='$(FUZZ_TARGETS)' \
	    sh tests/fuzz/run.sh

fuzz-bins: $(FUZZ_BINS)
FUZZ_LIBS    := $(LIB_DAEMON) $(LIB_KERNEL) $(LIB_CULL) $(LIB_CONFIG) $(LIB_LIB)
$(BUILD)/tests/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -fsanitize=fuzzer $(LDFLAGS) -o $@ $< \
	    $(FUZZ_LIBS) $(LIBS)

deps:
	@sh packaging/deps.sh all
deps-check:
	@sh packaging/deps.sh check
deps-soak:
	@sh packaging/deps.sh soak
deps-fuzz:
	@sh packaging/deps.sh fuzz

# The SELinux policy module (Debian: selinux-policy-dev), built out of tree.
selinux: $(BUILD)/selinux/cachefilesd.pp
$(BUILD)/selinux/cachefilesd.pp: selinux/cachefilesd.te selinux/cachefilesd.fc selinux/cachefilesd.if
	@mkdir -p $(dir $@)
	cp $^ $(dir $@)
	$(MAKE) -C $(dir $@) -f /usr/share/selinux/devel/Makefile cachefilesd.pp

# Debian packages from the committed tree: format 3.0 (quilt), the orig
# tarball is git archive of HEAD, debian/ is packaging/debian.  Source and
# binary packages land in DEBDIR.  Needs dpkg-dev and debhelper.
DEBDIR     ?= $(BUILD)/deb
deb:
	rm -rf $(DEBDIR) && mkdir -p $(DEBDIR)
	git archive --format=tar --prefix=cachefilesd-$(VERSION)/ HEAD | \
	    gzip -n9 > $(DEBDIR)/cachefilesd_$(VERSION).orig.tar.gz
	tar -xzf $(DEBDIR)/cachefilesd_$(VERSION).orig.tar.gz -C $(DEBDIR)
	cp -r packaging/debian $(DEBDIR)/cachefilesd-$(VERSION)/debian
	# The package builds as from a clean shell: none of this make's variables
	# (BUILD=..., SANITIZE=...) may leak into debian/rules' own makes.
	cd $(DEBDIR)/cachefilesd-$(VERSION) && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
	    -u BUILD -u SANITIZE -u WERROR dpkg-buildpackage -us -uc
	@ls -l $(DEBDIR)/*.dsc $(DEBDIR)/*.deb
	@if command -v lintian >/dev/null; then \
	    lintian --fail-on error,warning $(DEBDIR)/*.changes; fi

# An RPM from git archive of HEAD (Debian: the rpm package; rpmbuild --nodeps
# as Debian lacks Fedora's build requirements and macros).
RPMDIR     ?= $(CURDIR)/$(BUILD)/rpm
rpm:
	rm -rf $(RPMDIR) && mkdir -p $(RPMDIR)/SOURCES
	git archive --format=tar --prefix=cachefilesd-$(VERSION)/ HEAD | \
	    gzip -n9 > $(RPMDIR)/SOURCES/cachefilesd-$(VERSION).tar.gz
	rpmbuild --nodeps --define '_topdir $(RPMDIR)' -ba packaging/rpm/cachefilesd.spec
	@ls -l $(RPMDIR)/RPMS/*/*.rpm $(RPMDIR)/SRPMS/*.rpm
	@if command -v rpmlint >/dev/null; then \
	    rpmlint -r packaging/rpm/cachefilesd.rpmlintrc packaging/rpm/cachefilesd.spec \
	        $(RPMDIR)/RPMS/*/*.rpm $(RPMDIR)/SRPMS/*.rpm; fi

# Style included; cross-references to pages not installed here are not
# the pages' fault.
lint:
	@mandoc -Tlint man/*.[0-9] 2>&1 | \
	    grep -v -e 'referenced manual not found' -e 'mandoc\.db' | { ! grep .; }

# The unit and the configuration name CACHEDIR, SBINDIR and SYSCONFDIR:
# both are edited here, at install time, so that "make install
# CACHEDIR=/srv/fscache" gives a unit whose RequiresMountsFor= and
# ReadWritePaths= match the installed configuration's dir.
# The daemon reads /etc/cachefilesd.conf unless -f says otherwise, so a unit
# for another SYSCONFDIR starts it with -f, as its reload checks that file.
UNIT_CONF = $(if $(filter /etc,$(patsubst %/,%,$(SYSCONFDIR))),, -f $(patsubst %/,%,$(SYSCONFDIR))/cachefilesd.conf)
SUBST = sed -e 's,^ExecStart=@SBINDIR@/cachefilesd -n$$,&$(UNIT_CONF),' \
            -e 's,@SBINDIR@,$(SBINDIR),g' -e 's,@SYSCONFDIR@,$(SYSCONFDIR),g' \
            -e 's,/var/cache/fscache,$(CACHEDIR),g'
install: all install-apparmor
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(MANDIR)/man5 \
	    $(DESTDIR)$(SYSCONFDIR) $(DESTDIR)$(UNITDIR)
	install -d -m 0755 $(DESTDIR)$(CACHEDIR)
	install -m 0755 cachefilesd $(DESTDIR)$(SBINDIR)/cachefilesd
	install -m 0755 cachefiles-cull $(DESTDIR)$(SBINDIR)/cachefiles-cull
	install -m 0644 man/cachefilesd.8 man/cachefiles-cull.8 $(DESTDIR)$(MANDIR)/man8/
	install -m 0644 man/cachefilesd.conf.5 $(DESTDIR)$(MANDIR)/man5/
	[ -e $(DESTDIR)$(SYSCONFDIR)/cachefilesd.conf ] || { \
	    $(SUBST) config/cachefilesd.conf > $(DESTDIR)$(SYSCONFDIR)/cachefilesd.conf && \
	    chmod 0644 $(DESTDIR)$(SYSCONFDIR)/cachefilesd.conf; }
	$(SUBST) config/cachefilesd.service > $(DESTDIR)$(UNITDIR)/cachefilesd.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/cachefilesd.service

# The AppArmor profiles attach to the path of the executable, so they are
# edited like the unit: SBINDIR /usr/sbin or /sbin keeps "/{usr/,}sbin/"
# (either path, merged /usr or not); any other (PREFIX=/usr/local) is
# written in; CACHEDIR as above.  A SYSCONFDIR other than /etc adds its
# configuration files to the /etc ones, which stay: the binaries still
# read /etc/cachefilesd.conf by default (the unit names SYSCONFDIR's with
# -f).  The profiles go to APPARMORDIR, since AppArmor loads only
# /etc/apparmor.d, whatever SYSCONFDIR says.  The file names (and their
# local/ includes) stay usr.sbin.*: the profile's name, not its file,
# is what the kernel knows, and the documented local/ paths stay valid.
AA_SBIN = $(if $(filter /usr/sbin /sbin,$(patsubst %/,%,$(SBINDIR))),/{usr/$(COMMA)}sbin,$(patsubst %/,%,$(SBINDIR)))
COMMA  := ,
AA_ETC = $(if $(filter /etc,$(patsubst %/,%,$(SYSCONFDIR))),,\
               -e '/^  \/etc\/cachefilesd[^ ]* r,$$/{p;s|/etc/cachefilesd|$(SYSCONFDIR)/cachefilesd|;}')
AA_SUBST = sed -e 's|/{usr/,}sbin/|$(AA_SBIN)/|g' -e 's|/var/cache/fscache|$(CACHEDIR)|g' $(AA_ETC)
install-apparmor:
	install -d $(DESTDIR)$(APPARMORDIR)
	for p in usr.sbin.cachefilesd usr.sbin.cachefiles-cull; do \
	    $(AA_SUBST) packaging/apparmor/$$p > $(DESTDIR)$(APPARMORDIR)/$$p && \
	    chmod 0644 $(DESTDIR)$(APPARMORDIR)/$$p || exit 1; done

clean:
	rm -rf build build-san build-tsan cachefilesd cachefiles-cull

-include $(MOD_OBJS:.o=.d) $(TOOL_OBJS:.o=.d) $(BUILD)/cull/tool.d $(BUILD)/cachefilesd.d $(LINK_DEVICE:.o=.d) $(LINK_SIM:.o=.d) \
    $(SIMT_OBJ:.o=.d) $(FUZZ_BINS:=.d)
