/*===- compiler.h - tfc's compiler, embedded: the C API --------------------===
 *
 * The compiler as a library (libtfc_compiler.so), for applications that
 * compile models in their own process, as tfc-run and tfc-train do, without
 * running a tool: the Python frontend (frontends/torch, through ctypes), or
 * a C/C++ training loop that then runs the artifact with libtfcrt
 * (runtime/include/tfc/runtime.h). In the spirit of IREE's compiler API: a
 * session holds options set as tool flags, a compilation takes a model
 * (a file or text in memory) and yields an artifact directory.
 *
 *   tfc_compiler_session *s = tfc_compiler_session_create();
 *   const char *flags[] = {"--train-step=optimizer=adamw", "--target=host"};
 *   tfc_compiler_error *e = tfc_compiler_session_set_flags(s, 2, flags);
 *   tfc_compiler_output *out = NULL;
 *   if (!e) e = tfc_compiler_compile_file(s, "model.mlir", &out);
 *   if (e) { puts(tfc_compiler_error_message(e)); tfc_compiler_error_destroy(e); }
 *   else   tfc_program_load(device, tfc_compiler_output_artifact_dir(out), &p);
 *
 * Compilations go through the on-disk cache ($TFC_CACHE_DIR, default
 * ~/.cache/tfc) keyed by the model text, the options and this library's
 * build, like tfc-run's. Sessions are independent: each compilation has its
 * own MLIR context, so different sessions may compile on different threads
 * at once (one session is not thread-safe). Every function accepts NULL
 * handles and reports them as errors (or ignores them, for destroy).
 *
 *===----------------------------------------------------------------------===*/

#ifndef TFC_COMPILER_H
#define TFC_COMPILER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The version of this API; changes when a function's meaning changes. */
#define TFC_COMPILER_API_VERSION 1

/// TFC_COMPILER_API_VERSION of the loaded library (compare with the
/// header's when loading it dynamically).
int tfc_compiler_api_version(void);

/* ---- errors ------------------------------------------------------------ */

/** An error. NULL means success. */
typedef struct tfc_compiler_error_t tfc_compiler_error;

/// The message: one or more lines (diagnostics as file:line:col: error:
/// ...); valid until tfc_compiler_error_destroy. "" for NULL.
const char *tfc_compiler_error_message(const tfc_compiler_error *error);
/// Frees `error`; NULL is ignored.
void tfc_compiler_error_destroy(tfc_compiler_error *error);

/* ---- sessions ---------------------------------------------------------- */

/** Compilation options. */
typedef struct tfc_compiler_session_t tfc_compiler_session;

/// A session with the defaults: `@loss` compiled as a forward program for
/// sm_90, fusion on, precision f32, pad auto, through the cache.
tfc_compiler_session *tfc_compiler_session_create(void);
/// Frees the session (outputs it produced stay valid). NULL is ignored.
void tfc_compiler_session_destroy(tfc_compiler_session *session);

/// Sets options from tool-style flags, "--name=value" (or "--name" for the
/// boolean ones). The flags, as tfc-run spells them:
///   --function=NAME     the model function to compile (default loss)
///   --grad              compile its gradient (loss and grad.<param> outputs)
///   --train-step=OPTS   compile a training step; OPTS is
///                       --tfc-train-pipeline's option string, e.g.
///                       "optimizer=adamw weight-decay=0.01 max-grad-norm=1"
///                       (checked here: a bad option is an error now)
///   --fusion=all|none   kernel fusion (default all)
///   --target=sm_80|sm_90|host   the machine kernels are scheduled for
///                       (default sm_90; host: no CUDA sources)
///   --precision=f32|tf32|bf16|fp16   (default f32)
///   --pad=auto|none|N   shape padding (default auto)
///   --no-cache          compile into a private directory, not the cache
/// Flags accumulate over calls; a later value replaces an earlier one. An
/// unknown flag or a bad value is an error naming it, and then no flag of
/// this call is applied.
tfc_compiler_error *tfc_compiler_session_set_flags(tfc_compiler_session *session,
                                                   int argc,
                                                   const char *const *argv);
/// The session's options as the flags that reproduce them, one per line
/// (valid until the session changes or is destroyed).
const char *tfc_compiler_session_flags(tfc_compiler_session *session);

/* ---- compilation ------------------------------------------------------- */

/** A compiled artifact. */
typedef struct tfc_compiler_output_t tfc_compiler_output;

/// Compiles the model in the file `path` with the session's options.
tfc_compiler_error *tfc_compiler_compile_file(tfc_compiler_session *session,
                                              const char *path,
                                              tfc_compiler_output **out);
/// Compiles the model text `source` (`size` bytes, no terminator needed);
/// `name` names it in diagnostics (NULL: "<source>").
tfc_compiler_error *tfc_compiler_compile_source(tfc_compiler_session *session,
                                                const char *name,
                                                const char *source, size_t size,
                                                tfc_compiler_output **out);

/// The artifact directory, ready for tfc_program_load (valid while the
/// output lives; the directory itself stays on disk).
const char *tfc_compiler_output_artifact_dir(const tfc_compiler_output *output);
/// 1 when the artifact came from the cache, else 0.
int tfc_compiler_output_cache_hit(const tfc_compiler_output *output);
/// For a training step: micro-batches per optimizer step (1: one entry
/// `train_step`; K > 1: `accumulate_step` K times, then `apply_step`).
int64_t tfc_compiler_output_accumulate_steps(const tfc_compiler_output *output);
/// Wall time of the compilation (a cache hit included), in milliseconds.
double tfc_compiler_output_wall_ms(const tfc_compiler_output *output);
/// Frees the output (not the artifact directory). NULL is ignored.
void tfc_compiler_output_destroy(tfc_compiler_output *output);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TFC_COMPILER_H */
