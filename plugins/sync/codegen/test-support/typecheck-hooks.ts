import { writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { runIn, tscCli } from "../../../../test/support/consumer-project.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");

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
    await runIn(dir, process.execPath, [tscCli, "-p", "tsconfig.json"]);
    return "";
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
