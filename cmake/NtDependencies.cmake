# SPDX-License-Identifier: MIT
# Every external library through pkg-config, as imported targets.
find_package(PkgConfig REQUIRED)
pkg_check_modules(LIBPCAP REQUIRED IMPORTED_TARGET libpcap>=1.9)
pkg_check_modules(LIBMNL REQUIRED IMPORTED_TARGET libmnl>=1.0.4)
pkg_check_modules(JSONC REQUIRED IMPORTED_TARGET json-c>=0.15)
if(NT_TESTS)
	pkg_check_modules(CMOCKA REQUIRED IMPORTED_TARGET cmocka>=1.1)
endif()
