/* tfc/compiler.h compiles as C (the API is for any language with a C FFI). */
#include "tfc/compiler.h"

int tfc_compiler_header_is_c(void) { return TFC_COMPILER_API_VERSION; }
