import type { AuthProvider } from "ra-core";
import { ApiError, type ApiClient } from "./api-client";
import type { AdminConfig } from "./api-types";

/**
 * What `getPermissions` resolves to: the caller's admin config, or a refusal. A 403 on the config
 * is an answer, not an error: the account is signed in but may not open the admin, and throwing
 * would sign it out and send it back to the sign-in page, where signing in again loops.
 */
export type AdminAccess = { readonly kind: "granted"; readonly config: AdminConfig } | { readonly kind: "denied"; readonly message: string };

export function authProvider(api: ApiClient): AuthProvider {
  return {
    async login({ email, password }: { email: string; password: string }) {
      await api.signIn(email, password);
    },
    async logout() {
      await api.signOut();
    },
    async checkAuth() {
      if (!api.token) throw { message: false };
    },
    async checkError(error: unknown) {
      // Only a missing or dead sign-in ends the session; a 403 is a refusal of one thing.
      if (error instanceof ApiError && error.status === 401) {
        api.forget();
        throw { message: "Your sign-in has ended. Please sign in again." };
      }
    },
    async getIdentity() {
      const email = api.email ?? "";
      return { id: email, fullName: email };
    },
    async getPermissions(): Promise<AdminAccess | null> {
      if (!api.token) return null;
      try {
        const body = await api.request<{ data: AdminConfig }>(`${api.settings.basePath}/config`);
        return { kind: "granted", config: body.data };
      } catch (error) {
        if (error instanceof ApiError && error.status === 403) return { kind: "denied", message: error.message };
        throw error;
      }
    },
  };
}
