import type { AddressInfo } from "node:net";

/** Where a server listens, as a person and as a client on the same machine see it. */
export interface ListenAddress {
  /** The address the server is bound to, as a URL: `http://127.0.0.1:3000`, `http://[::]:3000`. */
  readonly boundUrl: string;
  /** A URL a client on this machine can use (loopback when bound to every interface). */
  readonly url: string;
  /** The host of `url`, unbracketed: the bound address, or `127.0.0.1` for every interface. */
  readonly clientHost: string;
  /** True when bound to every interface (`0.0.0.0` or `::`). */
  readonly allInterfaces: boolean;
  /** The start-up line: the bound address, and what it means. */
  readonly message: string;
}

const ALL_INTERFACES = new Set(["0.0.0.0", "::"]);

/**
 * Describes the address a server really bound (`server.address()`), which can differ from what
 * was asked for (`localhost` resolves to `::1` or `127.0.0.1`; no host means `::` or `0.0.0.0`).
 *
 * @example
 * describeListenAddress({ address: "::", family: "IPv6", port: 3000 });
 * // { boundUrl: "http://[::]:3000", url: "http://127.0.0.1:3000", clientHost: "127.0.0.1", allInterfaces: true,
 * //   message: "svc listening on http://[::]:3000 (all interfaces; on this machine: http://127.0.0.1:3000)" }
 */
export function describeListenAddress(address: AddressInfo): ListenAddress {
  const allInterfaces = ALL_INTERFACES.has(address.address);
  const boundUrl = httpOrigin(address.address, address.port);
  // A wildcard address is not something to connect to; loopback reaches it on either family
  // (Node binds `::` dual-stack).
  const clientHost = allInterfaces ? "127.0.0.1" : address.address;
  const url = httpOrigin(clientHost, address.port);
  const note = allInterfaces
    ? ` (all interfaces; on this machine: ${url})`
    : isLoopback(address.address)
      ? " (this machine only; HOST=0.0.0.0 listens on every interface)"
      : "";
  return { boundUrl, url, clientHost, allInterfaces, message: `svc listening on ${boundUrl}${note}` };
}

/**
 * `http://host:port`, with IPv6 addresses in brackets.
 *
 * @example
 * httpOrigin("::1", 3000); // "http://[::1]:3000"
 */
export function httpOrigin(host: string, port: number): string {
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

function isLoopback(address: string): boolean {
  return address === "::1" || address.startsWith("127.") || address.startsWith("::ffff:127.");
}
