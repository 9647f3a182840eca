import type { AuthProvider } from "ra-core";
import { ApiError, type ApiClient } from "./api-client";
import type { AdminConfig } from "./api-types";

/**
 * What `getPermissions` resolves to: the caller's admin config, or a refusal. A 403 on the config
 * is an answer, not an error: the account is signed in but may not open the admin, and throwing
 * would sign it out and send it back to the sign-in page, where signing in again loops.
 */
export type AdminAccess = { readonly kind: "granted"; readonly config: AdminConfig } | { readonly kind: "denied"; readonly message: string };

export const SIGN_IN_ENDED = "Your sign-in has ended. Please sign in again.";

export function authProvider(api: ApiClient): AuthProvider {
  // ra-core asks for the permissions more than once after a sign-in (its routes, then each
  // usePermissions): one request per access token answers them all. A refreshed token asks
  // again, and so does a reload, so a change of roles shows within one token's life; a failed
  // ask is not kept.
  let asked: { readonly token: string; readonly answer: Promise<AdminAccess> } | undefined;
  const access = async (): Promise<AdminAccess> => {
    try {
      const body = await api.request<{ data: AdminConfig }>(`${api.settings.basePath}/config`);
      return { kind: "granted", config: body.data };
    } catch (error) {
      if (error instanceof ApiError && error.status === 403) return { kind: "denied", message: error.message };
      throw error;
    }
  };
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
        // Said by the sign-in page: ra-core only notifies while still signed in, and the sign-in
        // page has no place for its notifications.
        api.forget(SIGN_IN_ENDED);
        throw { message: SIGN_IN_ENDED };
      }
    },
    async getIdentity() {
      const email = api.email ?? "";
      return { id: email, fullName: api.name ?? email };
    },
    /** Why the last sign-in ended, for the sign-in page (not part of ra-core's interface). */
    endedBecause: (): string | null => api.endedBecause,
    async getPermissions(): Promise<AdminAccess | null> {
      const token = api.token;
      if (!token) return null;
      if (asked?.token === token) return asked.answer;
      const answer = access();
      asked = { token, answer };
      answer.catch(() => {
        if (asked?.answer === answer) asked = undefined;
      });
      return answer;
    },
  };
}
