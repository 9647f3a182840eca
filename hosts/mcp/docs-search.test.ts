import test from "ava";
import { countTokens } from "gpt-tokenizer";
import { loadDocsLibrary, splitSections, SVC_PACKAGES } from "./docs-library.js";
import { resolveDocsDir } from "./docs-location.js";
import { DEFAULT_TOKEN_LIMIT, DocsSearch, normalisePackage, unknownPackageErrors } from "./docs-search.js";

const library = await loadDocsLibrary(resolveDocsDir({}));
const search = new DocsSearch(library);

test("the package's docs are found without SVC_MCP_DOCS_DIR, resource documents included", (t) => {
  t.true(library.files.has("rest.md") && library.files.has("mcp/overview.md") && library.files.has("upgrades/response-handler.md"));
  t.true(library.sections.length > 100);
});

test("answers fit the token budget, counted with the tokenizer (default 3000)", (t) => {
  const wide = search.search({ queries: ["model", "sync", "admin", "auth", "permissions"] });
  t.true(wide.tokens <= DEFAULT_TOKEN_LIMIT && wide.tokens > DEFAULT_TOKEN_LIMIT / 2, `${wide.tokens} tokens`);
  t.true(countTokens(wide.text) <= DEFAULT_TOKEN_LIMIT);
  t.true(wide.omitted > 0, "more matched than fits");
  for (const limit of [60, 500, 1500]) {
    const answer = search.search({ queries: ["modelRouter options queryFilter"], tokenLimit: limit });
    t.true(countTokens(answer.text) <= limit, `${countTokens(answer.text)} <= ${limit}`);
    t.true(answer.sections.length >= 1, "even a small budget gets the head of the best section");
  }
});

test("the budget holds for the joined answer, not only for the sum of its sections (separators and token boundaries count)", (t) => {
  const sections = splitSections("# Alpha\n\nwidget widget widget.\n\n# Beta\n\nwidget gadget.\n\n# Gamma\n\nwidget gizmo.").map((section, id) => ({ ...section, id, file: "x.md", packages: ["svc"] }));
  const small = new DocsSearch({ ...library, sections });
  const everything = small.search({ queries: ["widget"], tokenLimit: 10_000 });
  t.is(everything.sections.length, 3);
  // A budget of exactly what the three sections weigh apart: joined, they weigh more, so one goes.
  const apart = everything.text.split(/\n\n(?=<!-- )/).reduce((sum, part) => sum + countTokens(part), 0);
  const answer = small.search({ queries: ["widget"], tokenLimit: apart });
  t.true(countTokens(answer.text) <= apart, `${countTokens(answer.text)} <= ${apart}`);
  t.is(answer.tokens, countTokens(answer.text));
  t.is(answer.sections.length, 2);
});

test("ranking: the section about the asked thing comes first; several queries add up", (t) => {
  const [first] = search.search({ queries: ["OwnerQueryFilter"], tokenLimit: 2000 }).sections;
  t.regex(first!.text, /OwnerQueryFilter/);
  const combined = search.search({ queries: ["refresh token rotation", "POST /auth/refresh_token"], tokenLimit: 800 });
  t.true(combined.sections.some((section) => section.file === "auth.md" || section.file.startsWith("mcp/")));
});

test("a name written only as markdown code (`readMe`) is found by its name; `svc_search_docs` by its words", (t) => {
  const sections = splitSections("# Auth\n\nOperation ids: `signUp`, `readMe`.\n\n# Tools\n\nCall `svc_search_docs` with `$in` filters.").map((section, id) => ({ ...section, id, file: "x.md", packages: ["svc"] }));
  const small = new DocsSearch({ ...library, sections });
  const found = (query: string) => small.search({ queries: [query] }).sections.map((section) => section.title);
  t.deepEqual(found("readMe"), ["Auth"]);
  t.deepEqual(found("svc_search_docs"), ["Tools"]);
  t.deepEqual(found("search docs"), ["Tools"]);
  t.deepEqual(found("$in"), ["Tools"]);
});

test("packages filter by the package a page documents", (t) => {
  const sync = search.search({ queries: ["snapshot cursor stream"], packages: ["sync"], tokenLimit: 20000 });
  t.true(sync.sections.length > 0);
  t.true(sync.sections.every((section) => section.packages.some((name) => name === "svc/sync" || name.startsWith("svc/sync/"))));
  const admin = search.search({ queries: ["listFields"], packages: ["svc/admin"], tokenLimit: 20000 });
  t.true(admin.sections.every((section) => section.packages.includes("svc/admin")));
  // svc-mcp-local's runtime tools are svc/mcp's, like the two MCP pages.
  t.true(search.search({ queries: ["database_query"], packages: ["svc/mcp"], tokenLimit: 20000 }).sections.some((section) => section.file === "mcp-runtime-tools.md"));
  t.deepEqual(search.search({ queries: ["zzqqxx"] }).sections, []);
  t.deepEqual(["svc", "sync", "svc/sync", "svc-sync", "@svc/sync/react"].map(normalisePackage), ["svc", "svc/sync", "svc/sync", "svc/sync", "svc/sync/react"]);
});

test("package names are checked against the known ones, which every page's package is among", (t) => {
  t.deepEqual(unknownPackageErrors(["sync", "svc-admin", "@svc/sync/react"], SVC_PACKAGES), []);
  t.deepEqual(unknownPackageErrors(["sync", "bogus", "svc/nope"], SVC_PACKAGES), [`unknown package(s): bogus, svc/nope; known: ${SVC_PACKAGES.join(", ")}`]);
  for (const section of library.sections) t.deepEqual(unknownPackageErrors(section.packages, SVC_PACKAGES), [], section.file);
});

test("suggestions are names as the docs spell them, closest first, each once, without markdown around them", (t) => {
  t.deepEqual(search.suggest("useEntty"), ["useEntity"]);
  t.deepEqual(search.suggest("adminPlugn"), ["adminPlugin"]);
  t.is(search.suggest("SvcAp")[0], "SvcApp");
  for (const typo of ["modelRoutr", "queryFiltr", "OwnerQueryFiltr"]) {
    const names = search.suggest(typo);
    t.true(names.length > 0 && names.every((name) => /^[\w$]+$/.test(name)), `${typo}: ${names.join(", ")}`);
    t.is(new Set(names.map((name) => name.toLowerCase())).size, names.length, `${typo}: ${names.join(", ")}`);
  }
  t.deepEqual(search.suggest("zzqqxxNothingLikeThis"), []);
});

test("sections split at headings, never inside a code block, keeping the heading trail", (t) => {
  const sections = splitSections("# A\n\nintro\n\n## B\n\n```sh\n# not a heading\n```\n\n### C\n\ntext\n\n## D\n\nmore");
  t.deepEqual(sections.map((section) => section.title), ["A", "A › B", "A › B › C", "A › D"]);
  t.true(sections[1]!.text.includes("# not a heading"));
});
