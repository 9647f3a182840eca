import { fromBase64 } from "./record-cipher.js";
import type { SyncKeyProvider } from "./sync-db-options.js";

/**
 * The default key provider (SPEC §5.6): the user's 32 bytes of key material from `GET /sync/key`
 * (one per user on the server, the same on every device), from which the persister derives its
 * keys with HKDF. The persister asks once per device and keeps the derived key (non-extractable);
 * losing that copy loses nothing, since the server gives the same material again.
 *
 * @example
 * createSyncDb({ ...options, keyProvider: serverKeyProvider() });
 */
export function serverKeyProvider(): SyncKeyProvider {
  return {
    async getKey({ httpChannel, token }) {
      return fromBase64(await httpChannel.key(token));
    },
  };
}

/**
 * A random key made on this device, with no copy on the server: the persister keeps it as a
 * non-extractable key in the browser's storage. Data stored under it can only be read on this
 * device; if that key is lost (the site's storage cleared), the local copy is wiped and synced again
 * (pending changes with it).
 *
 * @example
 * createSyncDb({ ...options, keyProvider: localKeyProvider() });
 */
export function localKeyProvider(): SyncKeyProvider {
  return {
    async getKey() {
      return globalThis.crypto.getRandomValues(new Uint8Array(32));
    },
  };
}
