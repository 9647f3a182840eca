import type { AdminModel } from "./api-types";

/**
 * The models of the caller's config, by resource name (the model's name), for the data provider:
 * it is built before the config is fetched, and maps a resource to its `routePath` on each call.
 */
export class ModelRegistry {
  private models = new Map<string, AdminModel>();

  set(models: readonly AdminModel[]): void {
    this.models = new Map(models.map((model) => [model.name, model]));
  }

  get(resource: string): AdminModel {
    const model = this.models.get(resource);
    if (!model) throw new Error(`No admin model named ${resource}`);
    return model;
  }
}
