#!/usr/bin/env node
// `npm test`: the type check, then ava (TAP), then one closing line `N passed, N failed[, N skipped]`.
// CI reads that last line, so it is printed even when the type check, ava or this script itself
// fails; a failed type check counts as one failed test and ava does not run (its results would
// mislead).
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);

/** Runs a command, streaming its output through while keeping a copy for parsing. */
function run(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], env: process.env });
    let output = "";
    const relay = (target) => (chunk) => {
      output += chunk;
      target.write(chunk);
    };
    child.stdout.on("data", relay(process.stdout));
    child.stderr.on("data", relay(process.stderr));
    child.on("error", (error) => resolve({ code: 1, output: `${output}\n${error.message}` }));
    child.on("close", (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
  });
}

function count(output, pattern) {
  const match = output.replace(/\u001b\[[0-9;]*m/g, "").match(pattern);
  return match ? Number(match[1]) : 0;
}

// Neither typescript 7 nor ava exports its CLI, so both are located from files they do export.
const tscCli = () => path.join(path.dirname(require.resolve("typescript/package.json")), "bin", "tsc");
const avaCli = () => path.join(path.dirname(require.resolve("ava")), "cli.mjs");

let passed = 0;
let failed = 0;
let skipped = 0;
try {
  // The admin web UI is browser code: its own project, with the DOM's types and not Node's.
  const typechecks = await Promise.all(["tsconfig.json", "plugins/admin/ui/tsconfig.json"].map((project) => run(process.execPath, [tscCli(), "-p", project, "--noEmit"])));
  if (typechecks.some((typecheck) => typecheck.code !== 0)) {
    console.error("\nType check failed; tests were not run.");
    failed = 1;
  } else {
    // TAP, because ava's default reporter omits the pass count when something fails.
    const result = await run(process.execPath, [avaCli(), "--tap", ...process.argv.slice(2)]);
    const avaPassed = count(result.output, /^# pass (\d+)$/m);
    const avaFailed = count(result.output, /^# fail (\d+)$/m);
    passed += avaPassed;
    skipped += count(result.output, /^# skip (\d+)$/m) + count(result.output, /^# todo (\d+)$/m);
    // A crash (no plan line) or a non-zero exit with no failure counted is still a failure.
    const crashed = !/^1\.\.\d+$/m.test(result.output) || (result.code !== 0 && avaFailed === 0);
    failed += avaFailed + (crashed ? 1 : 0);
    if (avaPassed === 0 && avaFailed === 0 && !crashed) console.error("ava ran no test.");
  }
} catch (error) {
  console.error("The test runner itself failed:", error);
  failed += 1;
}

console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exitCode = failed > 0 ? 1 : 0;
