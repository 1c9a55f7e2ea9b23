/*===- tfc/runtime.h - libtfcrt public C API ----------------------*- C -*-===//
 *
 * Loads a tfc artifact (a directory written by `tfc-translate --emit-artifact`
 * or the JIT), binds its external buffers (parameters, inputs, outputs) by
 * name to host memory, and runs its entries (`forward`, `train_step`, ...) on
 * a device: `host` (reference interpreter + OpenBLAS) or `cuda`.
 *
 * Errors: every function that can fail returns a tfc_status, NULL on success.
 * A non-NULL status carries a message and must be freed with
 * tfc_status_free. The library never aborts on bad input (corrupt artifacts,
 * wrong sizes, unknown names) and never throws across this API.
 *
 * Handles: every device, program and status handle is checked against the
 * live handles the library created. A destroyed or never-created handle
 * passed to a function that returns a status is an error status; the
 * destroy functions ignore it (with a line on stderr: a double destroy),
 * and accessors without a status return their empty value. A handle whose
 * address a newer object happens to reuse cannot be detected.
 *
 * Threads: distinct programs may be used from distinct threads; one program
 * (and its device) must not be used from two threads at once.
 *
 *===----------------------------------------------------------------------===*/

#ifndef TFC_RUNTIME_H
#define TFC_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- status ------------------------------------------------------------ */

/** An error. NULL means success. */
typedef struct tfc_status_t *tfc_status;

/// The error message of `status` (valid until tfc_status_free); "" for NULL.
const char *tfc_status_message(tfc_status status);
/// Frees `status`; NULL is allowed and ignored.
void tfc_status_free(tfc_status status);

/* ---- element types and roles ------------------------------------------- */

/// Element types of bound tensors (storage: f16/bf16 are 16-bit, i1 is one
/// byte holding 0 or 1; all little-endian, row-major).
typedef enum tfc_dtype {
  TFC_DTYPE_F32 = 0,
  TFC_DTYPE_F64 = 1,
  TFC_DTYPE_F16 = 2,
  TFC_DTYPE_BF16 = 3,
  TFC_DTYPE_I1 = 4,
  TFC_DTYPE_I32 = 5,
  TFC_DTYPE_I64 = 6,
  TFC_DTYPE_U8 = 7
} tfc_dtype;

/// What an external buffer is for. Usable as bit flags (see
/// tfc_program_save_safetensors).
typedef enum tfc_role {
  TFC_ROLE_PARAM = 1, /**< trainable parameter, persists across runs */
  TFC_ROLE_INPUT = 2, /**< one tensor of the batch */
  TFC_ROLE_OUTPUT = 4, /**< a result (e.g. "loss") */
  TFC_ROLE_STATE = 8   /**< optimizer/scaler state: persists across runs,
                            starts zeroed, updated in place by the step */
} tfc_role;

/// "f32", "bf16", "i1", ...; "?" for an unknown value.
const char *tfc_dtype_name(tfc_dtype dtype);
/// Bytes per element; 0 for an unknown value.
size_t tfc_dtype_size(tfc_dtype dtype);
/// "param", "input", "output" or "state"; "?" for an unknown value.
const char *tfc_role_name(tfc_role role);

/* ---- devices ----------------------------------------------------------- */

/** A device backend. */
typedef struct tfc_device_t tfc_device;

/// Creates a device. `kind` is "host", "cuda" or "auto" ("cuda" when a CUDA
/// device can be opened, else "host"). "cuda" without a usable GPU/driver is
/// an error saying why. On success stores the device in `*out`.
tfc_status tfc_device_create(const char *kind, tfc_device **out);
/// "host" or "cuda" (valid while the device lives).
const char *tfc_device_kind(const tfc_device *device);
/// One line describing the device, e.g. "NVIDIA H100 80GB HBM3, sm_90".
const char *tfc_device_description(const tfc_device *device);
/// Releases the caller's reference. Programs created on the device keep it
/// alive until they are destroyed too. NULL is ignored.
void tfc_device_destroy(tfc_device *device);

/* ---- programs ---------------------------------------------------------- */

/** A loaded artifact with its device memory. */
typedef struct tfc_program_t tfc_program;

/// Loads and validates the artifact directory `artifact_dir`, allocates its
/// memory on `device` (externals zero-filled) and prepares its kernels. On
/// success stores the program in `*out`.
tfc_status tfc_program_load(tfc_device *device, const char *artifact_dir,
                            tfc_program **out);
/// Frees the program and its device memory. NULL is ignored.
void tfc_program_destroy(tfc_program *program);

/// Describes one external buffer. Pointers stay valid while the program
/// lives.
typedef struct tfc_binding {
  const char *name; /**< e.g. "wte.weight", "tokens", "loss" */
  tfc_role role;
  tfc_dtype dtype;
  size_t rank;
  const int64_t *shape; /**< `rank` sizes */
  size_t bytes;         /**< dtype size x element count */
} tfc_binding;

/// Number of external buffers.
size_t tfc_program_binding_count(const tfc_program *program);
/// Describes binding `index` (< tfc_program_binding_count), in manifest
/// order.
tfc_status tfc_program_binding(const tfc_program *program, size_t index,
                               tfc_binding *out);
/// Describes the binding named `name`.
tfc_status tfc_program_find_binding(const tfc_program *program,
                                    const char *name, tfc_binding *out);

/// Number of entries ("forward", ...).
size_t tfc_program_entry_count(const tfc_program *program);
/// Name of entry `index`, or NULL when out of range.
const char *tfc_program_entry_name(const tfc_program *program, size_t index);
/// 1 when entry `index` is a refresh entry (it computes state derived from
/// the parameters, e.g. mixed precision's 16-bit weight copies; the runtime
/// runs it by itself before any other entry whenever a parameter was set
/// since it last ran, so applications never need to), else 0.
int tfc_program_entry_is_refresh(const tfc_program *program, size_t index);

/// Copies `bytes` bytes from host memory `data` into the external `name`.
/// `bytes` must equal the binding's size.
tfc_status tfc_program_set(tfc_program *program, const char *name,
                           const void *data, size_t bytes);
/// Runs the entry `entry` to completion. Fails (running nothing) when a
/// parameter or input it reads was never set.
tfc_status tfc_program_run(tfc_program *program, const char *entry);
/// Copies the external `name` into host memory `data` of exactly `bytes`
/// bytes (the binding's size).
tfc_status tfc_program_get(tfc_program *program, const char *name, void *data,
                           size_t bytes);

/// Sets externals from the safetensors file `path`: each tensor must name an
/// external of the same dtype and shape. Tensors naming no external are an
/// error unless `ignore_unknown` is non-zero.
tfc_status tfc_program_load_safetensors(tfc_program *program, const char *path,
                                        int ignore_unknown);
/// Restores a saved state: sets the externals whose role is in `role_mask`
/// from the safetensors file `path`, which must hold exactly those externals
/// (each of the same dtype and shape). A missing, extra, unknown or
/// mistyped tensor is an error naming it, and then nothing is set. Derived
/// state (what a refresh entry computes from the parameters: the 16-bit
/// weight copies, whose names depend on the target's padding) is exempt
/// when the mask includes TFC_ROLE_PARAM: the program's may be missing and
/// the file's, listed by tfc_program_save_safetensors in its metadata, may
/// name no external; the restored parameters recompute it.
tfc_status tfc_program_restore_safetensors(tfc_program *program,
                                           const char *path,
                                           unsigned role_mask);
/// Writes the externals whose role is in `role_mask` (tfc_role bits OR-ed
/// together) to the safetensors file `path` (atomically); the derived state
/// among them is listed, one name per line, under the metadata key
/// "tfc.derived_state".
tfc_status tfc_program_save_safetensors(tfc_program *program, const char *path,
                                        unsigned role_mask);

/* ---- Kernel preparation ------------------------------------------------ */

/// What tfc_program_load spent preparing the program's kernels: on cuda,
/// NVRTC compiles (distinct sources only, on a pool of up to 16 threads)
/// or on-disk kernel-cache hits, then module loads; on host, parsing the
/// host programs. A cold start compiles everything; a warm one (same
/// kernels, same TFC_CACHE_DIR) only loads.
typedef struct tfc_compile_info {
  size_t kernels;    /**< kernels of the artifact */
  size_t distinct;   /**< distinct kernel sources among them */
  size_t compiled;   /**< compiled (cuda: NVRTC runs; host: parsed) */
  size_t cache_hits; /**< taken from the on-disk kernel cache */
  int threads;       /**< threads that compiled them */
  double wall_ms;    /**< wall time of the whole preparation */
} tfc_compile_info;

/// Stores what preparing `program`'s kernels cost in `*out`.
tfc_status tfc_program_compile_info(const tfc_program *program,
                                    tfc_compile_info *out);

/* ---- Profiling ---------------------------------------------------------- */

/// The measured cost of one step of an entry.
typedef struct tfc_step_profile {
  const char *label; /**< "launch k3", "gemm" or "copy" */
  const char *kind;  /**< kernel kind ("pointwise", ...), "gemm" or "copy" */
  size_t bytes;      /**< bytes the step reads plus bytes it writes */
  double median_ms;  /**< median wall time, the step waited for alone */
} tfc_step_profile;

/// Runs `entry` `repeat` times, waiting for each step before starting the
/// next, and stores one record per step in `*steps` (`*count` of them, in
/// program order; valid until the next tfc_program_profile call or
/// tfc_program_destroy). Slower than tfc_program_run: for benchmarks.
tfc_status tfc_program_profile(tfc_program *program, const char *entry,
                               int repeat, const tfc_step_profile **steps,
                               size_t *count);
/// Median time of a device-to-device copy of `bytes` bytes on the program's
/// device: the bandwidth reference for kernels.
tfc_status tfc_program_profile_copy(tfc_program *program, size_t bytes,
                                    int repeat, double *median_ms);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TFC_RUNTIME_H */
