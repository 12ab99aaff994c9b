// SPDX-License-Identifier: GPL-2.0-or-later
/* tool.c: cachefiles-cull's main(); the tool is tool_main() (cull/tool.h). */
#include "cull/tool.h"

int
main(int argc, char *argv[])
{
	return tool_main(argc, argv);
}
