import { renderFiles, type GeneratedFile } from "../tool-result.js";

export interface BootstrapAppArgs {
  appName: string;
  appDisplayName: string;
  description?: string;
  mcpServerUrl?: string;
}

/** kebab-case, as npm package names and folders want it. */
export const KEBAB_NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

/**
 * What JWT auth (`authPlugin`'s default) needs set outside development, where nothing fills them
 * in (plugins/auth/auth-environment.ts): the three secrets, distinct and in production at least
 * 32 characters, and the tokens' issuer.
 */
export const JWT_PRODUCTION_VARIABLES = ["TOKEN_SECRET", "REFRESH_TOKEN_SECRET", "SESSION_SECRET", "TOKEN_ISSUER"] as const;

/**
 * `svc_bootstrap_app`: the files of a new svc back end — package.json, a strict tsconfig, a user
 * model with `baseUserPlugin`, an app with JWT auth, the entry point, an `.env.example`, a README,
 * and `.mcp.json` wiring `svc-mcp-local` (and the HTTP docs server when `mcpServerUrl` is given)
 * into MCP-aware editors. Text only: the caller writes the files.
 *
 * @example
 * bootstrapApp({ appName: "book-club", appDisplayName: "Book Club" });
 */
export function bootstrapApp(args: BootstrapAppArgs): { text: string } | { errors: string[] } {
  const errors: string[] = [];
  if (!KEBAB_NAME.test(args.appName)) errors.push(`appName "${args.appName}" must be kebab-case (e.g. "book-club")`);
  if (!args.appDisplayName.trim()) errors.push("appDisplayName must not be empty");
  if (args.mcpServerUrl !== undefined && !URL.canParse(args.mcpServerUrl)) errors.push(`mcpServerUrl "${args.mcpServerUrl}" is not a URL`);
  if (errors.length) return { errors };
  const description = args.description?.trim() || `${args.appDisplayName}: an svc back end.`;
  const mcpServers: Record<string, unknown> = { "svc-local": { command: "npx", args: ["svc-mcp-local"] } };
  if (args.mcpServerUrl) mcpServers["svc-docs"] = { type: "http", url: args.mcpServerUrl };
  const files: GeneratedFile[] = [
    {
      path: "package.json",
      language: "json",
      content: JSON.stringify(
        {
          name: args.appName,
          version: "0.1.0",
          description,
          private: true,
          type: "module",
          engines: { node: ">=20.19" },
          scripts: { start: "tsx src/main.ts", typecheck: "tsc --noEmit" },
          dependencies: { svc: "*", mongoose: "^9" },
          devDependencies: { "@types/node": "^20", tsx: "^4", typescript: "^5.9" },
        },
        null,
        2,
      ),
    },
    {
      path: "tsconfig.json",
      language: "json",
      content: JSON.stringify(
        { compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true, skipLibCheck: true, types: ["node"], jsx: "react-jsx" }, include: ["src"] },
        null,
        2,
      ),
    },
    {
      path: "src/models/user.ts",
      language: "ts",
      content: `// The app's users: baseUserPlugin adds email, password hash, admin and disabled flags.
import mongoose from "mongoose";
import { baseUserPlugin, createdUpdatedPlugin } from "svc";

const userSchema = new mongoose.Schema(
  { name: { type: String, trim: true, maxlength: 100, description: "The name the user goes by" } },
  { strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } },
);
userSchema.plugin(baseUserPlugin);
userSchema.plugin(createdUpdatedPlugin);

export const User = mongoose.model("User", userSchema);
`,
    },
    {
      path: "src/app.ts",
      language: "ts",
      content: `// ${args.appDisplayName}: the app, assembled. Register each model's router here.
import { SvcApp, authPlugin } from "svc";
import { User } from "./models/user.js";

/**
 * The app, not started: main.ts starts it, tests build their own.
 *
 * @example
 * const running = await createApp().start();
 */
export function createApp(): SvcApp {
  return new SvcApp()
    // POST /auth/signup, /auth/login, /auth/refresh_token, /auth/logout, /auth/change_password; GET and PATCH /auth/me.
    .register(authPlugin({ userModel: User }));
}
`,
    },
    {
      path: "src/main.ts",
      language: "ts",
      content: `// Starts ${args.appDisplayName} on PORT (3000). Without DB_URI, outside production, svc runs its
// embedded database in .svc/data.
import { createApp } from "./app.js";

await createApp().start();
`,
    },
    {
      path: ".env.example",
      language: "sh",
      content: `# Copy to .env. In development (NODE_ENV unset or development) the rest may stay unset:
# svc runs an embedded database in .svc/data and keeps generated auth secrets in .svc/secrets.json.
# In production (NODE_ENV=production) set DB_URI and all four auth variables: three different
# secrets of at least 32 characters each (openssl rand -base64 48) and the tokens' issuer.
PORT=3000
# NODE_ENV=production
# DB_URI=mongodb://localhost:27017/${args.appName}?replicaSet=rs0
${JWT_PRODUCTION_VARIABLES.map((name) => `# ${name}=${name === "TOKEN_ISSUER" ? args.appName : ""}`).join("\n")}
`,
    },
    { path: ".mcp.json", language: "json", content: JSON.stringify({ mcpServers }, null, 2) },
    {
      path: "README.md",
      language: "md",
      content: `# ${args.appDisplayName}

${description}

\`\`\`sh
npm install
npm start        # http://localhost:3000, OpenAPI at /openapi.json
\`\`\`

Built with svc: models in \`src/models/\`, routers registered in \`src/app.ts\`.
`,
    },
    { path: ".gitignore", language: "gitignore", content: "node_modules/\n.svc/\n.env\n" },
  ];
  return { text: renderFiles(files, "Then: `npm install`, `npm start`; add models with `svc_generate_model` and routes with `svc_generate_route`.") };
}
