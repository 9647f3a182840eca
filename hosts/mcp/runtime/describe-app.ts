import type { ModelRegistry } from "../../../contracts/model-registry.js";
import type { SvcKernel } from "../../../kernel/kernel.js";

/** What `GET /__svc/dev/info` answers about a started app. */
export interface AppDescription {
  readonly title: string;
  readonly version: string;
  readonly nodeEnv: string;
  /** Plugin names in start order. */
  readonly plugins: readonly string[];
  readonly models: ReadonlyArray<{
    readonly modelName: string;
    readonly path: string;
    readonly collection: string;
    readonly ownerField: string;
    readonly fields: ReadonlyArray<{ readonly name: string; readonly type: string; readonly required: boolean }>;
    readonly mcp: boolean;
    readonly sync: boolean;
    readonly admin: boolean;
  }>;
  /** Every documented operation. */
  readonly routes: ReadonlyArray<{ readonly method: string; readonly path: string; readonly operationId?: string; readonly summary?: string }>;
}

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

/**
 * Describes a started app from its kernel: plugins, the models its routers serve (with their
 * schema paths) and the routes its OpenAPI document lists.
 *
 * @example
 * describeApp(app.kernel, app.kernel.container.tryResolve(MODEL_REGISTRY)).routes;
 */
export function describeApp(kernel: SvcKernel, registry: ModelRegistry | undefined): AppDescription {
  const document = kernel.openapi.document();
  const routes: Array<AppDescription["routes"][number]> = [];
  for (const [route, item] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation) routes.push({ method: method.toUpperCase(), path: route, operationId: operation.operationId, summary: operation.summary });
    }
  }
  return {
    title: document.info.title,
    version: document.info.version,
    nodeEnv: kernel.config.nodeEnv,
    plugins: kernel.startOrder,
    models: (registry?.list() ?? []).map((entry) => ({
      modelName: entry.modelName,
      path: entry.path,
      collection: entry.model.db.model(entry.modelName).collection.collectionName,
      ownerField: entry.ownerField,
      fields: Object.entries(entry.model.schema.paths).map(([name, type]) => ({
        name,
        type: type.instance,
        required: Boolean(type.isRequired),
      })),
      mcp: entry.mcp !== undefined,
      sync: entry.sync !== undefined,
      admin: entry.admin !== undefined,
    })),
    routes,
  };
}
