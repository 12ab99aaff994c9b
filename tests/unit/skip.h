// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * skip.h: cmocka's skip() takes no reason.  skip_why(FMT, ...) prints one
 * first, as the TAP comment "# SKIP test: reason", which tests/run.sh shows
 * with its count of skips; then skips.  Include after <cmocka.h>.
 */
#ifndef TESTS_UNIT_SKIP_H
#define TESTS_UNIT_SKIP_H

#define skip_why(...)							\
	do {								\
		print_message("# SKIP %s: ", __func__);			\
		print_message(__VA_ARGS__);				\
		print_message("\n");					\
		skip();							\
	} while (0)

#endif
