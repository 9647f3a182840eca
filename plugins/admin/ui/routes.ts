/** Where the tools live in the UI's (hash) routes; resources are model names, capitalised, so no clash. */
export const TOOL_ROUTES = {
  scripts: "/tools/scripts",
  task: "/tools/tasks",
  roles: "/tools/roles",
  version: "/tools/version",
  configuration: "/tools/configuration",
  screens: "/screens",
  password: "/account/password",
} as const;
