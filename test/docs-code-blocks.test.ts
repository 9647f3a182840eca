import test from "ava";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { consumerProject, USER_COMPILER_OPTIONS } from "./support/consumer-project.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** A fenced TypeScript block of a markdown file, with the line its code starts on. */
interface CodeBlock {
  readonly file: string;
  readonly line: number;
  readonly code: string;
  /** Fenced `tsx`: compiled as a .tsx module, so its JSX is checked against React's types. */
  readonly tsx?: true;
}

/** Every ```ts block (also `typescript`, `tsx`) of a markdown text. */
function typescriptBlocks(file: string, markdown: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const lines = markdown.split("\n");
  for (let index = 0; index < lines.length; index++) {
    const fence = /^\s*```(ts|typescript|tsx)\s*$/.exec(lines[index]!);
    if (!fence) continue;
    const start = index + 1;
    let end = start;
    while (end < lines.length && !/^\s*```\s*$/.test(lines[end]!)) end++;
    const code = lines.slice(start, end).join("\n");
    blocks.push(fence[1] === "tsx" ? { file, line: start + 1, code, tsx: true } : { file, line: start + 1, code });
    index = end;
  }
  return blocks;
}

/**
 * Where a block is compiled: each markdown file gets a folder; a block that starts with a path
 * comment (`// src/models.ts`) is that file of the doc's example project, so later blocks can
 * import it (`import { Post } from "./models.js"`); any other block is a module of its own.
 */
function blockFileName(block: CodeBlock): string {
  const folder = `blocks/${block.file.replace(/[/.]/g, "-")}`;
  const named = /^\/\/ ((?:[\w-]+\/)*[\w.-]+\.tsx?)\s*$/.exec(block.code.split("\n")[0] ?? "");
  return named ? `${folder}/${named[1]}` : `${folder}/block-${block.line}.${block.tsx ? "tsx" : "ts"}`;
}

/** The markdown files of a docs folder, as repository paths, sorted. */
async function markdownFiles(folder: string): Promise<string[]> {
  const names = await readdir(path.join(root, folder));
  return names.filter((name) => name.endsWith(".md")).map((name) => `${folder}/${name}`).sort();
}

/**
 * The README, docs/, and what the svc-mcp servers hand to assistants: the `svc://docs/...`
 * resources (docs/mcp/) and the upgrade guides (docs/upgrades/), whose code is copied as is.
 */
async function documentationBlocks(): Promise<CodeBlock[]> {
  const folders = await Promise.all(["docs", "docs/mcp", "docs/upgrades"].map(markdownFiles));
  const files = ["README.md", ...folders.flat()];
  const texts = await Promise.all(files.map((file) => readFile(path.join(root, file), "utf8")));
  return files.flatMap((file, index) => typescriptBlocks(file, texts[index]!));
}

test("a block opening with a path comment is that file of the doc's project", (t) => {
  t.is(blockFileName({ file: "docs/a.md", line: 3, code: "// src/models.ts\nexport const x = 1;" }), "blocks/docs-a-md/src/models.ts");
  t.is(blockFileName({ file: "docs/a.md", line: 9, code: "const x = 1; // not a path" }), "blocks/docs-a-md/block-9.ts");
});

test("the block extractor finds fenced TypeScript with its line number", (t) => {
  const blocks = typescriptBlocks("x.md", "# T\n\n```ts\nconst a = 1;\n```\n\n```sh\nls\n```\n```typescript\nlet b;\n```\n");
  t.deepEqual(blocks, [
    { file: "x.md", line: 4, code: "const a = 1;" },
    { file: "x.md", line: 11, code: "let b;" },
  ]);
  const [tsx] = typescriptBlocks("x.md", "```tsx\nconst a = <b />;\n```\n");
  t.deepEqual(tsx, { file: "x.md", line: 2, code: "const a = <b />;", tsx: true });
  t.is(blockFileName(tsx!), "blocks/x-md/block-2.tsx");
});

test("the blocks include the MCP resources and the upgrade guides", async (t) => {
  const files = new Set((await documentationBlocks()).map((block) => block.file));
  for (const file of ["docs/mcp/api.md", "docs/mcp/ui.md", "docs/mcp/rtk.md", "docs/upgrades/response-handler.md"]) t.true(files.has(file), file);
});

// Every TypeScript example of the README, docs/, docs/mcp/ and docs/upgrades/ compiles, as its own module, against the
// packed package under a careful user's compiler options: a renamed or unexported name, or a
// wrong option, fails here instead of in a user's editor.
test("every TypeScript block of README.md, docs/*.md, docs/mcp/*.md and docs/upgrades/*.md type-checks against the published package", async (t) => {
  t.timeout(8 * 60_000);
  const blocks = await documentationBlocks();
  t.true(blocks.length > 20, "the docs have TypeScript examples");
  // What the docs tell users to install next to svc (testing.md's runners, supertest; sync.md's
  // socket.io client; React for svc/sync/react; mcp/rtk.md's RTK Query and its React peer).
  const project = await consumerProject(t, [
    "@types/node@^20",
    "ava@^7",
    "supertest@^7",
    "@types/supertest@^7",
    "socket.io-client@^4",
    "react@^19",
    "@types/react@^19",
    "@reduxjs/toolkit@^2",
    "react-redux@^9",
  ]);
  const names = new Map<string, CodeBlock>();
  await Promise.all(
    blocks.map((block) => {
      const name = blockFileName(block);
      names.set(name, block);
      return project.write(name, `${block.code}\nexport {};\n`);
    }),
  );
  await project.write(
    "tsconfig.json",
    JSON.stringify({ compilerOptions: { ...USER_COMPILER_OPTIONS, jsx: "react-jsx" }, include: ["blocks/**/*.ts", "blocks/**/*.tsx"] }),
  );
  const output = await project.typecheck();
  // Point each error at the markdown line it comes from.
  const problems = output
    .split("\n")
    .filter((line) => /^blocks\//.test(line))
    .map((line) => {
      const match = /^(blocks\/[^()]+)\((\d+),(\d+)\): (.*)$/.exec(line);
      const block = match ? names.get(match[1]!) : undefined;
      return block ? `${block.file}:${block.line + Number(match![2]) - 1}: ${match![4]}` : line;
    });
  t.deepEqual(problems, [], `documentation examples that do not compile:\n${problems.join("\n")}`);
  t.is(output.trim() === "" ? "" : problems.length > 0 ? "" : output, "", "tsc reported problems outside the blocks");
});
