import type { GetPromptResult, JsonSchemaType, McpServer } from "@modelcontextprotocol/server";
import type { DocsLibrary } from "./docs-library.js";
import { jsonSchemaInput } from "./json-schema-input.js";
import { JWT_PRODUCTION_VARIABLES } from "./tools/bootstrap-app.js";
import { MODEL_FIELD_TYPES } from "./tools/generate-model.js";

// The 8 workflow prompts of SPEC §4.7. Prompt arguments are strings on the wire; choices are
// enforced with enums/patterns so a typo is refused instead of producing a wrong plan.

/** The longest argument value: names, paths and field lists, never documents (a prompt echoes its arguments). */
const MAX_ARGUMENT_LENGTH = 1000;
const arg = (description: string, extra: Record<string, unknown> = {}) => ({ type: "string", maxLength: MAX_ARGUMENT_LENGTH, description, ...extra });
// prompts/list carries only an argument's description, never its schema: the choices are written into it.
const choice = (description: string, values: readonly string[], byDefault?: string) =>
  arg(`${description}: ${values.join(", ")}${byDefault ? ` (default ${byDefault})` : ""}`, { enum: values });
const args = (properties: Record<string, unknown>, required: string[]): JsonSchemaType => ({ type: "object", properties, required }) as JsonSchemaType;
const YES_NO = ["yes", "no"];
const STRATEGY = "(email|github|google)";

interface PromptDefinition {
  readonly title: string;
  readonly description: string;
  readonly schema?: JsonSchemaType;
  readonly text: (values: Record<string, string | undefined>, library: DocsLibrary) => string;
}

const PROMPTS: Record<string, PromptDefinition> = {
  svc_bootstrap: {
    title: "Start a new svc app",
    description: "Creates a new svc back end with auth, AI rules and MCP wiring.",
    schema: args({ appName: arg("kebab-case name, e.g. book-club", { pattern: "^[a-z][a-z0-9]*(-[a-z0-9]+)*$" }), appDisplayName: arg("Human name, e.g. Book Club") }, ["appName", "appDisplayName"]),
    text: (v) => `Create a new svc app named "${v.appDisplayName}" (package ${v.appName}).

1. Call svc_bootstrap_app with {"appName": ${JSON.stringify(v.appName)}, "appDisplayName": ${JSON.stringify(v.appDisplayName)}} and write the files it returns.
2. Call svc_bootstrap_ai_rules with the same names and write AGENTS.md, CLAUDE.md and the Cursor rule.
3. Run \`npm install\` and \`npm start\`; check http://localhost:3000/openapi.json answers.
4. Read svc://docs/overview and svc://docs/patterns before adding features.`,
  },
  svc_create_crud_feature: {
    title: "Add a CRUD feature",
    description: "A model, its REST router and screens, end to end.",
    schema: args(
      {
        name: arg("The model name, e.g. Book"),
        fields: arg(`Comma-separated name:type pairs; types ${MODEL_FIELD_TYPES.join(", ")} (e.g. title:String,pages:Number)`, { pattern: `^\\s*[A-Za-z_$][\\w$]*\\s*:\\s*(${MODEL_FIELD_TYPES.join("|")})\\s*(,\\s*[A-Za-z_$][\\w$]*\\s*:\\s*(${MODEL_FIELD_TYPES.join("|")})\\s*)*$` }),
        hasOwner: choice("Whether records belong to the signed-in user", YES_NO, "no"),
      },
      ["name", "fields"],
    ),
    text: (v) => {
      const owner = v.hasOwner === "yes";
      const fields = v.fields!.split(",").map((pair) => {
        const [name, type] = pair.split(":").map((part) => part.trim());
        return { name, type, description: "<what it means>" };
      });
      return `Add a "${v.name}" feature to this svc app.

1. Call svc_generate_model with ${JSON.stringify({ name: v.name, fields, hasOwner: owner })} — replace each "<what it means>" with a real description first.
2. Check the result with svc_validate_model_schema; fix every error.
3. Call svc_generate_route with {"modelName": ${JSON.stringify(v.name)}, "routePath": "/<plural, kebab-case>"${owner ? ', "ownerFiltered": true' : ""}} and register the router in src/app.ts.
4. Call svc_generate_screen for a list and a form screen if the app has a UI.
5. Write a test with svc/testing: create, list, read, update and delete through HTTP${owner ? ", and check another user gets 404 on this user's record" : ""}.`;
    },
  },
  svc_create_api_endpoint: {
    title: "Add a custom endpoint",
    description: "A hand-written route validated and documented like the generated ones.",
    schema: args({ path: arg("The path, e.g. /books/:id/borrow", { pattern: "^/" }), method: choice("HTTP method", ["get", "post", "patch", "delete"]), description: arg("What the endpoint does") }, ["path", "method"]),
    text: (v) => `Add \`${v.method!.toUpperCase()} ${v.path}\`${v.description ? `: ${v.description}` : ""}.

1. Search the docs: svc_search_docs {"queries": ["custom route plugin HTTP_ROUTER", "validateRequestBody", "openapi registry"]}.
2. Write a small plugin whose start(ctx) mounts the route on ctx.resolve(HTTP_ROUTER); ${v.method === "get" || v.method === "delete" ? "validate query parameters with validateQueryParams" : "validate the body with validateRequestBody(schema) (or validateModelRequestBody(Model))"}.
3. Require a user where needed (requireUser) and answer errors from a defineErrors catalogue, never a bare 500.
4. Document the operation in ctx.openapi so it appears in /openapi.json.
5. Test it over HTTP: success, 400 on bad input, 401/403 for the wrong caller.`,
  },
  svc_create_ui_component: {
    title: "Add a React component",
    description: "A React component following svc's UI guidance.",
    schema: args({ name: arg("Component name, e.g. BookCard"), type: choice("Kind of component", ["display", "interactive", "form", "layout"]), description: arg("What it shows or does") }, ["name", "type"]),
    text: (v) => `Write the React component ${v.name} (${v.type})${v.description ? `: ${v.description}` : ""}.

1. Read svc://docs/ui (React bindings, admin UI) and svc://docs/rtk (data of non-synced routes).
2. ${v.type === "form" ? "Generate its inputs with svc_generate_form_fields, then wire submit to the model's REST route." : v.type === "layout" ? "Start from svc_generate_screen with type empty." : v.type === "interactive" ? "Keep state local; send changes through useMutate for synced data or the REST route otherwise." : "Take data through props; read synced data with useEntity/useQuery only in the parent screen."}
3. Accessible by default: labels on inputs, buttons for actions, role="alert" for errors.
4. Test it with @testing-library/react.`,
  },
  svc_create_form_screen: {
    title: "Add a form screen",
    description: "A create/edit screen for a model.",
    schema: args({ name: arg("Screen name, e.g. BookForm"), modelName: arg("The model it edits"), fields: arg("Comma-separated field names") }, ["name", "modelName", "fields"]),
    text: (v) => {
      const fields = v.fields!.split(",").map((field) => field.trim()).filter(Boolean);
      return `Build the form screen ${v.name} for ${v.modelName}.

1. Call svc_generate_screen with ${JSON.stringify({ name: v.name, type: "form", modelName: v.modelName, fields })}.
2. Call svc_generate_form_fields with {"modelName": ${JSON.stringify(v.modelName)}, "fields": [...]} giving each of ${fields.join(", ")} its input type, and use the component inside the form.
3. Show the API's validation errors (400 {errors: [...]}) next to the form.`;
    },
  },
  svc_add_authentication: {
    title: "Add authentication",
    description: "JWT email/password and social logins with the auth plugin.",
    schema: args(
      {
        strategies: arg("Comma-separated: email, github, google (default email)", { pattern: `^\\s*${STRATEGY}\\s*(,\\s*${STRATEGY}\\s*)*$` }),
        includeRefreshToken: choice("Whether clients get refresh tokens", YES_NO, "yes"),
      },
      [],
    ),
    text: (v) => {
      const strategies = [...new Set((v.strategies ?? "email").split(",").map((s) => s.trim()))];
      const refresh = v.includeRefreshToken !== "no";
      return `Add authentication (${strategies.join(", ")}) to this svc app.

1. Read the auth docs: svc_search_docs {"queries": ["authPlugin userModel", ${strategies.filter((s) => s !== "email").map((s) => JSON.stringify(`${s} OAuth login`)).join(", ")}${strategies.some((s) => s !== "email") ? ", " : ""}"TOKEN_SECRET REFRESH_TOKEN_SECRET"]}.
2. Give the user model baseUserPlugin and register authPlugin({ userModel: User }).
${strategies.includes("email") ? "3. Email/password: POST /auth/signup and /auth/login return {data: {token, refreshToken, userId}}.\n" : ""}${strategies.filter((s) => s !== "email").map((s) => `- ${s}: ${s === "google" ? "Google sign-in is session auth's (authPlugin sessionAuth with googleOAuth; JWT mode signs in with GitHub only): " : ""}configure its OAuth client id/secret as the auth docs say; test the callback with a nock-intercepted provider.`).join("\n")}
${refresh ? "- Clients rotate tokens with POST /auth/refresh_token {refreshToken} (access 15m, refresh 30d by default)." : "- Do not use refresh tokens: clients sign in again when the 15-minute access token expires."}
- In production set ${JWT_PRODUCTION_VARIABLES.join(", ")} (development fills them in); the three secrets must differ and be at least 32 characters.`;
    },
  },
  svc_migrate_to_svc_app: {
    title: "Migrate setupServer to SvcApp",
    description: "Moves a legacy setupServer app to the SvcApp builder.",
    schema: args({ serverFile: arg("The file that calls setupServer (default: find it)") }, []),
    text: (v) => `Migrate ${v.serverFile ? `\`${v.serverFile}\`` : "the file that calls setupServer"} from setupServer to SvcApp.

1. Read the guide: svc_get_upgrade_guide {"guide": "setup-server-to-svc-app"}.
2. Turn each modelRouter(Model, options) inside addRoutes into app.register(modelRouter(path, Model, options)).
3. Replace transformer/responseSerializer with responseHandler(doc, method) (svc_get_upgrade_guide {"guide": "response-handler"}).
4. Keep the middleware order: the SvcApp stack is the same as setupServer's.
5. Run the tests before and after; the HTTP answers must not change.`,
  },
  svc_style_guide: {
    title: "svc style guide",
    description: "The conventions of svc code, to follow in every change.",
    text: (_v, library) => `Follow these conventions in every change to this svc app.\n\n${library.resources.patterns}`,
  },
};

/** The prompt names, in listing order. */
export const PROMPT_NAMES = Object.keys(PROMPTS);

const INPUTS = Object.fromEntries(Object.entries(PROMPTS).flatMap(([name, prompt]) => (prompt.schema ? [[name, jsonSchemaInput<Record<string, string>>(prompt.schema)]] : [])));

/**
 * Registers the 8 workflow prompts: each answers one user message naming the tools and
 * resources to use, with the arguments filled in.
 *
 * @example
 * registerPrompts(server, library);
 */
export function registerPrompts(server: McpServer, library: DocsLibrary): void {
  for (const [name, prompt] of Object.entries(PROMPTS)) {
    const build = (values: Record<string, string | undefined>): GetPromptResult => ({
      description: prompt.description,
      messages: [{ role: "user", content: { type: "text", text: prompt.text(values, library) } }],
    });
    const input = INPUTS[name];
    if (input) server.registerPrompt(name, { title: prompt.title, description: prompt.description, argsSchema: input }, (values: Record<string, string>) => build(values));
    else server.registerPrompt(name, { title: prompt.title, description: prompt.description }, () => build({}));
  }
}
