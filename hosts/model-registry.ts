import type { ModelRegistration, ModelRegistry } from "../contracts/model-registry.js";

/**
 * The app's model registry (one per kernel: no module state, so apps in one process never see
 * each other's models).
 *
 * @example
 * kernel.container.bind(MODEL_REGISTRY, { useValue: createModelRegistry() });
 */
export function createModelRegistry(): ModelRegistry {
  const registrations: ModelRegistration[] = [];
  return {
    add(registration) {
      registrations.push(Object.freeze({ ...registration }));
    },
    list: () => [...registrations],
    byModel: (modelName) => registrations.filter((registration) => registration.modelName === modelName),
  };
}
