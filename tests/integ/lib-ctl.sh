# SPDX-License-Identifier: GPL-2.0-or-later
# lib-ctl.sh: helpers for the control socket's integration tests; source
# after lib-sim.sh.  $CFCTL is the test client (tests/ctl/cfctl.c).
#   ctl REQUEST [TIMEOUT_MS]   one request on $SIM_CTLSOCK; prints the reply
#   jval KEY JSON              the value of KEY in a flat JSON object (quotes kept)
#   need_cfctl                 skip the whole test when $CFCTL is missing

CFCTL=${CFCTL:-$BUILD/tests/cfctl}

ctl() { "$CFCTL" "$SIM_CTLSOCK" "$@"; }

jval() { printf '%s\n' "$2" | sed -n "s/.*\"$1\":\(\"[^\"]*\"\|[^,}]*\).*/\1/p"; }

need_cfctl() {
	if [ ! -x "$CFCTL" ]; then
		skip "${1:-control socket}" "no test client at $CFCTL (make $BUILD/tests/cfctl)"
		exit 0
	fi
}
