// esbuild bundles CSS imported from TypeScript into main.css; the import itself has no value.
declare module "*.css";
