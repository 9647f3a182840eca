import { readFile } from "node:fs/promises";
import path from "node:path";
import { fromJsonSchema, type McpServer } from "@modelcontextprotocol/server";
import type { AppDescription } from "./describe-app.js";
import { callDevRoute, requireDevServer } from "./dev-channel.js";
import { toolAnswer, type RuntimeToolOptions } from "./tool-result.js";

const SECTIONS = ["package", "plugins", "models", "routes"] as const;
type Section = (typeof SECTIONS)[number];

/**
 * `application_info`: the project's package (name, version, svc version) from `package.json`, and
 * from the running development server its plugins, models (collection, fields) and routes.
 *
 * @example
 * registerApplicationInfoTool(server, { cwd: process.cwd(), env: process.env });
 */
export function registerApplicationInfoTool(server: McpServer, options: RuntimeToolOptions): void {
  server.registerTool(
    "application_info",
    {
      description:
        "Describe the svc app of this project: package name and version, plugins (start order), models (path, collection, fields) " +
        "and routes (from its OpenAPI document). Reads the running development server (`npm start`).",
      inputSchema: fromJsonSchema<{ sections?: Section[] }>({
        type: "object",
        properties: {
          sections: {
            type: "array",
            items: { enum: [...SECTIONS] },
            uniqueItems: true,
            description: "Which parts to answer (default all): package, plugins, models, routes.",
          },
        },
        additionalProperties: false,
      }),
      annotations: { readOnlyHint: true },
    },
    (args) =>
      toolAnswer(async () => {
        const wanted = new Set<Section>(args.sections?.length ? args.sections : SECTIONS);
        const devServer = await requireDevServer(options.cwd);
        const app = await callDevRoute<AppDescription>(devServer, "/info");
        return {
          ...(wanted.has("package") ? { package: await readPackage(options.cwd) } : {}),
          server: { url: devServer.url, pid: devServer.pid, nodeEnv: app.nodeEnv, title: app.title, version: app.version },
          ...(wanted.has("plugins") ? { plugins: app.plugins } : {}),
          ...(wanted.has("models") ? { models: app.models } : {}),
          ...(wanted.has("routes") ? { routes: app.routes } : {}),
        };
      }),
  );
}

async function readPackage(cwd: string): Promise<Record<string, unknown> | null> {
  try {
    const manifest = JSON.parse(await readFile(path.join(cwd, "package.json"), "utf8")) as Record<string, unknown>;
    const dependencies = { ...(manifest.devDependencies as object), ...(manifest.dependencies as object) } as Record<string, string>;
    return { name: manifest.name, version: manifest.version, description: manifest.description, svc: manifest.name === "svc" ? manifest.version : dependencies.svc };
  } catch {
    return null;
  }
}
