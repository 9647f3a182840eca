/**
 * The feature-flag plugin's one OpenAPI tag, shared by its admin CRUD (a model router) and its
 * per-user routes, so both declare the same tag with the same description whichever documents first.
 *
 * @example
 * openapi.addTag(FEATURE_FLAGS_TAG);
 * openapi.addOperation("get", "/feature-flags/segments", { tags: [FEATURE_FLAGS_TAG.name], ... });
 */
export const FEATURE_FLAGS_TAG: { readonly name: string; readonly description: string } = Object.freeze({
  name: "feature-flags",
  description: "Feature flags: admin CRUD, segments and each user's flag configuration",
});
