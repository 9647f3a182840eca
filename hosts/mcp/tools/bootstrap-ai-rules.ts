import { normalisePackage, unknownPackageErrors } from "../docs-search.js";
import { renderFiles } from "../tool-result.js";

export interface BootstrapAiRulesArgs {
  appName: string;
  appDisplayName: string;
  description?: string;
  packages?: string[];
}

// One block of rules per svc package; `svc` (the core) is always included.
const RULES: Readonly<Record<string, string>> = {
  svc: `## svc (core)
- Models: every schema field has a \`description\`; schemas use \`{ strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } }\` and \`schema.plugin(defaultPlugins)\` (created/updated, soft delete, findExactlyOne/findOneOrNone).
- Routes: \`modelRouter(path, Model, { permissions, queryFilter, queryFields, sort })\` registered with \`app.register(...)\`; every method needs explicit permissions (\`Permissions.IsAny | IsAuthenticated | IsOwner | IsAdmin\`); owner-scoped data uses \`queryFilter: OwnerQueryFilter\` and an indexed \`ownerId\`.
- Hooks are \`preCreate/postCreate/preUpdate/...\`; shape responses with \`responseHandler(doc, method)\` (never \`transformer\`/\`responseSerializer\`).
- Errors: throw catalogue errors from \`defineErrors(PREFIX, {...})\`; clients get \`{errors: [{status, title, detail?, code}]}\`.
- Build the app with \`new SvcApp()\` (not \`setupServer\`); configuration comes from environment variables (docs: configuration).
- Check a schema with the MCP tool \`svc_validate_model_schema\` before committing it.`,
  "svc/sync": `## svc/sync
- A synced model adds \`schema.plugin(syncPlugin)\` and \`sync: { scope }\` on its router; writes to it go through the router or the sync mutation path, never \`updateMany\`/\`bulkWrite\`.`,
  "svc/sync/client": `## svc/sync/client
- Read synced collections from the local store (\`createSyncDb\`); writes go to the outbox and are reconciled; handle conflicts through the conflicts API. Non-synced routes are plain REST (docs: rtk).`,
  "svc/sync/react": `## svc/sync/react
- Components read synced data with the hooks (\`useEntity\`, \`useQuery\`, \`useMutate\`, \`useSyncStatus\`) under \`SyncDbProvider\`; never fetch a synced collection over REST in a component.`,
  "svc/admin": `## svc/admin
- Admin screens come from \`adminPlugin({ models })\` or a router's \`admin: { displayName, listFields }\`; access is role-based (\`admin:access\`).`,
  "svc/comms": `## svc/comms
- Send mail, SMS and push through the comms service and its provider adapters; sends never throw — check \`accepted\`.`,
  "svc/feature-flags": `## svc/feature-flags
- Gate features with flags evaluated per user (\`/feature-flags/flagConfiguration\`), not with environment checks.`,
  "svc/mcp": `## svc/mcp
- Expose a model to AI tools with \`mcp: { methods, excludeFields }\` on its router; custom tools with \`mcpTool({ name, description, inputSchema, handler })\`.`,
  "svc/testing": `## svc/testing
- Tests build the app per test with the \`svc/testing\` helpers and run the real HTTP stack against the embedded database; no mocks of svc.`,
};

/**
 * `svc_bootstrap_ai_rules`: rules files for AI assistants working on an svc app — `AGENTS.md`
 * (the shared rules), `CLAUDE.md` (points Claude Code at them and at the MCP servers) and
 * `.cursor/rules/svc.mdc` (Cursor) — with a section per chosen package.
 *
 * @example
 * bootstrapAiRules({ appName: "book-club", appDisplayName: "Book Club", packages: ["svc/sync"] });
 */
export function bootstrapAiRules(args: BootstrapAiRulesArgs): { text: string } | { errors: string[] } {
  const errors = unknownPackageErrors(args.packages ?? [], Object.keys(RULES));
  if (errors.length) return { errors };
  const chosen = ["svc", ...(args.packages ?? []).map(normalisePackage)];
  const sections = [...new Set(chosen)].map((name) => RULES[name]!);
  const intro = `# ${args.appDisplayName} (${args.appName})

${args.description?.trim() || `${args.appDisplayName} is a back end built with svc.`}

Ask the svc MCP servers before guessing: \`svc_search_docs\` for how things work, \`svc_generate_model\` /
\`svc_generate_route\` for new resources, \`svc_validate_model_schema\` for schema changes, and (local)
\`application_info\`, \`database_schema\`, \`read_logs\` for the running app.`;
  const agents = `${intro}\n\n${sections.join("\n\n")}\n\n## Working here\n- TypeScript strict, ESM; \`npm run typecheck\` and the tests pass before a commit.\n- Never write secrets into the repository: \`.env\` is ignored.\n`;
  const claude = `# ${args.appDisplayName}\n\nThe project rules are in AGENTS.md — read them first. The MCP servers are configured in .mcp.json.\n`;
  const cursor = `---\ndescription: svc conventions for ${args.appDisplayName}\nglobs: ["src/**/*.ts", "src/**/*.tsx"]\nalwaysApply: true\n---\n\n${sections.join("\n\n")}\n`;
  return {
    text: renderFiles([
      { path: "AGENTS.md", language: "md", content: agents },
      { path: "CLAUDE.md", language: "md", content: claude },
      { path: ".cursor/rules/svc.mdc", language: "md", content: cursor },
    ]),
  };
}
