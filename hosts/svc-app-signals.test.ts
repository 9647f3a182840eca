import test from "ava";
import { fork } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const fixture = path.join(path.dirname(fileURLToPath(import.meta.url)), "test-support", "signal-app.ts");

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  test(`${signal} stops the app gracefully: the in-flight request finishes, plugins stop, exit 0`, async (t) => {
    const child = fork(fixture, { execArgv: ["--import=tsx"], stdio: ["ignore", "pipe", "pipe", "ipc"] });
    let output = "";
    const seen = (text: string) =>
      new Promise<void>((resolve) => {
        const check = () => (output.includes(text) ? resolve() : undefined);
        child.stdout!.on("data", (chunk) => {
          output += chunk;
          check();
        });
        check();
      });
    await seen("listening");
    const port = /listening (\d+)/.exec(output)![1];
    const inFlight = fetch(`http://127.0.0.1:${port}/slow`).then((response) => response.json());
    await seen("in-flight");
    // "close", not "exit": the last lines can still be in the pipes when the process exits.
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    child.kill(signal);
    child.send("release");
    t.deepEqual(await inFlight, { data: "finished" });
    t.is(await exited, 0);
    t.true(output.includes("plugin stopped"));
  });
}
