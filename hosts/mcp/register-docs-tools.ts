import type { CallToolResult, McpServer } from "@modelcontextprotocol/server";
import { SVC_PACKAGES, type DocsLibrary } from "./docs-library.js";
import { unknownPackageErrors, type DocsSearch } from "./docs-search.js";
import { jsonSchemaInput } from "./json-schema-input.js";
import { textResult, toolError } from "./tool-result.js";
import { TOOL_SCHEMAS, type DocsToolName } from "./tool-schemas.js";
import { bootstrapAiRules, type BootstrapAiRulesArgs } from "./tools/bootstrap-ai-rules.js";
import { bootstrapApp, type BootstrapAppArgs } from "./tools/bootstrap-app.js";
import { componentDocs } from "./tools/component-docs.js";
import { generateFormFields, type GenerateFormFieldsArgs } from "./tools/generate-form-fields.js";
import { generateModel, type GenerateModelArgs } from "./tools/generate-model.js";
import { generateRoute, type GenerateRouteArgs } from "./tools/generate-route.js";
import { generateScreen, type GenerateScreenArgs } from "./tools/generate-screen.js";
import { installAdmin, type InstallAdminArgs } from "./tools/install-admin.js";
import { upgradeGuide, type UpgradeGuideArgs } from "./tools/upgrade-guide.js";
import { renderSchemaReport, validateModelSchema } from "./tools/validate-model-schema.js";

/** What the documentation tools read: loaded once, shared by every server instance. */
export interface DocsToolContext {
  readonly library: DocsLibrary;
  readonly search: DocsSearch;
}

interface ToolDefinition<Args> {
  readonly title: string;
  readonly description: string;
  readonly run: (args: Args, context: DocsToolContext) => { text: string } | { errors: string[] };
}

const answer = (outcome: { text: string } | { errors: string[] }): CallToolResult =>
  "errors" in outcome ? toolError(outcome.errors.join("\n")) : textResult(outcome.text);

// Every tool is read-only: it answers text and never touches the caller's files.
const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

const TOOLS: { [Name in DocsToolName]: ToolDefinition<never> } = {
  svc_search_docs: {
    title: "Search the svc documentation",
    description: "Full-text search over the svc docs; returns the best sections that fit tokenLimit (default 3000 tokens).",
    run: (args: { queries: string[]; packages?: string[]; tokenLimit: number }, { search }) => {
      const errors = unknownPackageErrors(args.packages ?? [], SVC_PACKAGES);
      if (errors.length) return { errors };
      const result = search.search(args);
      if (!result.sections.length) return { text: `Nothing in the docs matches ${args.queries.map((q) => JSON.stringify(q)).join(", ")}${args.packages?.length ? ` in ${args.packages.join(", ")}` : ""}.\n` };
      const footer = result.omitted ? `\n\n(${result.omitted} more matching section(s) left out to stay within ${args.tokenLimit} tokens.)` : "";
      return { text: `${result.text}${footer}\n` };
    },
  },
  svc_get_component_docs: {
    title: "Documentation of one svc component",
    description: "The doc sections about one function, class, hook, plugin or option (modelRouter, SvcApp, useEntity, adminPlugin...).",
    run: (args: { component: string }, { library, search }) => componentDocs(library, search, args.component),
  },
  svc_generate_model: {
    title: "Generate an svc model",
    description: "A mongoose model in svc's house style: described fields, strict schema, svc schema plugins, optional owner. Returns code; writes nothing.",
    run: (args: GenerateModelArgs) => generateModel(args),
  },
  svc_generate_route: {
    title: "Generate an svc model router",
    description: "A modelRouter (list, create, read, update, delete) with permissions, owner filter, query fields, sort and populate. Returns code.",
    run: (args: GenerateRouteArgs) => generateRoute(args),
  },
  svc_generate_screen: {
    title: "Generate a React screen",
    description: "A React list, detail, form or empty screen over a model's REST routes. Returns code.",
    run: (args: GenerateScreenArgs) => generateScreen(args),
  },
  svc_generate_form_fields: {
    title: "Generate React form fields",
    description: "Controlled, labelled React inputs for a model's form (text, number, boolean, date, select). Returns code.",
    run: (args: GenerateFormFieldsArgs) => generateFormFields(args),
  },
  svc_validate_model_schema: {
    title: "Check a mongoose schema against svc's conventions",
    description: "Analyses schema source with the TypeScript compiler API; reports violations with severity error, warning or info.",
    run: (args: { schemaCode: string }) => ({ text: renderSchemaReport(validateModelSchema(args.schemaCode)) }),
  },
  svc_bootstrap_app: {
    title: "Bootstrap an svc app",
    description: "The files of a new svc back end (package.json, tsconfig, user model, app with auth, .mcp.json). Returns text; writes nothing.",
    run: (args: BootstrapAppArgs) => bootstrapApp(args),
  },
  svc_bootstrap_ai_rules: {
    title: "Rules files for AI assistants",
    description: "AGENTS.md, CLAUDE.md and a Cursor rule with svc's conventions for the chosen packages.",
    run: (args: BootstrapAiRulesArgs) => bootstrapAiRules(args),
  },
  svc_install_admin: {
    title: "Install the svc admin",
    description: "The adminPlugin registration for the given models (modelName, routePath, displayName, listFields, defaultSort), basePath and access control.",
    run: (args: InstallAdminArgs) => installAdmin(args),
  },
  svc_get_upgrade_guide: {
    title: "svc upgrade guides",
    description: "Upgrade notes from docs/upgrades: the list of guides, or one guide by name.",
    run: (args: UpgradeGuideArgs, { library }) => upgradeGuide(library, args),
  },
};

// Compiled once per process; server instances are per request (HTTP) or per connection (stdio).
const INPUTS = Object.fromEntries(Object.entries(TOOL_SCHEMAS).map(([name, schema]) => [name, jsonSchemaInput<Record<string, unknown>>(schema)]));

/** The names of the documentation tools, in listing order. */
export const DOCS_TOOL_NAMES = Object.keys(TOOLS) as DocsToolName[];

/**
 * Registers the 11 documentation tools of SPEC §4.7 on a server. Invalid arguments are answered
 * by the SDK as tool errors (`isError: true`) before a handler runs; a handler's own refusal
 * (an unknown reference, a bad default) is a tool error too.
 *
 * @example
 * registerDocsTools(new McpServer({ name: "svc-mcp", version }), { library, search });
 */
export function registerDocsTools(server: McpServer, context: DocsToolContext): void {
  for (const name of DOCS_TOOL_NAMES) {
    const tool = TOOLS[name] as ToolDefinition<Record<string, unknown>>;
    server.registerTool(name, { title: tool.title, description: tool.description, inputSchema: INPUTS[name], annotations: READ_ONLY }, (args: Record<string, unknown>) =>
      answer(tool.run(args, context)),
    );
  }
}
