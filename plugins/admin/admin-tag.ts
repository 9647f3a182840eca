/** The admin's one OpenAPI tag, declared once. */
export const ADMIN_TAG = Object.freeze({ name: "admin", description: "The admin: model records, its configuration and platform tools" });
