# lit configuration of tfc's test suite (test/ mirrors the source tree).
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "tfc"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
# Inputs: files tests read; corpus: the fuzzers' seeds (test/fuzz), IR
# inputs rather than tests.
config.excludes = ["Inputs", "corpus", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tfc_obj_root, "test")

# Every FileCheck run scopes variables to their CHECK-LABEL block.
config.environment["FILECHECK_OPTS"] = "-enable-var-scope"

llvm_config.use_default_substitutions()
config.substitutions.append(("%tfc_src", config.tfc_src_root))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(
    ("%expect-exit",
     config.python_executable + " " +
     os.path.join(config.tfc_src_root, "test", "lit-helpers", "expect_exit.py")))

llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.add_tool_substitutions(
    ["tfc-opt", "tfc-translate", "tfc-run", "tfcrt-run", "tfc-train", "tfc-nvrtc-check"], [config.tfc_tools_dir])
# tfc-nvrtc-check is built only where CUDA's NVRTC and ptxas were found.
if os.path.exists(os.path.join(config.tfc_tools_dir, "tfc-nvrtc-check")):
    config.available_features.add("nvrtc-check")
