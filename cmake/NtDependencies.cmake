# SPDX-License-Identifier: MIT
# Every external library through pkg-config, as imported targets (and the
# system's threads, for the capture closer).
find_package(PkgConfig REQUIRED)
set(THREADS_PREFER_PTHREAD_FLAG ON)
find_package(Threads REQUIRED)
pkg_check_modules(LIBPCAP REQUIRED IMPORTED_TARGET libpcap>=1.9)
pkg_check_modules(LIBMNL REQUIRED IMPORTED_TARGET libmnl>=1.0.4)
pkg_check_modules(JSONC REQUIRED IMPORTED_TARGET json-c>=0.15)
# nettle: SHA-1 and base64 for the Community ID (src/render/community_id.c).
pkg_check_modules(NETTLE REQUIRED IMPORTED_TARGET nettle>=3.4)
# zlib: the running kernel's /proc/config.gz, for CONFIG_HZ (src/live/kernel.c).
pkg_check_modules(ZLIB REQUIRED IMPORTED_TARGET zlib>=1.2)
# libarchive: kernel packages read and the guest's initramfs written (src/vm/), its
# header at build time, the library loaded when `kernels` needs it (src/vm/archive_dl.h).
pkg_check_modules(LIBARCHIVE REQUIRED IMPORTED_TARGET libarchive>=3.4)
if(NT_TESTS)
	pkg_check_modules(CMOCKA REQUIRED IMPORTED_TARGET cmocka>=1.1)
endif()
