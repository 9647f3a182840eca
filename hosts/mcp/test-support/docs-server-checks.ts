// One conformance run of the documentation server, shared by the HTTP (svc-mcp) and stdio
// (svc-mcp-local) tests: every resource listed and read, every tool called with valid arguments,
// with arguments its schema refuses and with arguments its handler refuses, every prompt got.
import type { ExecutionContext } from "ava";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { countTokens } from "gpt-tokenizer";
import { answerText, type DocsClient } from "./docs-clients.js";

export const DOCS_TOOLS: Record<string, string[]> = {
  svc_search_docs: ["queries", "packages", "tokenLimit"],
  svc_get_component_docs: ["component"],
  svc_generate_model: ["name", "fields", "hasOwner", "softDelete", "timestamps"],
  svc_generate_route: ["modelName", "routePath", "permissions", "queryFields", "ownerFiltered", "sort", "populate"],
  svc_generate_screen: ["name", "type", "modelName", "fields", "hasSearch", "hasPagination"],
  svc_generate_form_fields: ["modelName", "fields"],
  svc_validate_model_schema: ["schemaCode"],
  svc_bootstrap_app: ["appName", "appDisplayName", "description", "mcpServerUrl"],
  svc_bootstrap_ai_rules: ["appName", "appDisplayName", "description", "packages"],
  svc_install_admin: ["models", "basePath", "accessControl"],
  svc_get_upgrade_guide: ["guide"],
};

export const DOCS_PROMPTS: Record<string, string[]> = {
  svc_bootstrap: ["appName!", "appDisplayName!"],
  svc_create_crud_feature: ["name!", "fields!", "hasOwner"],
  svc_create_api_endpoint: ["path!", "method!", "description"],
  svc_create_ui_component: ["name!", "type!", "description"],
  svc_create_form_screen: ["name!", "modelName!", "fields!"],
  svc_add_authentication: ["strategies", "includeRefreshToken"],
  svc_migrate_to_svc_app: ["serverFile"],
  svc_style_guide: [],
};

const book = { modelName: "Book", routePath: "/books", displayName: "Books", listFields: ["title"] };

/** Valid calls: each answers text (no error) containing the marker. */
const VALID: Array<[string, Record<string, unknown>, string | RegExp]> = [
  ["svc_search_docs", { queries: ["modelRouter permissions", "owner query filter"], tokenLimit: 400 }, "<!--"],
  ["svc_search_docs", { queries: ["realtime socket"], packages: ["sync"] }, /sync/],
  ["svc_get_component_docs", { component: "modelRouter" }, "modelRouter("],
  ["svc_generate_model", { name: "Book", fields: [{ name: "title", type: "String", required: true, description: "The title" }], hasOwner: true }, "export const Book = mongoose.model"],
  ["svc_generate_route", { modelName: "Book", routePath: "/books", ownerFiltered: true, queryFields: ["title"], sort: "-created" }, 'modelRouter("/books", Book'],
  ["svc_generate_screen", { name: "BookList", type: "list", modelName: "Book", fields: ["title"], hasSearch: true, hasPagination: true }, "export function BookList"],
  ["svc_generate_screen", { name: "Welcome", type: "empty" }, "export function Welcome"],
  ["svc_generate_form_fields", { modelName: "Book", fields: [{ name: "title", type: "text", required: true }, { name: "genre", type: "select", options: ["fiction", "essay"] }] }, "export function BookFormFields"],
  ["svc_validate_model_schema", { schemaCode: 'import { Schema } from "mongoose";\nexport const s = new Schema({ title: String });' }, '"rule": "missing-description"'],
  ["svc_bootstrap_app", { appName: "book-club", appDisplayName: "Book Club", mcpServerUrl: "http://localhost:8080/mcp" }, "### package.json"],
  ["svc_bootstrap_ai_rules", { appName: "book-club", appDisplayName: "Book Club", packages: ["svc/sync"] }, "## svc/sync"],
  ["svc_install_admin", { models: [book] }, 'basePath: "/admin"'],
  ["svc_get_upgrade_guide", {}, "setup-server-to-svc-app"],
  ["svc_get_upgrade_guide", { guide: "response-handler" }, "responseHandler(doc, method"],
];

/** Arguments the input schemas refuse: answered as tool errors by the SDK. */
const SCHEMA_INVALID: Array<[string, unknown]> = [
  ["svc_search_docs", { queries: [] }],
  ["svc_search_docs", { queries: ["a"], tokenLimit: 0 }],
  ["svc_search_docs", { queries: ["a"], evil: true }],
  ["svc_search_docs", { queries: "modelRouter" }],
  ["svc_get_component_docs", {}],
  ["svc_generate_model", { name: "Book", fields: [{ name: "x", type: "Float" }] }],
  ["svc_generate_model", { name: "Book", fields: [{ name: "x", type: "String", $where: "1" }] }],
  ["svc_generate_route", { modelName: "Book" }],
  ["svc_generate_route", { modelName: "Book", routePath: "/books", permissions: { list: "everyone" } }],
  ["svc_generate_screen", { name: "X", type: "grid" }],
  ["svc_generate_form_fields", { modelName: "Book", fields: [] }],
  ["svc_validate_model_schema", { schemaCode: 42 }],
  ["svc_bootstrap_app", { appName: "book-club" }],
  ["svc_bootstrap_ai_rules", { appName: "book-club" }],
  ["svc_install_admin", { models: [] }],
  ["svc_install_admin", { models: [{ ...book, listFields: [] }] }],
  ["svc_get_upgrade_guide", { guide: 5 }],
];

/** Arguments that pass the schema but that the tool refuses, saying why. */
const HANDLER_INVALID: Array<[string, Record<string, unknown>, string]> = [
  ["svc_search_docs", { queries: ["realtime socket"], packages: ["sync", "bogus"] }, "unknown package(s): bogus; known: svc, svc/sync, svc/sync/client"],
  ["svc_get_component_docs", { component: "zzqqxxNothingLikeThis" }, "No documentation mentions"],
  ["svc_generate_model", { name: "Book", fields: [{ name: "pages", type: "Number", default: "many" }] }, "is not a number"],
  ["svc_generate_model", { name: "Book", fields: [{ name: "ownerId", type: "ObjectId" }] }, "reserved"],
  ["svc_generate_route", { modelName: "Book", routePath: "books" }, "routePath"],
  ["svc_generate_screen", { name: "BookList", type: "list" }, "needs modelName"],
  ["svc_generate_form_fields", { modelName: "Book", fields: [{ name: "genre", type: "select" }] }, "needs options"],
  ["svc_bootstrap_app", { appName: "Book Club", appDisplayName: "Book Club" }, "kebab-case"],
  ["svc_bootstrap_ai_rules", { appName: "book-club", appDisplayName: "Book Club", packages: ["svc/nope"] }, "unknown package"],
  ["svc_install_admin", { models: [{ ...book, routePath: "books" }] }, "routePath"],
  ["svc_get_upgrade_guide", { guide: "no-such-guide-anywhere" }, "No upgrade guide matches"],
];

const PROMPT_ARGS: Record<string, Record<string, string>> = {
  svc_bootstrap: { appName: "book-club", appDisplayName: "Book Club" },
  svc_create_crud_feature: { name: "Book", fields: "title:String, pages:Number", hasOwner: "yes" },
  svc_create_api_endpoint: { path: "/books/:id/borrow", method: "post", description: "Borrow a book" },
  svc_create_ui_component: { name: "BookCard", type: "display", description: "A book's cover and title" },
  svc_create_form_screen: { name: "BookForm", modelName: "Book", fields: "title,pages" },
  svc_add_authentication: { strategies: "email,github", includeRefreshToken: "no" },
  svc_migrate_to_svc_app: { serverFile: "src/server.ts" },
  svc_style_guide: {},
};

/** Refused prompt arguments, and what the refusal must say (fixed choices are named). */
const PROMPT_INVALID: Array<[string, Record<string, string>, RegExp?]> = [
  ["svc_create_api_endpoint", { path: "/x", method: "put" }, /must be one of "get", "post", "patch", "delete"/],
  ["svc_create_ui_component", { name: "X", type: "widget" }, /must be one of "display", "interactive", "form", "layout"/],
  ["svc_create_crud_feature", { name: "Book", fields: "title:Float" }],
  ["svc_add_authentication", { strategies: "email,facebook" }],
  ["svc_bootstrap", { appName: "book-club" }],
  ["svc_migrate_to_svc_app", { serverFile: "x".repeat(1001) }, /1000 characters/],
];

/** Prompt arguments with fixed choices: prompts/list carries only descriptions, so each names them. */
const PROMPT_CHOICES: Record<string, Record<string, string[]>> = {
  svc_create_crud_feature: { hasOwner: ["yes", "no"] },
  svc_create_api_endpoint: { method: ["get", "post", "patch", "delete"] },
  svc_create_ui_component: { type: ["display", "interactive", "form", "layout"] },
  svc_add_authentication: { strategies: ["email", "github", "google"], includeRefreshToken: ["yes", "no"] },
};

/** Every variable JWT auth needs outside development (plugins/auth/auth-environment.ts). */
const PRODUCTION_AUTH_VARIABLES = ["TOKEN_SECRET", "REFRESH_TOKEN_SECRET", "SESSION_SECRET", "TOKEN_ISSUER"];

/** The files of a generator's answer: `### path`, then a fence of 3+ backticks closed by the same fence. */
export function filesOf(text: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const match of text.matchAll(/^### (\S+)\n\n(`{3,})\w*\n([\s\S]*?)\n\2$/gm)) files.set(match[1]!, `${match[3]!}\n`);
  return files;
}

/**
 * Runs the whole surface against one connected client.
 *
 * @example
 * await checkDocsServer(t, await connectHttp("pinned", url), docsDir, { exactTools: true });
 */
export async function checkDocsServer(t: ExecutionContext, client: DocsClient, docsDir: string, options: { exactTools: boolean }): Promise<void> {
  const label = `${client.kind}:`;

  const { resources } = await client.listResources();
  t.deepEqual(resources.map((resource) => resource.uri).sort(), ["api", "overview", "patterns", "rtk", "ui"].map((name) => `svc://docs/${name}`), label);
  for (const resource of resources) {
    const { contents } = await client.readResource({ uri: resource.uri });
    const name = resource.uri.slice("svc://docs/".length);
    t.is(contents[0]?.text, await readFile(path.join(docsDir, "mcp", `${name}.md`), "utf8"), `${label} ${resource.uri}`);
    t.is(contents[0]?.mimeType, "text/markdown");
    // The description is the first paragraph, or its head cut after a word with "…".
    const description = resource.description ?? "";
    const paragraph = (contents[0]?.text ?? "").replace(/^#.*$/gm, "").trim().split(/\n{2,}/)[0]!.replace(/\s+/g, " ");
    t.true(description.length <= 300, `${label} ${resource.uri} description: ${description.length} characters`);
    if (description !== paragraph) {
      const kept = description.replace(/ ?…$/, "");
      t.true(description.endsWith("…") && paragraph.startsWith(kept) && /^[\s,;:—–-]/.test(paragraph.slice(kept.length)), `${label} ${resource.uri} cut at a word: ${description}`);
    }
  }
  await t.throwsAsync(client.readResource({ uri: "svc://docs/secrets" }), undefined, `${label} unknown resource`);

  const { tools } = await client.listTools();
  const names = tools.map((tool) => tool.name);
  for (const [name, params] of Object.entries(DOCS_TOOLS)) {
    const tool = tools.find((candidate) => candidate.name === name);
    t.truthy(tool, `${label} ${name} listed`);
    t.deepEqual(Object.keys(tool?.inputSchema.properties ?? {}).sort(), [...params].sort(), `${label} ${name} parameters`);
  }
  if (options.exactTools) t.deepEqual([...names].sort(), Object.keys(DOCS_TOOLS).sort(), label);
  const search = tools.find((tool) => tool.name === "svc_search_docs")!;
  t.is((search.inputSchema.properties!.tokenLimit as { default?: number }).default, 3000);
  t.deepEqual(search.inputSchema.required, ["queries"]);

  for (const [name, args, marker] of VALID) {
    const answer = await client.callTool({ name, arguments: args });
    const text = answerText(answer);
    t.falsy(answer.isError, `${label} ${name} ${text.slice(0, 200)}`);
    if (typeof marker === "string") t.true(text.includes(marker), `${label} ${name} answers ${JSON.stringify(marker)}`);
    else t.regex(text, marker, `${label} ${name}`);
  }
  const budget = await client.callTool({ name: "svc_search_docs", arguments: { queries: ["modelRouter permissions", "owner query filter"], tokenLimit: 400 } });
  t.true(countTokens(answerText(budget)) <= 400 + 40, `${label} the answer fits its budget (the footer aside)`);

  for (const [name, args] of SCHEMA_INVALID) {
    const answer = await client.callTool({ name, arguments: args as Record<string, unknown> });
    t.true(answer.isError, `${label} ${name} ${JSON.stringify(args)} is a tool error`);
    t.true(answerText(answer).includes("Input validation error"), `${label} ${name}: ${answerText(answer)}`);
  }
  for (const [name, args, reason] of HANDLER_INVALID) {
    const answer = await client.callTool({ name, arguments: args });
    t.true(answer.isError, `${label} ${name} ${JSON.stringify(args)} is refused`);
    t.true(answerText(answer).includes(reason), `${label} ${name}: ${answerText(answer)}`);
  }

  const { prompts } = await client.listPrompts();
  t.deepEqual(prompts.map((prompt) => prompt.name).sort(), Object.keys(DOCS_PROMPTS).sort(), label);
  for (const prompt of prompts) {
    const declared = (prompt.arguments ?? []).map((argument) => `${argument.name}${argument.required ? "!" : ""}`);
    t.deepEqual(declared.sort(), [...DOCS_PROMPTS[prompt.name]!].sort(), `${label} ${prompt.name} arguments`);
    const args = PROMPT_ARGS[prompt.name]!;
    const { messages } = await client.getPrompt({ name: prompt.name, arguments: args });
    const text = (messages[0]?.content as { text?: string }).text ?? "";
    t.is(messages[0]?.role, "user");
    for (const value of Object.values(args).filter((value) => !/^(yes|no)$/.test(value))) {
      const word = value.split(/[,:\s]/)[0]!;
      t.true(text.toLowerCase().includes(word.toLowerCase()), `${label} ${prompt.name} mentions ${word}`);
    }
  }
  for (const [name, args, message] of PROMPT_INVALID) {
    await t.throwsAsync(client.getPrompt({ name, arguments: args }), message ? { message } : undefined, `${label} ${name} ${JSON.stringify(args)}`);
  }
  for (const [name, choices] of Object.entries(PROMPT_CHOICES)) {
    const declared = prompts.find((prompt) => prompt.name === name)?.arguments ?? [];
    for (const [argument, values] of Object.entries(choices)) {
      const description = declared.find((candidate) => candidate.name === argument)?.description ?? "";
      t.true(values.every((value) => description.includes(value)), `${label} ${name}.${argument} names ${values.join(", ")}: ${description}`);
    }
  }

  // What production needs set is named alike by the prompt, the generated .env.example and docs/mcp/api.md.
  const auth = await client.getPrompt({ name: "svc_add_authentication", arguments: {} });
  const authText = (auth.messages[0]?.content as { text?: string }).text ?? "";
  const envExample = filesOf(answerText(await client.callTool({ name: "svc_bootstrap_app", arguments: { appName: "book-club", appDisplayName: "Book Club" } })));
  const apiDoc = await readFile(path.join(docsDir, "mcp", "api.md"), "utf8");
  for (const variable of PRODUCTION_AUTH_VARIABLES) {
    t.regex(authText, new RegExp(`In production set [^\\n]*${variable}`), `${label} the auth prompt names ${variable}`);
    t.regex(envExample.get(".env.example") ?? "", new RegExp(`^# ${variable}=`, "m"), `${label} .env.example lists ${variable}`);
    t.regex(apiDoc.split("## Authentication")[1]!.split("\n## ")[0]!, new RegExp(`In production set[\\s\\S]*\`${variable}\``), `api.md names ${variable}`);
  }
  // Google sign-in is session auth's: the prompt says so rather than sending JWT apps looking for it.
  const google = await client.getPrompt({ name: "svc_add_authentication", arguments: { strategies: "email,google" } });
  t.regex((google.messages[0]?.content as { text?: string }).text ?? "", /google: Google sign-in is session auth's/, `${label} google is session auth's`);
  // Every generated file is whole: the README's own ```sh block does not close its fence.
  t.deepEqual([...envExample.keys()], ["package.json", "tsconfig.json", "src/models/user.ts", "src/app.ts", "src/main.ts", ".env.example", ".mcp.json", "README.md", ".gitignore"], label);
  t.regex(envExample.get("README.md")!, /```sh\nnpm install\n[\s\S]*```\n\nBuilt with svc/, `${label} the README is whole`);

  // "Did you mean" names what the docs name, as they spell it, once each.
  const typo = answerText(await client.callTool({ name: "svc_get_component_docs", arguments: { component: "useEntty" } }));
  const close = /Close words in the docs: (.*)\. Try/.exec(typo)?.[1]?.split(", ") ?? [];
  t.is(close[0], "useEntity", `${label} ${typo}`);
  t.true(close.every((word) => /^[\w$]+$/.test(word)), `${label} only whole names: ${typo}`);
  t.is(new Set(close.map((word) => word.toLowerCase())).size, close.length, `${label} each once: ${typo}`);
}
