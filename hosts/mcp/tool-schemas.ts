import type { JsonSchemaType } from "@modelcontextprotocol/server";
import { SVC_PACKAGES } from "./docs-library.js";
import { DEFAULT_TOKEN_LIMIT } from "./docs-search.js";
import { FORM_FIELD_TYPES } from "./tools/generate-form-fields.js";
import { MODEL_FIELD_TYPES } from "./tools/generate-model.js";
import { PERMISSION_LEVELS } from "./tools/generate-route.js";
import { SCREEN_TYPES } from "./tools/generate-screen.js";

// The input schemas of the 11 documentation tools (SPEC §4.7): exactly those parameters and
// defaults, every parameter described, nothing else accepted.

const text = (description: string, extra: Record<string, unknown> = {}) => ({ type: "string", description, ...extra });
const texts = (description: string, extra: Record<string, unknown> = {}) => ({ type: "array", items: { type: "string", minLength: 1 }, description, ...extra });
const flag = (description: string, value: boolean) => ({ type: "boolean", description, default: value });
const object = (properties: Record<string, unknown>, required: string[] = []): JsonSchemaType =>
  ({ type: "object", properties, required, additionalProperties: false }) as JsonSchemaType;

const permission = { type: "string", enum: [...PERMISSION_LEVELS] };

export const TOOL_SCHEMAS = {
  svc_search_docs: object(
    {
      queries: texts("What to look for, one query per topic (e.g. [\"modelRouter permissions\", \"owner query filter\"])", { minItems: 1, maxItems: 10 }),
      packages: texts(`Only documentation of these packages: ${SVC_PACKAGES.join(", ")}`),
      tokenLimit: { type: "integer", minimum: 50, maximum: 50000, default: DEFAULT_TOKEN_LIMIT, description: "Most tokens the answer may hold (o200k tokenizer)" },
    },
    ["queries"],
  ),
  svc_get_component_docs: object({ component: text("A function, class, hook, plugin or option of svc: modelRouter, SvcApp, useEntity, adminPlugin, queryFilter...", { minLength: 1, maxLength: 200 }) }, ["component"]),
  svc_generate_model: object(
    {
      name: text("The model name, e.g. Book or book-loan", { minLength: 1, maxLength: 80 }),
      fields: {
        type: "array",
        maxItems: 100,
        description: "The model's fields",
        items: object(
          {
            name: text("Field name (an identifier)", { minLength: 1 }),
            type: { type: "string", enum: [...MODEL_FIELD_TYPES], description: "Field type" },
            required: { type: "boolean", description: "Whether the field is required" },
            default: text("Default value as text: \"draft\", \"0\", \"true\", \"now\" or an ISO date"),
            ref: text("For ObjectId fields: the referenced model's name"),
            description: text("What the field means (flows into OpenAPI and the admin)"),
          },
          ["name", "type"],
        ),
      },
      hasOwner: flag("Records belong to a user: adds an indexed ownerId", false),
      softDelete: flag("Deletes mark records deleted instead of removing them (isDeletedPlugin)", false),
      timestamps: flag("created/updated timestamps (createdUpdatedPlugin)", true),
    },
    ["name", "fields"],
  ),
  svc_generate_route: object(
    {
      modelName: text("The model the route serves", { minLength: 1 }),
      routePath: text("Where it is mounted, e.g. /books", { minLength: 1 }),
      permissions: {
        ...object({ create: permission, list: permission, read: permission, update: permission, delete: permission }),
        description: "Who may call each method: any, authenticated, admin or owner (unset: authenticated; owner for read/update/delete when ownerFiltered)",
      },
      queryFields: texts("Fields clients may filter lists on"),
      ownerFiltered: flag("Each caller reaches only their own records (OwnerQueryFilter)", false),
      sort: text("Default list order, e.g. -created,title"),
      populate: {
        type: "array",
        description: "References populated in responses",
        items: object({ path: text("The reference field", { minLength: 1 }), fields: texts("Fields of the referenced record to include (_id always)") }, ["path"]),
      },
    },
    ["modelName", "routePath"],
  ),
  svc_generate_screen: object(
    {
      name: text("Component name, e.g. BookList", { minLength: 1 }),
      type: { type: "string", enum: [...SCREEN_TYPES], description: "list, detail, form or empty" },
      modelName: text("The model shown (needed except for empty screens)"),
      fields: texts("Fields shown or edited"),
      hasSearch: flag("A search box (?search=, needs the router's searchFields)", false),
      hasPagination: flag("Previous/next pages", false),
    },
    ["name", "type"],
  ),
  svc_generate_form_fields: object(
    {
      modelName: text("The model the form edits", { minLength: 1 }),
      fields: {
        type: "array",
        minItems: 1,
        description: "The inputs",
        items: object(
          {
            name: text("Field name", { minLength: 1 }),
            type: { type: "string", enum: [...FORM_FIELD_TYPES], description: "Input kind" },
            required: { type: "boolean", description: "Whether the input is required" },
            options: texts("The choices of a select"),
          },
          ["name", "type"],
        ),
      },
    },
    ["modelName", "fields"],
  ),
  svc_validate_model_schema: object({ schemaCode: text("TypeScript or JavaScript source declaring one or more mongoose schemas", { minLength: 1, maxLength: 200000 }) }, ["schemaCode"]),
  svc_bootstrap_app: object(
    {
      appName: text("kebab-case package name, e.g. book-club", { minLength: 1, maxLength: 100 }),
      appDisplayName: text("Human name, e.g. Book Club", { minLength: 1 }),
      description: text("One sentence about the app"),
      mcpServerUrl: text("URL of a deployed svc-mcp server, written into .mcp.json"),
    },
    ["appName", "appDisplayName"],
  ),
  svc_bootstrap_ai_rules: object(
    {
      appName: text("kebab-case app name", { minLength: 1 }),
      appDisplayName: text("Human name", { minLength: 1 }),
      description: text("One sentence about the app"),
      packages: texts("svc packages the app uses (svc/sync, svc/admin, ...); svc itself is always included"),
    },
    ["appName", "appDisplayName"],
  ),
  svc_install_admin: object(
    {
      models: {
        type: "array",
        minItems: 1,
        description: "The models the admin manages",
        items: object(
          {
            modelName: text("The model", { minLength: 1 }),
            routePath: text("Its path under the admin, e.g. /books", { minLength: 1 }),
            displayName: text("Its name in the admin UI", { minLength: 1 }),
            listFields: texts("Columns of its list", { minItems: 1 }),
            defaultSort: text("Default order, e.g. -created"),
          },
          ["modelName", "routePath", "displayName", "listFields"],
        ),
      },
      basePath: text("Where the admin is mounted", { default: "/admin" }),
      accessControl: flag("Role-based access (admin:access and per-model permissions)", true),
    },
    ["models"],
  ),
  svc_get_upgrade_guide: object({ guide: text("A guide's name or words of its title; leave out for the list of guides") }),
} satisfies Record<string, JsonSchemaType>;

export type DocsToolName = keyof typeof TOOL_SCHEMAS;
