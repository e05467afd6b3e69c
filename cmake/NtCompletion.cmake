# SPDX-License-Identifier: MIT
# Run at build time: write the bash completion the binary makes from its own
# option tables (`nagle-trace completion bash`) to OUTPUT.
execute_process(COMMAND ${BINARY} completion bash OUTPUT_FILE ${OUTPUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
	file(REMOVE ${OUTPUT})
	message(FATAL_ERROR "${BINARY} completion bash failed: ${rc}")
endif()
