# SPDX-License-Identifier: MIT
# The warning set of docs/hacking.md; -Werror only when NT_WERROR is on (CI turns it on).
add_library(nt_warnings INTERFACE)
target_compile_options(nt_warnings INTERFACE
	-Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes
	-Wformat=2 -Wvla -Wundef -Wno-format-nonliteral)
if(NT_WERROR)
	target_compile_options(nt_warnings INTERFACE -Werror)
endif()
