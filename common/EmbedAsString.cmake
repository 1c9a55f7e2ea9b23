# cmake -DINPUT=<header> -DOUTPUT=<file.inc> -P EmbedAsString.cmake
#
# Writes the text of INPUT as one C++ raw string literal into OUTPUT, so the
# compiler can paste a common/ header into generated sources verbatim (CUDA
# codegen embeds common/ScalarOps.h in NVRTC programs).
file(READ "${INPUT}" content)
string(FIND "${content}" ")tfc_embed\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw-string delimiter )tfc_embed\"")
endif()
file(WRITE "${OUTPUT}.tmp" "R\"tfc_embed(${content})tfc_embed\"\n")
# configure_file rewrites OUTPUT only when it changes (no needless rebuilds).
configure_file("${OUTPUT}.tmp" "${OUTPUT}" COPYONLY)
file(REMOVE "${OUTPUT}.tmp")
