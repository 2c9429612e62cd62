// Render a batch of chatformats cases under Pyodide (CPython compiled to WebAssembly), offline.
//
//   node tests/pyodide/run.js SRC_DIR RENDER_CASES_PY CASES_PICKLE OUT_PICKLE [--audit]
//
// Loads the runtime and the standard library from the `pyodide` npm package installed next to
// this file (`npm ci` in tests/pyodide; nothing is downloaded at run time), copies the package
// source (SRC_DIR/chatformats/**/*.py) and scripts/render_cases.py into Pyodide's in-memory file
// system, runs render_cases.main() there and copies the pickled results out.
// tests/test_runtimes.py compares them with CPython's renders, byte for byte.
"use strict";

const fs = require("fs");
const path = require("path");
const { loadPyodide } = require("pyodide");

function copyTree(py, hostDir, fsDir) {
  py.FS.mkdirTree(fsDir);
  for (const entry of fs.readdirSync(hostDir, { withFileTypes: true })) {
    if (entry.name === "__pycache__") continue;
    const hostPath = path.join(hostDir, entry.name);
    const fsPath = `${fsDir}/${entry.name}`;
    if (entry.isDirectory()) copyTree(py, hostPath, fsPath);
    else if (entry.name.endsWith(".py") || entry.name === "py.typed") {
      py.FS.writeFile(fsPath, fs.readFileSync(hostPath));
    }
  }
}

async function main() {
  const [src, script, cases, out, ...flags] = process.argv.slice(2);
  if (!out) {
    console.error("usage: node run.js SRC_DIR RENDER_CASES_PY CASES_PICKLE OUT_PICKLE [--audit]");
    process.exit(2);
  }
  const indexURL = path.dirname(require.resolve("pyodide/package.json")) + path.sep;
  const py = await loadPyodide({
    indexURL,
    stdout: (line) => process.stderr.write(`[pyodide] ${line}\n`),
    stderr: (line) => process.stderr.write(`[pyodide] ${line}\n`),
  });
  copyTree(py, path.join(src, "chatformats"), "/chatformats-test/src/chatformats");
  py.FS.writeFile("/chatformats-test/render_cases.py", fs.readFileSync(script));
  py.FS.writeFile("/chatformats-test/cases.pickle", fs.readFileSync(cases));
  py.globals.set("extra_flags", py.toPy(flags));
  py.runPython(`
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, "/chatformats-test")
import render_cases
status = render_cases.main([
    "--src", "/chatformats-test/src",
    "--cases", "/chatformats-test/cases.pickle",
    "--out", "/chatformats-test/results.pickle",
    *extra_flags,
])
assert status == 0, status
`);
  fs.writeFileSync(out, py.FS.readFile("/chatformats-test/results.pickle"));
}

main().catch((err) => {
  console.error(err && err.stack ? err.stack : String(err));
  process.exit(1);
});
