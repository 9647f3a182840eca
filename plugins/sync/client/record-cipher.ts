type Subtle = typeof globalThis.crypto.subtle;
/** A Web Crypto key (the DOM's `CryptoKey`; spelled this way so Node's types serve too). */
export type WebCryptoKey = Awaited<ReturnType<Subtle["importKey"]>>;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** One encrypted record as stored: a fresh 96-bit IV per write and the AES-GCM ciphertext (tag included). */
export interface SealedRecord {
  readonly iv: Uint8Array;
  readonly data: ArrayBuffer;
}

/**
 * The two non-extractable keys of one local database, both derived with HKDF (SHA-256) from one
 * base key: AES-256-GCM for the records and HMAC-SHA-256 for their storage keys, so neither field
 * values nor entity ids are stored readable.
 */
export interface RecordCipher {
  /** The storage key of a logical key (`<collection>/<id>`, a mutation id, a stream): HMAC, base64url. */
  storageKey(table: string, logicalKey: string): Promise<string>;
  /** Encrypts a record; `storageKey` is authenticated with it, so a record moved under another key fails to open. */
  seal(storageKey: string, value: unknown): Promise<SealedRecord>;
  /** Decrypts a record; rejects when the key is wrong or the record was altered. */
  open(storageKey: string, sealed: SealedRecord): Promise<unknown>;
}

/**
 * Imports 32 bytes of key material as a non-extractable HKDF base key (the bytes can then be
 * dropped: nothing can read them back out of the key).
 *
 * @example
 * const base = await importBaseKey(crypto.getRandomValues(new Uint8Array(32)));
 */
export async function importBaseKey(material: Uint8Array): Promise<WebCryptoKey> {
  if (material.byteLength < 32) throw new Error(`key material must be at least 32 bytes (got ${material.byteLength})`);
  return globalThis.crypto.subtle.importKey("raw", material, "HKDF", false, ["deriveKey"]);
}

/**
 * The cipher of database `name` from its base key. Different database names get different keys.
 *
 * @example
 * const cipher = await recordCipher(base, "todo-app");
 * const sealed = await cipher.seal(await cipher.storageKey("entities", "todos/t1"), { title: "Milk" });
 */
export async function recordCipher(base: WebCryptoKey, name: string): Promise<RecordCipher> {
  const subtle = globalThis.crypto.subtle;
  const derive = (purpose: string, algorithm: Parameters<Subtle["deriveKey"]>[2], usages: Parameters<Subtle["deriveKey"]>[4]) =>
    subtle.deriveKey({ name: "HKDF", hash: "SHA-256", salt: encoder.encode("svc-sync"), info: encoder.encode(`svc-sync/${purpose}/${name}`) }, base, algorithm, false, usages);
  const [aes, hmac] = await Promise.all([
    derive("records", { name: "AES-GCM", length: 256 }, ["encrypt", "decrypt"]),
    derive("keys", { name: "HMAC", hash: "SHA-256", length: 256 }, ["sign"]),
  ]);
  // Storage keys are asked for again on every write of a record: remember them.
  const keys = new Map<string, string>();
  return {
    async storageKey(table, logicalKey) {
      const cacheKey = `${table}\u0000${logicalKey}`;
      const known = keys.get(cacheKey);
      if (known) return known;
      const signature = new Uint8Array(await subtle.sign("HMAC", hmac, encoder.encode(cacheKey)));
      const key = base64Url(signature);
      keys.set(cacheKey, key);
      return key;
    },
    async seal(storageKey, value) {
      const iv = globalThis.crypto.getRandomValues(new Uint8Array(12));
      const data = await subtle.encrypt({ name: "AES-GCM", iv, additionalData: encoder.encode(storageKey) }, aes, encoder.encode(JSON.stringify(value)));
      return { iv, data };
    },
    async open(storageKey, sealed) {
      const plain = await subtle.decrypt({ name: "AES-GCM", iv: sealed.iv, additionalData: encoder.encode(storageKey) }, aes, sealed.data);
      return JSON.parse(decoder.decode(plain)) as unknown;
    },
  };
}

/** SHA-256 of a string as hex: names a database without writing the user id into it. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", encoder.encode(text)));
  return [...digest].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

function base64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Decodes standard base64 (the server's `keyMaterial`). */
export function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}
