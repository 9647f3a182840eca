import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
// The repository's compiler (plugins may not import test/support, where consumer-project.ts has the same).
const tscCli = path.join(path.dirname(createRequire(import.meta.url).resolve("typescript/package.json")), "bin", "tsc");
const run = promisify(execFile);

/**
 * Type-checks generated hooks (and `extra` files using them) with `tsc --strict` in `dir`, where
 * `svc/sync/react` maps to this repository's source. Resolves with tsc's output ("" when clean).
 */
export async function typecheckHooks(dir: string, files: Readonly<Record<string, string>>): Promise<string> {
  for (const [name, content] of Object.entries(files)) await writeFile(path.join(dir, name), content);
  await writeFile(path.join(dir, "package.json"), JSON.stringify({ type: "module" }));
  await writeFile(
    path.join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: "ES2022",
        lib: ["ES2023"],
        module: "NodeNext",
        moduleResolution: "NodeNext",
        skipLibCheck: true,
        experimentalDecorators: true,
        typeRoots: [path.join(root, "node_modules/@types")],
        types: ["node"],
        paths: { "svc/sync/react": [path.join(root, "plugins/sync/react/index.ts")] },
        allowImportingTsExtensions: true,
      },
      files: Object.keys(files),
    }),
  );
  try {
    await run(process.execPath, [tscCli, "-p", "tsconfig.json"], { cwd: dir });
    return "";
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    return `${failed.stdout ?? ""}${failed.stderr ?? ""}` || failed.message;
  }
}
