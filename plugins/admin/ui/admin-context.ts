import { usePermissions } from "ra-core";
import { createContext, useContext } from "react";
import type { ApiClient } from "./api-client";
import type { AdminModel } from "./api-types";
import type { AdminAccess } from "./auth-provider";
import type { AdminSettings } from "./settings";

export const SettingsContext = createContext<AdminSettings>({ basePath: "/admin", signIn: "jwt", appName: "Admin", prefix: "", screenScripts: [] });

export const useSettings = () => useContext(SettingsContext);

/** The signed-in API client, for what goes around ra-core's data provider (the app's own screens). */
export const ApiClientContext = createContext<ApiClient | undefined>(undefined);

export function useApiClient(): ApiClient {
  const api = useContext(ApiClientContext);
  if (!api) throw new Error("useApiClient outside the admin app");
  return api;
}

/** The caller's access (their config, or a refusal); undefined while it loads. */
export function useAdminAccess(): AdminAccess | undefined {
  const { permissions } = usePermissions<AdminAccess | null>();
  return permissions ?? undefined;
}

/** The config of one model, when the caller may see it. */
export function useAdminModel(name: string | undefined): AdminModel | undefined {
  const access = useAdminAccess();
  return access?.kind === "granted" ? access.config.models.find((model) => model.name === name) : undefined;
}
