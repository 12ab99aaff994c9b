/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz.h: what every libFuzzer target shares.  A property that does not
 * hold is reported on stderr and aborts, which libFuzzer treats as a crash
 * and keeps the input for.
 */
#ifndef CFD_FUZZ_H
#define CFD_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define FUZZ_CHECK(cond, ...) do {						\
	if (!(cond)) {								\
		fprintf(stderr, "%s:%d: property failed: %s: ", __FILE__,	\
			__LINE__, #cond);					\
		fprintf(stderr, __VA_ARGS__);					\
		fputc('\n', stderr);						\
		abort();							\
	}									\
} while (0)

#endif
