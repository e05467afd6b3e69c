# SPDX-License-Identifier: MIT
# NT_SANITIZE: the whole tree (library, binary, tests) under ASan + UBSan.
if(NT_SANITIZE)
	add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer
		-fno-sanitize-recover=undefined)
	add_link_options(-fsanitize=address,undefined)
endif()
if(NT_FUZZ)
	if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
		message(FATAL_ERROR "NT_FUZZ needs clang (libFuzzer): -DCMAKE_C_COMPILER=clang")
	endif()
	add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer)
	add_link_options(-fsanitize=address,undefined)
endif()
