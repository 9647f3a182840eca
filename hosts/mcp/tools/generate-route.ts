import { camelCase, isIdentifier, kebabCase, pascalCase } from "../naming.js";
import { renderFiles } from "../tool-result.js";

/** The permission levels `svc_generate_route` accepts per method (SPEC §4.7). */
export const PERMISSION_LEVELS = ["any", "authenticated", "admin", "owner"] as const;
export type PermissionLevel = (typeof PERMISSION_LEVELS)[number];
export const ROUTE_METHODS = ["list", "create", "read", "update", "delete"] as const;
type RouteMethod = (typeof ROUTE_METHODS)[number];

export interface GenerateRouteArgs {
  modelName: string;
  routePath: string;
  permissions?: Partial<Record<RouteMethod, PermissionLevel>>;
  queryFields?: string[];
  ownerFiltered: boolean;
  sort?: string;
  populate?: { path: string; fields?: string[] }[];
}

const CHECKS: Record<PermissionLevel, string> = {
  any: "Permissions.IsAny",
  authenticated: "Permissions.IsAuthenticated",
  admin: "Permissions.IsAdmin",
  owner: "Permissions.IsOwner",
};

const PATH = /^(\/[a-z0-9][a-z0-9._~-]*)+$/;
const SORT = /^-?[A-Za-z_][A-Za-z0-9_.]*(,-?[A-Za-z_][A-Za-z0-9_.]*)*$/;

/** Where a generated route lives in the project. */
export const routeFile = (routePath: string): string => `src/routes/${kebabCase(routePath.replaceAll("/", " ")) || "root"}.ts`;

/**
 * `svc_generate_route`: a `modelRouter` for a model made by `svc_generate_model`. Unset methods
 * default to signed-in users, and with `ownerFiltered` to the record's owner for read, update and
 * delete (every list and read then also goes through `OwnerQueryFilter`). Returns the file as
 * text, or the list of problems with the arguments.
 *
 * @example
 * generateRoute({ modelName: "Book", routePath: "/books", ownerFiltered: true, queryFields: ["title"] });
 */
export function generateRoute(args: GenerateRouteArgs): { text: string } | { errors: string[] } {
  const errors: string[] = [];
  const model = pascalCase(args.modelName);
  if (!model || !/^[A-Za-z]/.test(model)) errors.push(`modelName "${args.modelName}" is not a model name`);
  if (!PATH.test(args.routePath)) errors.push(`routePath "${args.routePath}" must look like /books or /library/books (lower case, no parameters)`);
  for (const field of args.queryFields ?? []) if (!isIdentifier(field)) errors.push(`queryFields: "${field}" is not a field name`);
  if (args.sort !== undefined && !SORT.test(args.sort)) errors.push(`sort "${args.sort}" must look like -created,title`);
  for (const populate of args.populate ?? []) {
    if (!isIdentifier(populate.path)) errors.push(`populate: "${populate.path}" is not a field name`);
    for (const field of populate.fields ?? []) if (!isIdentifier(field)) errors.push(`populate ${populate.path}: "${field}" is not a field name`);
  }
  if (errors.length) return { errors };

  const permissions = ROUTE_METHODS.map((method) => {
    const level = args.permissions?.[method] ?? (args.ownerFiltered && method !== "list" && method !== "create" ? "owner" : "authenticated");
    return `      ${method}: [${CHECKS[level]}],`;
  });
  const usesOwner = args.ownerFiltered || Object.values(args.permissions ?? {}).includes("owner");
  const options = [`    permissions: {\n${permissions.join("\n")}\n    },`];
  if (args.ownerFiltered) options.push("    // Each caller reaches only their own records; another user's answer 404.\n    queryFilter: OwnerQueryFilter,");
  if (args.queryFields?.length) options.push(`    queryFields: ${JSON.stringify(args.queryFields)},`);
  if (args.sort) options.push(`    sort: ${JSON.stringify(args.sort)},`);
  if (args.populate?.length) {
    // svc requires the populated fields to be listed, so a populate never leaks a whole record.
    const paths = args.populate.map((p) => `{ path: ${JSON.stringify(p.path)}, fields: ${JSON.stringify(p.fields ?? [])} }`);
    options.push(`    populatePaths: [${paths.join(", ")}],`);
  }
  const imports = ["modelRouter", ...(args.ownerFiltered ? ["OwnerQueryFilter"] : []), "Permissions"];
  const fn = `${camelCase(model)}Router`;
  const content = `// ${args.routePath}: list, create, read, update and delete ${model} records.
import { ${imports.join(", ")} } from "svc";
import { ${model} } from "../models/${kebabCase(model)}.js";

/**
 * \`${args.routePath}\`: the ${model} REST routes (GET list and one, POST, PATCH, DELETE), validated
 * against the model's schema and documented in /openapi.json.
 *
 * @example
 * app.register(${fn}());
 */
export function ${fn}() {
  return modelRouter(${JSON.stringify(args.routePath)}, ${model}, {
${options.join("\n")}
  });
}
`;
  const notes = [
    `Register it: \`new SvcApp()${usesOwner ? ".register(authPlugin({ userModel: User }))" : ""}.register(${fn}())\`.`,
    ...(usesOwner ? ["Owner checks compare the record's `ownerId` with the signed-in user: generate the model with `hasOwner: true`."] : []),
  ];
  return { text: renderFiles([{ path: routeFile(args.routePath), language: "ts", content }], notes.join("\n")) };
}
