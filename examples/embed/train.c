/* train.c - train a model from C with libtfcrt alone (no compiler, no MLIR).
 *
 *   embed-train ARTIFACT WEIGHTS BATCH OUT [--device host|cuda|auto] [--steps N]
 *
 * ARTIFACT is a training-step artifact (tfc-opt model.mlir
 * --tfc-train-pipeline | tfc-translate --emit-artifact -o ARTIFACT), WEIGHTS a
 * safetensors file of the initial parameters (named as the model's tfc.param
 * attributes), BATCH one of its inputs (e.g. tokens, targets, lr). Runs N
 * (default 50) optimizer steps on the batch, prints each step's loss, and
 * writes the trained parameters to OUT. Exit 1 with one line on any error. */
#include <tfc/runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static tfc_device *device;
static tfc_program *program;

/* Prints the error of a failed call and exits; frees everything. */
static void check(tfc_status status, const char *what) {
  if (!status)
    return;
  fprintf(stderr, "embed-train: %s: %s\n", what, tfc_status_message(status));
  tfc_status_free(status);
  tfc_program_destroy(program);
  tfc_device_destroy(device);
  exit(1);
}

/* Counts the elements of every parameter. */
static size_t count_parameters(void) {
  size_t total = 0;
  for (size_t i = 0; i < tfc_program_binding_count(program); ++i) {
    tfc_binding b;
    check(tfc_program_binding(program, i, &b), "describing a binding");
    if (b.role == TFC_ROLE_PARAM)
      total += b.bytes / tfc_dtype_size(b.dtype);
  }
  return total;
}

int main(int argc, char **argv) {
  const char *kind = "auto";
  long steps = 50;
  if (argc < 5) {
    fprintf(stderr, "usage: embed-train ARTIFACT WEIGHTS BATCH OUT "
                    "[--device host|cuda|auto] [--steps N]\n");
    return 1;
  }
  for (int i = 5; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--device"))
      kind = argv[i + 1];
    else if (!strcmp(argv[i], "--steps"))
      steps = strtol(argv[i + 1], NULL, 10);
    else {
      fprintf(stderr, "embed-train: unknown flag '%s'\n", argv[i]);
      return 1;
    }
  }
  if (steps < 1) {
    fprintf(stderr, "embed-train: --steps must be at least 1\n");
    return 1;
  }

  check(tfc_device_create(kind, &device), "opening the device");
  check(tfc_program_load(device, argv[1], &program), "loading the artifact");
  check(tfc_program_load_safetensors(program, argv[2], 0), "reading weights");
  check(tfc_program_load_safetensors(program, argv[3], 0), "reading the batch");
  printf("%s: %zu parameters on %s\n", argv[1], count_parameters(),
         tfc_device_description(device));

  /* Parameters and optimizer state stay on the device between steps; only
   * the scalar loss comes back. */
  for (long step = 1; step <= steps; ++step) {
    float loss = 0;
    check(tfc_program_run(program, "train_step"), "running train_step");
    check(tfc_program_get(program, "loss", &loss, sizeof loss), "reading loss");
    printf("step %ld loss %.9g\n", step, loss);
  }

  check(tfc_program_save_safetensors(program, argv[4], TFC_ROLE_PARAM),
        "writing the weights");
  tfc_program_destroy(program);
  tfc_device_destroy(device);
  return 0;
}
