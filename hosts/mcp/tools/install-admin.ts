import { isIdentifier, kebabCase, pascalCase } from "../naming.js";
import { renderFiles } from "../tool-result.js";

export interface AdminModelSpec {
  modelName: string;
  routePath: string;
  displayName: string;
  listFields: string[];
  defaultSort?: string;
}

export interface InstallAdminArgs {
  models: AdminModelSpec[];
  /** Where the admin lives (default `/admin`). */
  basePath: string;
  /** Role-based access (`admin:access` and per-model permissions from the roles collection); default true. */
  accessControl: boolean;
}

const PATH = /^(\/[a-z0-9][a-z0-9._~-]*)+$/;

/**
 * `svc_install_admin`: the `adminPlugin` registration for the given models (the admin web page at
 * `{basePath}/`, admin CRUD, search, bulk operations and `GET {basePath}/config`), plus the steps
 * to enable it.
 *
 * @example
 * installAdmin({ models: [{ modelName: "Book", routePath: "/books", displayName: "Books", listFields: ["title"] }], basePath: "/admin", accessControl: true });
 */
export function installAdmin(args: InstallAdminArgs): { text: string } | { errors: string[] } {
  const errors: string[] = [];
  if (!PATH.test(args.basePath)) errors.push(`basePath "${args.basePath}" must look like /admin`);
  const paths = new Set<string>();
  for (const model of args.models) {
    if (!pascalCase(model.modelName)) errors.push(`modelName "${model.modelName}" is not a model name`);
    if (!PATH.test(model.routePath)) errors.push(`${model.modelName}: routePath "${model.routePath}" must look like /books`);
    if (paths.has(model.routePath)) errors.push(`${model.modelName}: routePath ${model.routePath} is used twice`);
    paths.add(model.routePath);
    for (const field of model.listFields) if (!isIdentifier(field)) errors.push(`${model.modelName}: list field "${field}" is not a field name`);
    if (model.defaultSort !== undefined && !/^-?[A-Za-z_][A-Za-z0-9_.]*$/.test(model.defaultSort)) errors.push(`${model.modelName}: defaultSort "${model.defaultSort}" must look like -created`);
  }
  if (errors.length) return { errors };
  const names = [...new Set(args.models.map((model) => pascalCase(model.modelName)))];
  const entries = args.models.map((model) => {
    const parts = [
      `model: ${pascalCase(model.modelName)}`,
      `routePath: ${JSON.stringify(model.routePath)}`,
      `displayName: ${JSON.stringify(model.displayName)}`,
      `listFields: ${JSON.stringify(model.listFields)}`,
      ...(model.defaultSort ? [`defaultSort: ${JSON.stringify(model.defaultSort)}`] : []),
    ];
    return `      { ${parts.join(", ")} },`;
  });
  const content = `// The admin: its web page at ${args.basePath}/, and CRUD, search and bulk operations under ${args.basePath}.
import { adminPlugin } from "svc/admin";
${names.map((name) => `import { ${name} } from "./models/${kebabCase(name)}.js";`).join("\n")}

/**
 * The admin plugin for ${names.join(", ")}. ${args.accessControl ? "Callers need the admin:access permission (from their roles); admins (admin: true) have every permission." : "Without accessControl only admins (admin: true) get in."}
 *
 * @example
 * app.register(svcAdmin());
 */
export function svcAdmin() {
  return adminPlugin({
    basePath: ${JSON.stringify(args.basePath)},
    models: [
${entries.join("\n")}
    ],${args.accessControl ? "\n    accessControl: {}," : ""}
  });
}
`;
  const notes = [
    "Register it after the auth plugin: `app.register(authPlugin({ userModel: User })).register(svcAdmin())`.",
    "Create the first admin with the `create-admin` command from `svc/commands`, run by your own manage.ts (docs: auth).",
    `Try it: open ${args.basePath}/ in a browser and sign in as an admin (\`GET ${args.basePath}/config\` with an admin's token lists the models and their fields).`,
  ];
  return { text: renderFiles([{ path: "src/admin.ts", language: "ts", content }], notes.join("\n")) };
}
