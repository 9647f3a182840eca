import test from "ava";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { MongoClient } from "mongodb";

test("svc-db serves the wire protocol on the given port and stops on SIGTERM", async (t) => {
  const child = spawn(process.execPath, ["--import=tsx", "hosts/svc-db.ts", "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] });
  t.teardown(() => child.kill("SIGKILL"));
  let output = "";
  const uri = await new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (mongodb:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.once("exit", (code) => reject(new Error(`svc-db exited with ${code}: ${output}`)));
  });
  const client = await new MongoClient(uri).connect();
  try {
    await client.db("cli").collection("c").insertOne({ a: 1 });
    t.is(await client.db("cli").collection("c").countDocuments(), 1);
  } finally {
    await client.close();
  }
  child.kill("SIGTERM");
  const [code] = await once(child, "exit");
  t.is(code, 0);
});

test("svc-db rejects a bad port with its usage", async (t) => {
  const child = spawn(process.execPath, ["--import=tsx", "hosts/svc-db.ts", "--port", "nope"], { stdio: ["ignore", "pipe", "pipe"] });
  let errors = "";
  child.stderr.on("data", (chunk: Buffer) => (errors += chunk.toString()));
  const [code] = await once(child, "exit");
  t.is(code, 1);
  t.regex(errors, /invalid --port/);
  t.regex(errors, /usage: svc-db/);
});
